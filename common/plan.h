/* SPDX-License-Identifier: ISC */
/* plan: the LaunchPlan, its bounds, and its codec (launchplan(5)).
 * The one place the format is known: planenc encodes and decodes with it,
 * confexec decodes with it.  Nothing here exits or prints.  Implemented
 * by plan.c (codec), planrules.c (the rules, shared by the decoder and
 * plan_validate) and planjson.c (JSON view), see planint.h. */
#ifndef BORNE_PLAN_H
#define BORNE_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Socket shapes a plan may grant (bit set). */
#define PLAN_SOCK_UNIX	0x1u	/* AF_UNIX stream, dgram, seqpacket */
#define PLAN_SOCK_TCP	0x2u	/* AF_INET/AF_INET6 stream, TCP only */

enum plan_mode { PLAN_STRICT = 0, PLAN_DEGRADE = 1 };

#define PLAN_PRESET_SYS 1	/* "preset sys" */

/* Hard bounds of launchplan(5).  The decoder checks every count and size
 * against these before it allocates; the encoder refuses to exceed them. */
#define PLAN_MAGIC		"borne-plan 1"
#define PLAN_MAX_TEXT		(1u << 20)	/* text part, magic to end\n */
#define PLAN_MAX_PROMPT		(16u << 20)	/* prompt bytes after end */
#define PLAN_MAX_ARGS		4096		/* argv entries, argv[0] too */
#define PLAN_MAX_ARG_LEN	131071		/* bytes of one argument */
#define PLAN_MAX_PATH_LEN	4095		/* bytes of a path (PATH_MAX-1) */
#define PLAN_MAX_PATHS		1024		/* ro + rw + rox + rwx entries */
#define PLAN_MAX_PORTS		64		/* each of connect-tcp, bind-tcp */
#define PLAN_MAX_ENV		256		/* env entries */
#define PLAN_MAX_ENV_LEN	32768		/* bytes of one NAME=VALUE */
#define PLAN_MAX_RLIMITS	16		/* one per resource at most */
#define PLAN_MAX_RLIMIT_VAL	((1ull << 53) - 1)	/* finite rlimit values */
#define PLAN_RLIM_INF		UINT64_MAX	/* "inf" (RLIM_INFINITY) */
#define PLAN_MIN_MEMORY		(1ull << 20)	/* memory-max 1M.. */
#define PLAN_MAX_MEMORY		(1ull << 50)	/* ..1P */
#define PLAN_MAX_PIDS		4194304		/* PID_MAX_LIMIT */
#define PLAN_MIN_CPU_US		1000		/* cpu-max quota and period */
#define PLAN_MAX_CPU_QUOTA	1000000000ull	/* 1000 s per period */
#define PLAN_MAX_CPU_PERIOD	1000000		/* 1 s (cgroup limit) */
#define PLAN_DEF_CPU_PERIOD	100000		/* cgroup default */
#define PLAN_MAX_TIMEOUT_MS	2678400000ull	/* 31 days */
#define PLAN_MAX_ID		4294967294u	/* uid/gid 1..2^32-2 */
#define PLAN_MAX_ACK		16		/* ack-daemon names */
#define PLAN_MAX_ACK_LEN	64		/* bytes of one daemon name */
#define PLAN_MAX_KEEP		64		/* keep-fd entries */
#define PLAN_MAX_FD		1048575		/* keep-fd 3..nr_open-1 */
#define PLAN_MAX_EGRESS		64		/* egress destinations */
#define PLAN_MAX_HOST_LEN	253		/* bytes of an egress host */
/* rwx: write and execute on purpose (shown loudly); a rw path and a rox
 * path nested in each other are refused (they would add up to rwx). */
enum plan_intent { PLAN_RO = 0, PLAN_RW = 1, PLAN_ROX = 2, PLAN_RWX = 3 };

struct plan_fsrule {
	enum plan_intent intent;
	char *path;		/* absolute, normalised, no NUL */
};

/* One destination of the run's egress broker (launchplan(5), "egress"):
 * host is a lowercase DNS name ("pkgs.example"), a suffix wildcard
 * ("*.forge.example": any name beneath forge.example, not forge.example itself),
 * or an IP literal in RFC 5952's form (plan_ip_text: "192.0.2.7",
 * "2001:db8::1", "::ffff:192.0.2.7", no brackets; never an unspecified
 * address, plan_ip_unspecified).  port 1..65535. */
