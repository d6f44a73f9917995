/* SPDX-License-Identifier: ISC */
/* sysfilter's observer (sysfilter.h: sf_observe, sf_observe_watch): a
 * tail appended to a built program that turns the watched calls it
 * allows into user notifications; what it denies stays denied. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "sysfilter.h"

int
sf_observe(struct sock_fprog *prog, const int *nrs, size_t n)
{
	struct sf_watch w[200];
	size_t i;

	if (n == 0 || n > sizeof(w) / sizeof(w[0])) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++)
		w[i] = (struct sf_watch){nrs[i], -1, 0};
	return sf_observe_watch(prog, w, n);
}

/* The tail's length for n watches: arch, nr, per watch a test (and,
 * with an argument, a load and a bit test), allow, notify; 0 (EINVAL)
 * when the watches or the program cannot take it: a bad watch, too
 * many, a jump past 255, a program over BPF_MAXINSNS, or a program
 * that returns other than a constant (its ALLOWs are rewritten). */
static size_t
tail_size(const struct sock_fprog *prog, const struct sf_watch *w,
    size_t n)
{
	size_t size = 5, i;

	for (i = 0; i < n && n <= 200; i++) {
		if (w[i].arg > 5 || (w[i].arg >= 0 && w[i].mask == 0))
			goto inval;
		size += w[i].arg < 0 ? 1 : 3;
	}
	if (n == 0 || n > 200 || size > 255 ||
	    prog->len + size > BPF_MAXINSNS)
		goto inval;
	for (i = 0; i < prog->len; i++)
		if (BPF_CLASS(prog->filter[i].code) == BPF_RET &&
		    BPF_RVAL(prog->filter[i].code) != BPF_K)
			goto inval;
	return size;
inval:
	errno = EINVAL;
	return 0;
}

/* The tail at t (size instructions): the watched calls notified, the
 * others allowed.  Returns the instructions written. */
static size_t
tail_emit(struct sock_filter *t, size_t size, const struct sf_watch *w,
    size_t n)
{
	size_t i, k = 0, allow = size - 2, notif = size - 1;

	t[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	/* Not x86_64 (never allowed by the program): allow as it did. */
	t[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    AUDIT_ARCH_X86_64, 0, (uint8_t)(allow - k - 1));
	k++;
	t[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	for (i = 0; i < n; i++) {
		if (w[i].arg < 0) {
			t[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
			    BPF_K, (uint32_t)w[i].nr, (uint8_t)(notif - k - 1),
			    0);
			k++;
			continue;
		}
		/* Its number: the argument's low word (an int, as the
		 * kernel reads it) decides; no other watch follows. */
		t[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		    (uint32_t)w[i].nr, 0, 2);
		t[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, args) +
		    8 * (unsigned)w[i].arg);
		t[k] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
		    w[i].mask, (uint8_t)(notif - k - 1),
		    (uint8_t)(allow - k - 1));
		k++;
	}
	t[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	t[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_USER_NOTIF);
	return k;
}

int
sf_observe_watch(struct sock_fprog *prog, const struct sf_watch *w,
    size_t n)
{
	struct sock_filter *f;
	size_t len = prog->len, size, i, k;

	if ((size = tail_size(prog, w, n)) == 0)
		return -1;
	f = malloc((len + size) * sizeof(*f));
	if (f == NULL)
		return -1;
	memcpy(f, prog->filter, len * sizeof(*f));
	/* Every ALLOW of the program jumps to the tail instead. */
	for (i = 0; i < len; i++)
		if (f[i].code == (BPF_RET | BPF_K) &&
		    f[i].k == SECCOMP_RET_ALLOW)
			f[i] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA,
			    (uint32_t)(len - i - 1), 0, 0);
	k = tail_emit(f + len, size, w, n);
	free(prog->filter);
	prog->filter = f;
	prog->len = (unsigned short)(len + k);
	return 0;
}
