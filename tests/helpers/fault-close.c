/* SPDX-License-Identifier: ISC */
/* fault-close FD PATH program [arg...]: close every fd above 2, open PATH
 * on FD (no close-on-exec), then install a seccomp filter under which
 * close(2) and close_range(2) return 0 without doing anything, and exec
 * program.  The filter survives exec, so the program's closes are no-ops:
 * this is how the tests prove that fdclose-verify checks what it did. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi.h"

int
main(int argc, char *argv[])
{
	scmp_filter_ctx ctx;
	int fd, want;

	if (argc < 4) {
		fprintf(stderr, "usage: fault-close FD PATH program [arg...]\n");
		return 125;
	}
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
	if (ctx == NULL ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(close), 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(close_range),
	    0) < 0 || seccomp_load(ctx) < 0) {
		fprintf(stderr, "fault-close: seccomp setup failed\n");
		return 125;
	}
	execvp(argv[3], argv + 3);
	perror("fault-close: exec");
	return 127;
}
