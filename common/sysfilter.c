/* SPDX-License-Identifier: ISC */
/* sysfilter: the payload's seccomp filter (libseccomp). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "plan.h"
#include "sysfilter.h"
#include "uapi.h"

/* Every namespace flag clone() can carry (CLONE_NEWTIME only exists for
 * clone3/unshare, whose low byte for clone() is the exit signal). */
#define CLONE_NEW_MASK                                                   \
	((uint64_t)(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS |       \
	    CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET))

#define SOCK_TYPE_MASK32 (~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC))

/* Denied with EPERM (see the header for why each is here). */
static const int deny_eperm[] = {
	__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
	__NR_pidfd_getfd, __NR_unshare, __NR_setns, 425 /* io_uring_setup */,
	426 /* io_uring_enter */, 427 /* io_uring_register */,
	__NR_kexec_load, __NR_kexec_file_load, __NR_init_module,
	__NR_finit_module, __NR_delete_module, __NR_bpf,
	__NR_perf_event_open, __NR_keyctl, __NR_add_key, __NR_request_key,
	__NR_userfaultfd, __NR_mount, __NR_umount2, __NR_pivot_root,
	__NR_open_by_handle_at, 430 /* fsopen */, 431 /* fsconfig */,
	432 /* fsmount */, 429 /* move_mount */, 428 /* open_tree */,
	442 /* mount_setattr */, 467 /* open_tree_attr */, __NR_swapon,
	__NR_swapoff, __NR_reboot, __NR_acct, __NR_quotactl,
};

static int
is_denied(int nr)
{
	size_t i;

	for (i = 0; i < sizeof(deny_eperm) / sizeof(deny_eperm[0]); i++)
		if (deny_eperm[i] == nr)
			return 1;
	return 0;
}

/* Low-32-bit equality: MASKED_EQ with a 32-bit mask leaves the high word
 * unchecked, which is how the kernel reads an int argument. */
#define EQ32(arg, v) SCMP_CMP((arg), SCMP_CMP_MASKED_EQ, 0xffffffffULL, (v))
#define TYPE32(v) \
	SCMP_CMP(1, SCMP_CMP_MASKED_EQ, (uint64_t)SOCK_TYPE_MASK32, (v))

static int
add_sock_rules(scmp_filter_ctx ctx, unsigned sock)
{
	static const int utypes[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET};
	static const int inet[] = {AF_INET, AF_INET6};
	static const int tproto[] = {0, IPPROTO_TCP};
	size_t i, j;
	int r;

	if (sock & PLAN_SOCK_UNIX)
		for (i = 0; i < 3; i++) {
			r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
			    SCMP_SYS(socket), 3, EQ32(0, AF_UNIX),
			    TYPE32(utypes[i]), EQ32(2, 0));
			if (r == 0)
				r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
				    SCMP_SYS(socketpair), 3, EQ32(0, AF_UNIX),
				    TYPE32(utypes[i]), EQ32(2, 0));
			if (r < 0)
				return r;
		}
	if (sock & PLAN_SOCK_TCP)
		for (i = 0; i < 2; i++)
			for (j = 0; j < 2; j++) {
				r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
				    SCMP_SYS(socket), 3, EQ32(0, inet[i]),
				    TYPE32(SOCK_STREAM), EQ32(2, tproto[j]));
				if (r < 0)
					return r;
			}
	return 0;
}

/* Landlock ABI < 3 (see the header): truncate(2) EACCES, openat2 ENOSYS,
 * and open/openat split on (flags & (3|O_TRUNC)), five disjoint
 * cases that cover every value: no O_TRUNC, O_WRONLY or O_RDWR with
 * O_TRUNC allowed; O_RDONLY or access mode 3 with O_TRUNC EACCES, as
 * Landlock answers a missing truncate right from ABI 3 on.  The masks'
 * high words are zero: only the low 32 bits the kernel reads count. */
/* The kernel's access-mode bits (musl's O_ACCMODE also holds O_PATH). */
#define ACCMODE 3u

static int
add_truncate_rules(scmp_filter_ctx ctx)
{
	static const struct {
		int nr;
		unsigned arg;	/* the flags argument */
	} opens[] = {{__NR_open, 1}, {__NR_openat, 2}};
	static const struct {
		uint32_t mask, val;
		int deny;
	} cases[] = {
		{O_TRUNC, 0, 0},
		{ACCMODE | O_TRUNC, O_WRONLY | O_TRUNC, 0},
		{ACCMODE | O_TRUNC, O_RDWR | O_TRUNC, 0},
		{ACCMODE | O_TRUNC, O_RDONLY | O_TRUNC, 1},
		{ACCMODE | O_TRUNC, ACCMODE | O_TRUNC, 1},
	};
	size_t i, j;
	int r;

	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(truncate),
	    0);
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    __NR_openat2, 0);
	for (i = 0; r == 0 && i < sizeof(opens) / sizeof(opens[0]); i++)
		for (j = 0; r == 0 && j < sizeof(cases) / sizeof(cases[0]);
		    j++)
			r = seccomp_rule_add(ctx, cases[j].deny ?
			    SCMP_ACT_ERRNO(EACCES) : SCMP_ACT_ALLOW,
			    opens[i].nr, 1, SCMP_CMP(opens[i].arg,
				SCMP_CMP_MASKED_EQ, (uint64_t)cases[j].mask,
				(uint64_t)cases[j].val));
	return r;
}

