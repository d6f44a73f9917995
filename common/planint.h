/* SPDX-License-Identifier: ISC */
/* planint: what the three parts of the plan module share, and nothing
 * outside them may use (plan.h is the contract):
 *   plan.c       the codec, encoding side: keys, wire escaping, encoder
 *   plandec.c    the codec, decoding side: the strict decoder
 *   planrules.c  the rules of launchplan(5), written once, run by
 *                plan_validate() and by the decoder line by line
 *   planhost.c   the host forms of an egress line, for planrules.c
 *   planjson.c   the JSON view (plan_to_json) */
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

struct plan_keydef {
	const char *name;
	int repeat;	/* may appear on several lines */
};
extern const struct plan_keydef plan_keys[K_NKEYS];

/* "ro", "rw", "rox", "rwx" by enum plan_intent. */
extern const char *const plan_intent_key[4];

/* ---- planrules.c ---- */

/* Index of resource in the canonical rlimit order, or -1. */
int plan_rlim_index(int resource);

/* Length of the name part of "NAME=VALUE"; compare two entries by name
 * (byte order, a prefix first). */
size_t plan_envname_len(const char *nv);
int plan_envcmp(const char *a, const char *b);

/* The bound on the number of entries of list key k (K_ARG, K_RO, ...):
 * 0, or -1 with msg "<key>: more than N <things>" when n exceeds it. */
int plan_rule_count(int k, size_t n, char *msg, size_t len);

/* The rules of key k on p: for a list key, on element i, against the
 * elements before it (duplicates); for a single key, on its field (i is
 * ignored).  0, or -1 with the one-line reason in msg, naming the key
 * and the value ("connect-tcp 443: without the tcp socket right"). */
int plan_rule(const struct plan *p, int k, size_t i, char *msg, size_t len);

/* The rules that need the whole plan (argv[0], uid with gid, prompt
 * bytes, the text bound).  0, or -1 with msg. */
int plan_rules_end(const struct plan *p, char *msg, size_t len);

/* ---- planhost.c ---- */

/* Check the host of an egress line: NULL when it is a lower-case DNS
 * name, "*." and a name of two labels or more, or an IPv4 or IPv6
 * literal exactly as plan_ip_text writes it; else a static reason. */
const char *plan_host_why(const char *host);

/* ---- plan.c ---- */

/* Whether byte b at index i of an n-byte string is written as \ooo. */
int plan_wire_must_escape(unsigned char b, size_t i, size_t n);

/* Append the launchplan(5) escaped form of s[0..n) at out (when out is
 * not NULL); return its length. */
size_t plan_wire_escape(const char *s, size_t n, char *out);

/* Length of the canonical text part of p (magic to "end\n"). */
size_t plan_text_len(const struct plan *p);

/* Sorted shallow copies of p's lists into q (q's arrays are owned by the
 * caller, their elements still by p).  0, or -1 (ENOMEM); either way
 * plan_sorted_free(q) releases what was made. */
int plan_sorted_copy(const struct plan *p, struct plan *q);
void plan_sorted_free(struct plan *q);

#endif
