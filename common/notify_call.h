/* SPDX-License-Identifier: ISC */
/* notify_call: one notification being answered, and its means
 * (notify_call.c): answering, the caller's memory, the descriptors it
 * names, the rule checks.  Internal to notify: notify.c receives and
 * dispatches, notify_ops.c performs the calls, both with these; this
 * one uses neither.  Not a contract: notify.h is the module's. */
#ifndef BORNE_NOTIFY_CALL_H
#define BORNE_NOTIFY_CALL_H

#include <stdint.h>
#include <sys/stat.h>
#include <linux/seccomp.h>

#include "notify.h"

/* One notification being answered. */
struct nt_call {
	const struct seccomp_notif *n;
	const struct notify_policy *np;
	int listenfd;
	int pidfd;		/* the calling thread */
};

/* The answer: a value, or an errno and whether the policy refused. */
enum nt_verdict { NT_ALLOWED, NT_DENIED, NT_FAILED };
struct nt_answer {
	int64_t val;
	int err;
	enum nt_verdict k;
};

#define NT_ARG(c, i) ((c)->n->data.args[i])
#define NT_IARG(c, i) ((int)(uint32_t)NT_ARG(c, i))

#define NT_NOFOLLOW 1u	/* l* forms, AT_SYMLINK_NOFOLLOW */
#define NT_EMPTY 2u	/* AT_EMPTY_PATH */
#define NT_NULLPATH 4u	/* a NULL path names dfd (utimensat) */

void nt_deny(struct nt_answer *a, int e);
void nt_fail(struct nt_answer *a, int e);
void nt_done(struct nt_answer *a, long r);
int nt_id_valid(const struct nt_call *c);
int nt_still_valid(const struct nt_call *c, struct nt_answer *a);

/* The caller's memory, read once (EFAULT; toolong when no NUL fits). */
int nt_mem_read(const struct nt_call *c, uint64_t addr, void *buf, size_t len);
int nt_mem_str(const struct nt_call *c, uint64_t addr, char *buf, size_t size,
    int toolong);

/* Descriptors in the supervisor: the caller's fd (pidfd_getfd), a path
 * resolved as the caller would (O_PATH), -1 with errno. */
int nt_fetch_fd(const struct nt_call *c, int fd);
int nt_resolve_str(const struct nt_call *c, int dfd, const char *path,
    unsigned tf);
int nt_resolve(const struct nt_call *c, int dfd, uint64_t upath, unsigned tf);
int nt_at_flags(uint64_t fl, unsigned allowed, unsigned *tf);
void nt_fdpath(int fd, char *p, size_t n);

/* The rule checks (notify.h). */
int nt_beneath(int fd, char *const *rules, const int *rfd,
    const struct notify_id *ids, size_t n);
int nt_in_groups(const struct notify_policy *np, gid_t g);
int nt_dac_allows(const struct notify_policy *np, const struct stat *st,
    mode_t other);

/* The calls (notify_ops.c), dispatched by notify.c. */
void nt_watch_call(const struct nt_call *c, struct nt_answer *a);
void nt_bind_call(const struct nt_call *c, struct nt_answer *a);
void nt_listen_call(const struct nt_call *c, struct nt_answer *a);

#endif