struct plan_egress {
	char *host;
	uint16_t port;
};

struct plan_rlimit {
	int resource;		/* RLIMIT_* */
	uint64_t soft, hard;	/* RLIM_INFINITY allowed */
};

struct plan {
	char *program;		/* absolute path */
	char **argv;		/* argc entries + NULL; argv[0] included */
	size_t argc;
	int has_sha256;
	uint8_t sha256[32];	/* pinned digest of the program image */
	/* A script the program (its interpreter) reads: argv[script_arg]
	 * (1..argc-1, an absolute path; 0: none) is handed over sealed,
	 * its bytes checked against script_sha256 (launchplan(5)). */
	size_t script_arg;
	uint8_t script_sha256[32];

	struct plan_fsrule *fs;
	size_t nfs;
	char **follow;		/* rule paths whose symlinks are followed */
	size_t nfollow;
	int preset;		/* PLAN_PRESET_SYS: the rules of planenc
				 * --preset sys are in fs (the record names
				 * it); 0: none */
	int tmp;		/* a private temp dir per run (TMPDIR) */

	unsigned sock;		/* PLAN_SOCK_* */
	uint16_t *connect_tcp;	/* sorted, unique */
	size_t nconnect;
	uint16_t *bind_tcp;	/* sorted, unique */
	size_t nbind;

	struct plan_egress *egress;	/* sorted by host, then port; unique */
	size_t negress;

	char **env;		/* "NAME=VALUE", resolved by the encoder */
	size_t nenv;

	struct plan_rlimit *rlim;
	size_t nrlim;

	uint64_t mem_max;	/* cgroup memory.max in bytes; 0: none */
	uint64_t pids_max;	/* cgroup pids.max; 0: none */
	uint64_t cpu_quota_us;	/* cgroup cpu.max quota; 0: none */
	uint64_t cpu_period_us;	/* cgroup cpu.max period (with quota) */
	uint64_t timeout_ms;	/* wall clock; 0: none */

	int has_uid;
	uid_t uid;		/* subordinate uid to switch to (never 0) */
	int has_gid;
	gid_t gid;

	char **ack_daemons;	/* privileged daemons acknowledged (by name) */
	size_t nack;

	int *keep_fds;		/* fds kept open beyond 0,1,2; sorted */
	size_t nkeep;

	enum plan_mode mode;

	int has_prompt;
	unsigned char *prompt;	/* delivered as the payload's stdin */
	size_t prompt_len;

	uint8_t digest[32];	/* SHA-256 of the encoded plan (set by decode) */
	int has_digest;		/* digest is set (by plan_decode) */
};

/* Every function below that can fail writes a one-line message naming the
 * offending field into err (errlen bytes, NUL-terminated), e.g.
 * "line 12: connect-tcp 443 without the tcp socket right". */

/* Decode and fully validate one encoded plan (exactly len bytes: trailing
 * bytes are an error).  Never allocates from an unchecked length.
 * Returns 0, or -1 (errno EINVAL; *p left empty) with err set. */
int plan_decode(const unsigned char *buf, size_t len, struct plan *p,
    char *err, size_t errlen);

/* Read one plan from fd until EOF, refusing more than the documented total
 * bound, then plan_decode() it.  Returns 0, or -1 with err set. */
int plan_read_fd(int fd, struct plan *p, char *err, size_t errlen);

/* Check every field and every contradiction (the rules of launchplan(5)).
 * Lists may be in any order (duplicates are refused).  err may be NULL.
 * Returns 0, or -1 (errno EINVAL) with err set. */
int plan_validate(const struct plan *p, char *err, size_t errlen);

/* Where plan_validate_at() found the first fault: the list and the index
 * of the entry in p's own order (PLAN_AT_NONE: a single field or the
 * whole plan), so a caller can say where that entry came from. */
