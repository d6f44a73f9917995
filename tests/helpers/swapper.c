/* SPDX-License-Identifier: ISC */
/* swapper: the attacker of the suidstrip race tests.  In DIR, exchange the
 * names A and B (renameat2 RENAME_EXCHANGE) in a tight loop until killed,
 * so that A is alternately a directory/file of the tree and a symlink that
 * leads outside it.  Before the loop it opens every NAME given after --
 * (relative to DIR, not following symlinks) and between swaps sets them
 * back to root-owned mode 04755 (06755 for directories: 02775) through
 * those fds, re-arming what suidstrip strips; the fds never leave the
 * tree, so the attacker itself cannot touch anything outside.
 *   swapper DIR A B [A2 B2 ...] [-- NAME...]
 * Prints the number of exchanges done when it gets SIGTERM. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi.h"

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(int argc, char *argv[])
{
	int dfd, i, npairs, nfds = 0, fds[64];
	unsigned long n = 0, k = 0;
	char **pairs;
	struct sigaction sa;

	if (argc < 4) {
		fprintf(stderr, "usage: swapper DIR A B [A2 B2 ...] [-- NAME...]\n");
		return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if ((dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) == -1) {
		perror("swapper: open DIR");
		return 1;
	}
	pairs = argv + 2;
	for (npairs = 0; 2 + npairs < argc && strcmp(argv[2 + npairs], "--") != 0;)
		npairs++;
	if (npairs % 2 != 0) {
		fprintf(stderr, "swapper: names come in pairs\n");
		return 2;
	}
	for (i = 2 + npairs + 1; i < argc && nfds < 64; i++) {
		int fd = openat(dfd, argv[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK);

		if (fd == -1) {
			fprintf(stderr, "swapper: open %s: %s\n", argv[i],
			    strerror(errno));
			return 1;
		}
		fds[nfds++] = fd;
	}
	while (!stop) {
		for (i = 0; i < npairs; i += 2)
			if (syscall(SYS_renameat2, dfd, pairs[i], dfd,
			    pairs[i + 1], RENAME_EXCHANGE) == 0)
				n++;
		/* Re-arm now and then: the chmod-vs-chmod race is not the
		 * subject here, escaping the tree is. */
		if (nfds > 0 && ++k % 16 == 0) {
			for (i = 0; i < nfds; i++) {
				struct stat sb;

				if (fstat(fds[i], &sb) == -1)
					continue;
				if (fchown(fds[i], 0, 0) == -1)
					continue;
				fchmod(fds[i], S_ISDIR(sb.st_mode) ? 02775 : 04755);
			}
		}
	}
	printf("%lu\n", n);
	return 0;
}
