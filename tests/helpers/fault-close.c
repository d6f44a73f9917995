/* SPDX-License-Identifier: ISC */
/* fault-close MODE FD PATH program [arg...]: close every fd above 2, open
 * PATH on FD (no close-on-exec), install a seccomp filter, exec program.
 * The filter survives exec.  MODE:
 *   noop    close(2) and close_range(2) return 0 without doing anything:
 *           the tests prove that fdclose-verify checks what it did;
 *   enosys  close_range(2) fails with ENOSYS, as on kernels before 5.9:
 *           the tests exercise the /proc/self/fd fallback;
 *   one     only FD's closes do nothing (close(FD), a close_range over
 *           FD): FD is then the one descriptor left (the loader's own
 *           closes work). */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi.h"

int
main(int argc, char *argv[])
{
	scmp_filter_ctx ctx;
	int fd, want, noop, one, r;

	if (argc < 5 || (strcmp(argv[1], "noop") != 0 &&
	    strcmp(argv[1], "enosys") != 0 && strcmp(argv[1], "one") != 0)) {
		fprintf(stderr, "usage: fault-close noop|enosys|one FD PATH "
		    "program [arg...]\n");
		return 125;
	}
	noop = strcmp(argv[1], "noop") == 0;
	one = strcmp(argv[1], "one") == 0;
	argv++;
	want = atoi(argv[1]);
	syscall(__NR_close_range, 3U, ~0U, 0U);
	fd = open(argv[2], O_RDONLY);
	if (fd == -1 || (fd != want && dup2(fd, want) == -1)) {
		perror("fault-close: open");
		return 125;
	}
	if (fd != want)
		close(fd);
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL)
		r = -1;
	else if (noop)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(close), 0) |
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0),
		    SCMP_SYS(close_range), 0);
	else if (one)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(close), 1,
		    SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)want, 0)) |
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0),
		    SCMP_SYS(close_range), 2,
		    SCMP_A0(SCMP_CMP_LE, (scmp_datum_t)want, 0),
		    SCMP_A1(SCMP_CMP_GE, (scmp_datum_t)want, 0));
	else
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(close_range), 0);
	if (r < 0 || seccomp_load(ctx) < 0) {
		fprintf(stderr, "fault-close: seccomp setup failed\n");
		return 125;
	}
	execvp(argv[3], argv + 3);
	perror("fault-close: exec");
	return 127;
}
