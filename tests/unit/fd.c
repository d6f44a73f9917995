/* SPDX-License-Identifier: ISC */
/* Unit tests of common/fd: keep-list parsing, close and verify. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"
#include "tap.h"
#include "uapi.h"

static int
is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

static void
test_parse(void)
{
	struct fdset s = FDSET_STDIO, before;
	char big[1024];
	size_t i;
	int r;

	is_int(fdset_parse(&s, "7"), 0, "7 parses");
	is_int(s.n, 4, "stdio plus 7");
	is_int(fdset_parse(&s, "0,1,2,9,5"), 0, "merge with overlap parses");
	is_int(s.n, 6, "0,1,2,5,7,9");
	ok(s.fd[0] == 0 && s.fd[3] == 5 && s.fd[4] == 7 && s.fd[5] == 9,
	    "set kept sorted");
	is_int(fdset_parse(&s, "2147483647"), 0, "INT_MAX parses");

	before = s;
#define BAD(str, want, desc) do {					\
	errno = 0;							\
	r = fdset_parse(&s, str);					\
	ok(r == -1 && errno == (want), desc " (%s)", strerror(errno));	\
	ok(memcmp(&s, &before, sizeof(s)) == 0, desc ": set unchanged");\
} while (0)
	BAD("", EINVAL, "empty refused");
	BAD("1,,2", EINVAL, "empty item refused");
	BAD(",1", EINVAL, "leading comma refused");
	BAD("1,", EINVAL, "trailing comma refused");
	BAD("-1", EINVAL, "negative refused");
	BAD("a", EINVAL, "letter refused");
	BAD("3a", EINVAL, "trailing junk refused");
	BAD(" 3", EINVAL, "blank refused");
	BAD("+3", EINVAL, "sign refused");
	BAD("03", EINVAL, "leading zero refused");
	BAD("10,11,10", EINVAL, "duplicate in one list refused");
	BAD("2147483648", ERANGE, "INT_MAX+1 refused");
	BAD("99999999999999999999", ERANGE, "huge refused");
	errno = 0;
	ok(fdset_parse(&s, NULL) == -1 && errno == EINVAL, "NULL refused");

	/* too many: 100 distinct fds */
	big[0] = '\0';
	for (i = 0; i < 100; i++) {
		char one[16];

		snprintf(one, sizeof(one), "%s%zu", i ? "," : "", 100 + i);
		strcat(big, one);
	}
	BAD(big, E2BIG, "too many refused");
	s = (struct fdset)FDSET_STDIO;
	for (i = 3; i < FDSET_MAX; i++)
		fdset_add(&s, (int)i + 10);
	is_int(s.n, FDSET_MAX, "set filled to FDSET_MAX");
	errno = 0;
	ok(fdset_add(&s, 5) == -1 && errno == E2BIG, "add past max is E2BIG");
	is_int(fdset_add(&s, 0), 0, "adding a present fd when full is fine");
	errno = 0;
	ok(fdset_add(&s, -1) == -1 && errno == ERANGE, "add -1 is ERANGE");
}

static void
test_close_verify(void)
{
	struct fdset keep = FDSET_STDIO;
	struct fd_leak leak;
	struct rlimit rl;
	int a, b, c, r;

	/* Start from stdio only (the harness may leak fds to us), then open
	 * fds spread out, without O_CLOEXEC, some high. */
	syscall(__NR_close_range, 3U, ~0U, 0U);
	a = open("/dev/null", O_RDONLY);
	b = dup2(a, 40);
	getrlimit(RLIMIT_NOFILE, &rl);
	c = dup2(a, (int)(rl.rlim_cur > 1000 ? 999 : rl.rlim_cur - 1));
	ok(a > 2 && b == 40 && c > 40, "test fds opened (%d %d %d)", a, b, c);

	memset(&leak, 0, sizeof(leak));
	r = fd_verify(&keep, &leak);
	is_int(r, 1, "verify sees the extra fds");
	is_int(leak.fd, a, "lowest leaked fd reported");
	is_int(leak.count, 3, "three leaked fds counted");
	is_str(leak.target, "/dev/null", "leak target read from /proc");

	fdset_add(&keep, 40);
	is_int(fd_close_except(&keep), 0, "close_except succeeds");
	ok(!is_open(a), "fd %d closed", a);
	ok(!is_open(c), "fd %d closed", c);
	ok(is_open(40), "kept fd 40 still open");
	ok(is_open(0) && is_open(1) && is_open(2), "stdio kept");
	is_int(fd_verify(&keep, &leak), 0, "verify passes after close");

	fdset_add(&keep, 77);	/* kept but not open: fine */
	is_int(fd_verify(&keep, &leak), 0, "kept fd that is not open is fine");

	keep = (struct fdset)FDSET_STDIO;
	is_int(fd_verify(&keep, &leak), 1, "fd 40 is a leak when not kept");
	is_int(leak.fd, 40, "fd 40 named");
	is_int(fd_close_except(&keep), 0, "close_except again");
	ok(!is_open(40), "fd 40 closed");
	is_int(fd_verify(&keep, &leak), 0, "verify passes");
}

int
main(void)
{
	test_parse();
	test_close_verify();
	return done_testing();
}