enum plan_at { PLAN_AT_NONE, PLAN_AT_FS, PLAN_AT_FOLLOW, PLAN_AT_CONNECT,
	PLAN_AT_BIND, PLAN_AT_EGRESS, PLAN_AT_ENV, PLAN_AT_RLIMIT, PLAN_AT_ACK, PLAN_AT_KEEP,
	PLAN_AT_ARG };
int plan_validate_at(const struct plan *p, enum plan_at *at, size_t *index,
    char *err, size_t errlen);

/* The entries of planenc --preset sys (planenc(1)), in order; *n gets
 * their number.  planenc makes each a rule of the plan; confexec names
 * the preset in its hints.  An entry that withholds (/etc) is granted
 * whole, and the run's view withholds the host's secrets beneath it
 * (mountview.h); a hint never offers the preset for a secret
 * (plan_preset_withheld). */
struct plan_preset_entry {
	const char *path;
	enum plan_intent intent;
	int withhold;
};
const struct plan_preset_entry *plan_preset_sys(size_t *n);

/* planpreset.c: whether rel, a path relative to a withholding entry
 * ("ssh/ssh_host_rsa_key" beneath /etc), names a secret by its name
 * alone (shadow, gshadow, sudoers, host private keys, ...). */
int plan_preset_secret_name(const char *rel);
/* The same names as fnmatch(3) patterns relative to /etc, *n of them. */
const char *const *plan_preset_secret_globs(size_t *n);
/* Whether the preset withholds path, which lies beneath a withholding
 * entry: a component below the entry is a secret by name, or one that
 * others may not read on this host now (no read for others; for a
 * directory, no search either).  0 for anything else, or a path that
 * cannot be looked at. */
int plan_preset_withheld(const char *path);

/* "ro", "rw", "rox", "rwx"; "?" for anything else. */
const char *plan_intent_name(enum plan_intent in);

/* Whether path a is b or beneath it, component-wise ("/a" holds "/a/b",
 * not "/ab"); both absolute and normalised. */
int plan_path_within(const char *a, const char *b);

/* The one-line warning launchplan(5) gives for an rwx rule (JSON
 * "warnings", confexec's start): into buf, returned. */
const char *plan_rwx_warning(const char *path, char *buf, size_t size);

/* Canonical encoding of a valid plan into a malloc'd buffer: the text
 * part (lists sorted as launchplan(5) says, whatever their order in p),
 * then the prompt bytes, and a NUL past *outlen (not part of the plan).
 * Returns 0, or -1 with errno (EINVAL: plan invalid; ENOMEM). */
int plan_encode(const struct plan *p, unsigned char **out, size_t *outlen);

/* A valid plan as one JSON object (launchplan(5), "JSON"): the prompt as its
 * length and SHA-256, strings that are not UTF-8 as {"escaped": "..."}.
 * Returns a new reference, or NULL (ENOMEM). */
struct json_t;
struct json_t *plan_to_json(const struct plan *p);

/* rlimit names of launchplan(5) ("nofile", "as", ...) and RLIMIT_* numbers.
 * plan_rlimit_name() returns NULL for an unknown resource;
 * plan_rlimit_lookup() returns -1 for an unknown name. */
const char *plan_rlimit_name(int resource);
int plan_rlimit_lookup(const char *name);

/* Check one absolute, normalised path / one NAME=VALUE entry / one env
 * name (n bytes).  Return NULL when fine, else a static reason. */
const char *plan_path_why(const char *path);
const char *plan_env_why(const char *nv);
const char *plan_envname_why(const char *name, size_t n);

/* The canonical text of an IPv4 (af AF_INET, 4 bytes) or IPv6 (16 bytes)
 * address, as egress hosts are written (RFC 5952; the same with every
 * libc): into buf (size bytes; 46 is enough), returned; NULL when it
 * does not fit. */
const char *plan_ip_text(int af, const void *addr, char *buf, size_t size);

/* Whether an address (as plan_ip_text takes it) is one a connect(2)
 * takes for this host's own: the unspecified 0.0.0.0 or ::, or
 * ::ffff:0.0.0.0 (0.0.0.0 mapped).  Never a destination: 1 or 0. */
int plan_ip_unspecified(int af, const void *addr);

/* Release everything a decoded or built plan owns; *p becomes empty. */
void plan_free(struct plan *p);

#endif
