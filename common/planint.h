/* SPDX-License-Identifier: ISC */
/* planint: what the parts of the plan module share, and nothing outside
 * them may use (plan.h is the contract):
 *   plankeys.c   the keys of launchplan(5), one row each: everything the
 *                other parts know of a key is in its row
 *   plan.c       the encoder: each key's lines
 *   planwire.c   a value's escaping on the wire, both ways
 *   plandec.c    the strict decoder: each key's lines
 *   planrules.c  the rules of launchplan(5), written once, run by
 *                plan_validate() and by the decoder line by line
 *   planhost.c   the host forms of an egress line, for planrules.c
 *   planjson.c   the JSON view (plan_to_json): each key's member */
#ifndef BORNE_PLANINT_H
#define BORNE_PLANINT_H

#include <stddef.h>

#include "plan.h"

/* Keys in canonical order: a key's rank is its index. */
enum plan_key {
	K_PROGRAM, K_ARG, K_SHA256, K_SCRIPT, K_RO, K_RW, K_ROX, K_RWX, K_FOLLOW,
	K_PRESET, K_TMP,
	K_SOCKET, K_CONNECT, K_BIND, K_EGRESS, K_ENV, K_RLIMIT, K_MEMORY,
	K_PIDS, K_CPU, K_TIMEOUT, K_UID, K_GID, K_ACK, K_KEEP, K_MODE,
	K_PROMPT, K_NKEYS
};

/* What a list's entries are (plan.c knows each kind's size, its
 * canonical order and what an entry owns). */
enum plan_elem {
	PLAN_ELEM_NONE,		/* a single key, or a list kept elsewhere */
	PLAN_ELEM_ARGV,		/* char *, in the order given */
	PLAN_ELEM_STR,		/* char *, by bytes */
	PLAN_ELEM_ENV,		/* char * "NAME=VALUE", by name */
	PLAN_ELEM_FS,		/* struct plan_fsrule */
	PLAN_ELEM_U16,		/* uint16_t, ascending */
	PLAN_ELEM_INT,		/* int, ascending */
	PLAN_ELEM_EGRESS,	/* struct plan_egress */
	PLAN_ELEM_RLIM,		/* struct plan_rlimit */
	PLAN_ELEM_NKINDS
};

struct plan_dec;	/* plandec.c: the line being decoded */
struct plan_out;	/* plan.c: the text being encoded */
struct json_t;

/* One key: every fact the codec, the rules and the JSON view use.  A row
 * leaves no field empty (tests/unit/plankeys walks every key). */
struct plan_keydef {
	const char *name;	/* on the wire, launchplan(5) */
	const char *json;	/* its member in plan_to_json's object */
	int list;		/* may appear on several lines, one entry
				 * each; else at most once */
	int empty;		/* the value may be empty (the key alone) */
	/* A list: its bound ("<group>: more than <max> <what>") and where
	 * plan_validate_at() reports a fault; a single key: 0, NULL,
	 * PLAN_AT_NONE. */
	int max;
	const char *group, *what;
	enum plan_at at;
	/* A list's array in struct plan: its kind, where the array and its
	 * length are (offsetof); PLAN_ELEM_NONE for a single key. */
	enum plan_elem elem;
	size_t arr, len;
	/* A single number's place in struct plan (offsetof) for the keys
	 * whose functions are their value's: val, a uint64_t, 0 for none
	 * (u64: memory-max, pids-max, timeout-ms), or a uint32_t with its
	 * presence flag, an int, at has (id: uid, gid); 0 for the other
	 * keys. */
	size_t val, has;
	/* A u64 key's bounds: 0 or lo..hi, else "<name> V: <range>". */
	uint64_t lo, hi;
	const char *range;
	/* The entries the rules check: a list's length, 1 for a single key
	 * (ro, rw, rox and rwx share one list, counted once under ro). */
	size_t (*count)(const struct plan *p);
	/* Decode the current line into p, its rules run: 0, or -1. */
	int (*dec)(struct plan_dec *d, int k, struct plan *p);
	/* Write the key's lines for p, whose lists are sorted. */
	void (*enc)(struct plan_out *o, const struct plan *p, int k);
	/* The rules of entry i (a list's entry, checked against those
	 * before it; i ignored for a single key): 0, or -1 with msg. */
	int (*rule)(const struct plan *p, int k, size_t i, char *msg,
	    size_t len);
	/* The member's value (sorted lists), a new reference or NULL. */
	struct json_t *(*tojson)(const struct plan *p, int k);
};
extern const struct plan_keydef plan_keys[K_NKEYS];

/* ro, rw, rox and rwx are K_RO + their enum plan_intent. */
#define PLAN_FS_KEY(in) (K_RO + (int)(in))

/* ---- the rows' functions ---- */