static int
is_truncating(int nr)
{
	return nr == __NR_truncate || nr == __NR_open || nr == __NR_openat ||
	    nr == __NR_openat2;
}

unsigned
sf_variant(unsigned sock, int abi)
{
	return (sock & (PLAN_SOCK_UNIX | PLAN_SOCK_TCP)) |
	    (abi < 3 ? SF_DENY_TRUNCATE : 0);
}

int
sf_compile(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen)
{
	scmp_filter_ctx ctx;
	const char *what = "init";
	int r = 0, nr, mfd = -1;
	off_t len;
	void *m;

	prog->filter = NULL;
	prog->len = 0;
	if (variant >= SF_NVARIANTS) {
		snprintf(err, errlen, "seccomp: no program variant %u",
		    variant);
		errno = EINVAL;
		return -1;
	}
	/* Default EPERM so that rules can allow conditionally (libseccomp
	 * refuses an ALLOW rule under an ALLOW default); every known number
	 * is then allowed explicitly below. */
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (ctx == NULL) {
		snprintf(err, errlen, "seccomp: init failed");
		errno = ENOMEM;
		return -1;
	}
	what = "bad-arch action";
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS);
	if (r == 0) {
		what = "attributes";
		/* The child sets no_new_privs itself, in the order SPEC
		 * gives; the exported program carries no flags anyway. */
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	}
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	for (nr = 0; r == 0 && nr <= SF_NR_MAX; nr++) {
		what = "allow rules";
		if (is_denied(nr) || nr == __NR_clone3 || nr == __NR_clone ||
		    nr == __NR_socket || nr == __NR_socketpair ||
		    ((variant & SF_DENY_TRUNCATE) && is_truncating(nr)))
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	}
	if (r == 0) {
		what = "clone3 rule";
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(clone3), 0);
	}
	if (r == 0) {
		what = "clone rule";
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
		    SCMP_CMP(0, SCMP_CMP_MASKED_EQ, CLONE_NEW_MASK, 0));
	}
	if (r == 0) {
		what = "socket rules";
		r = add_sock_rules(ctx, variant);
	}
	if (r == 0 && (variant & SF_DENY_TRUNCATE)) {
		what = "truncate rules";
		r = add_truncate_rules(ctx);
	}
	if (r == 0) {
		what = "export";
		mfd = memfd_create("borne-seccomp", MFD_CLOEXEC);
		if (mfd == -1)
			r = -errno;
	}
	if (r == 0)
		r = seccomp_export_bpf(ctx, mfd);
	seccomp_release(ctx);
	if (r < 0)
		goto fail;
	len = lseek(mfd, 0, SEEK_END);
	if (len <= 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		r = -E2BIG;
		goto fail;
	}
	m = malloc((size_t)len);
	if (m == NULL) {
		r = -ENOMEM;
		goto fail;
	}
	if (pread(mfd, m, (size_t)len, 0) != len) {
		free(m);
		r = -EIO;
		goto fail;
	}
	close(mfd);
	prog->filter = m;
	prog->len = (unsigned short)(len / sizeof(struct sock_filter));
	return 0;
fail:
	if (mfd != -1)
		close(mfd);
	snprintf(err, errlen, "seccomp: %s: %s", what, strerror(-r));
	errno = -r;
	return -1;
}

#ifndef SF_GENERATOR
/* The programs compiled by common/gen/sysfilter-gen at build time:
 * sf_prog_<variant>[] and sf_prog_len[]. */
#include "sysfilter-bpf.h"

int
sf_build(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen)
{
	size_t n;

	prog->filter = NULL;
	prog->len = 0;
	if (variant >= SF_NVARIANTS) {
		snprintf(err, errlen, "seccomp: no program variant %u",
		    variant);
		errno = EINVAL;
		return -1;
	}
	n = sf_prog_len[variant] * sizeof(struct sock_filter);
	prog->filter = malloc(n);
	if (prog->filter == NULL) {
		snprintf(err, errlen, "seccomp: %s", strerror(errno));
		return -1;
	}
	memcpy(prog->filter, sf_progs[variant], n);
	prog->len = (unsigned short)sf_prog_len[variant];
	return 0;
}
#endif

int
sf_load(const struct sock_fprog *prog)
{
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}

int
sf_load_listener(const struct sock_fprog *prog)
{
	long fd;

	/* WAIT_KILLABLE_RECV (Linux 5.19): once the supervisor has received
	 * a notification, only a fatal signal interrupts the waiting call,
	 * so a signal handler cannot make the payload restart (and the
	 * supervisor act twice on) a call under review. */
	fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);
	if (fd == -1 && errno == EINVAL)
		fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	return (int)fd;
}

void
sf_free(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}
