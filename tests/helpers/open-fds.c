/* SPDX-License-Identifier: ISC */
/* open-fds N program [arg...]: open N descriptors on /dev/null without
 * close-on-exec (needs RLIMIT_NOFILE above N+3), then exec program. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	long n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: open-fds N program [arg...]\n");
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
