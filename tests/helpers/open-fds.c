/* SPDX-License-Identifier: ISC */
/* open-fds [-n NOFILE] N program [arg...]: optionally set the soft
 * RLIMIT_NOFILE to NOFILE, open N descriptors on /dev/null without
 * close-on-exec (the limit must allow N+3), then exec program. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct rlimit rl;
	long n, i;

	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = (rlim_t)strtoul(argv[2], NULL, 10);
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
			perror("open-fds: setrlimit");
			return 125;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: open-fds [-n NOFILE] N program...\n");
		return 125;
	}
	n = strtol(argv[1], NULL, 10);
	for (i = 0; i < n; i++)
		if (open("/dev/null", O_RDONLY) == -1) {
			perror("open-fds: open");
			return 125;
		}
	execvp(argv[2], argv + 2);
	perror("open-fds: exec");
	return 127;
}
