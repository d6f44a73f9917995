/* SPDX-License-Identifier: ISC */
/* plan: the LaunchPlan, its bounds, and its codec (launchplan(5)).
 * The one place the format is known: planenc encodes and decodes with it,
 * confexec decodes with it.  Nothing here exits or prints. */
#ifndef BORNE_PLAN_H
#define BORNE_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Socket shapes a plan may grant (bit set). */
#define PLAN_SOCK_UNIX	0x1u	/* AF_UNIX stream, dgram, seqpacket */
#define PLAN_SOCK_TCP	0x2u	/* AF_INET/AF_INET6 stream, TCP only */

enum plan_mode { PLAN_STRICT = 0, PLAN_DEGRADE = 1 };
enum plan_intent { PLAN_RO = 0, PLAN_RW = 1, PLAN_ROX = 2 };

struct plan_fsrule {
	enum plan_intent intent;
	char *path;		/* absolute, normalised, no NUL */
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

	struct plan_fsrule *fs;
	size_t nfs;

	unsigned sock;		/* PLAN_SOCK_* */
	uint16_t *connect_tcp;	/* sorted, unique */
	size_t nconnect;
	uint16_t *bind_tcp;	/* sorted, unique */
	size_t nbind;

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
 * Returns 0, or -1 with err set. */
int plan_validate(const struct plan *p, char *err, size_t errlen);

/* Canonical encoding of a valid plan into a malloc'd buffer.
 * Returns 0, or -1 with errno (EINVAL: plan invalid; ENOMEM). */
int plan_encode(const struct plan *p, unsigned char **out, size_t *outlen);

/* Release everything a decoded or built plan owns; *p becomes empty. */
void plan_free(struct plan *p);

#endif