/* Each key's four functions are named by one suffix: plan_dec_<x>
 * (plandec.c), plan_enc_<x> (plan.c), plan_rule_<x> (planrules.c) and
 * plan_json_<x> (planjson.c); ro, rw, rox and rwx share "fs", the
 * numbers their value's, their fields and bounds in the row: "u64"
 * (memory-max, pids-max, timeout-ms) and "id" (uid, gid). */
#define PLAN_KEY_FUNCTIONS(X) X(program) X(arg) X(sha256) X(script) X(fs) \
	X(follow) X(preset) X(tmp) X(socket) X(egress) X(env) X(rlimit) \
	X(u64) X(cpu) X(id) X(ack) X(keep) X(mode) X(prompt)
/* connect-tcp and bind-tcp: their lines, decoder and JSON member are
 * their value's, "ports" (a uint16_t list at the row's arr and len);
 * each its own rule, plan_rule_<key>. */
#define PLAN_VALUE_FUNCTIONS(X) X(ports)
#define PLAN_RULE_FUNCTIONS(X) X(connect) X(bind)
#define PLAN_VALUE_PROTOTYPES(x) \
	int plan_dec_##x(struct plan_dec *, int, struct plan *); \
	void plan_enc_##x(struct plan_out *, const struct plan *, int); \
	struct json_t *plan_json_##x(const struct plan *, int);
#define PLAN_RULE_PROTOTYPES(x) \
	int plan_rule_##x(const struct plan *, int, size_t, char *, size_t);
#define PLAN_KEY_PROTOTYPES(x) PLAN_VALUE_PROTOTYPES(x) \
	PLAN_RULE_PROTOTYPES(x)
PLAN_KEY_FUNCTIONS(PLAN_KEY_PROTOTYPES)
PLAN_VALUE_FUNCTIONS(PLAN_VALUE_PROTOTYPES)
PLAN_RULE_FUNCTIONS(PLAN_RULE_PROTOTYPES)

/* The field at offset off (a row's arr, len, val or has) of plan p. */
#define PLAN_FIELD(p, off) ((void *)((char *)(p) + (off)))
#define PLAN_CFIELD(p, off) ((const void *)((const char *)(p) + (off)))

/* ---- planrules.c ---- */

/* Index of resource in the canonical rlimit order, or -1. */
int plan_rlim_index(int resource);

/* Length of the name part of "NAME=VALUE"; compare two entries by name
 * (byte order, a prefix first). */
size_t plan_envname_len(const char *nv);
int plan_envcmp(const char *a, const char *b);

/* The bound on the number of entries of list key k: 0, or -1 with msg
 * "<group>: more than N <what>" when n exceeds it (a single key: 0). */
int plan_rule_count(int k, size_t n, char *msg, size_t len);

/* plan_keys[k].rule: 0, or -1 with the one-line reason in msg, naming
 * the key and the value ("connect-tcp 443: without the tcp socket
 * right"). */
int plan_rule(const struct plan *p, int k, size_t i, char *msg, size_t len);

/* The rules that need the whole plan (argv[0], uid with gid, prompt
 * bytes, the text bound).  0, or -1 with msg. */
int plan_rules_end(const struct plan *p, char *msg, size_t len);

/* ---- planwire.c ---- */

/* Whether byte b at index i of an n-byte string is written as \ooo. */
int plan_wire_must_escape(unsigned char b, size_t i, size_t n);

/* Append the launchplan(5) escaped form of s[0..n) at out (when out is
 * not NULL); return its length. */
size_t plan_wire_escape(const char *s, size_t n, char *out);

/* Check the escaped value v[0..n): canonical escapes only, no NUL.  The
 * decoded length, or -1 with *why set (a static reason). */
long plan_wire_unescape_len(const unsigned char *v, size_t n,
    const char **why);
/* Decode a value checked by plan_wire_unescape_len() into out (its
 * length and a NUL). */
void plan_wire_unescape(const unsigned char *v, size_t n, char *out);

/* ---- planhost.c ---- */

/* Check the host of an egress line: NULL when it is a lower-case DNS
 * name, "*." and a name of two labels or more, or an IPv4 or IPv6
 * literal exactly as plan_ip_text writes it; else a static reason. */
const char *plan_host_why(const char *host);

/* ---- plan.c ---- */

/* Length of the canonical text part of p (magic to "end\n"). */
size_t plan_text_len(const struct plan *p);

/* Sorted shallow copies of p's lists into q (q's arrays are owned by the
 * caller, their elements still by p).  0, or -1 (ENOMEM); either way
 * plan_sorted_free(q) releases what was made. */
int plan_sorted_copy(const struct plan *p, struct plan *q);
void plan_sorted_free(struct plan *q);

#endif
