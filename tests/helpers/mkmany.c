/* SPDX-License-Identifier: ISC */
/* mkmany: create a large tree of empty files fast, for the suidstrip
 * budget test and benchmark.
 *   mkmany DIR COUNT PERDIR [SUID_EVERY [CAP_EVERY]]
 * makes COUNT empty files, PERDIR per subdirectory d<N>/ of DIR; every
 * SUID_EVERY-th file (0: none) gets mode 04755, every CAP_EVERY-th a
 * security.capability xattr (cap_net_raw=ep, v2).  Two processes share
 * the work. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "scan.h"

int
main(int argc, char *argv[])
{
	/* vfs_cap_data v2: effective, permitted = CAP_NET_RAW (13). */
	static const unsigned char cap[20] = { 0x01, 0, 0, 0x02, 0x00, 0x20 };
	uint64_t count, per, suid = 0, capn = 0, i;
	int root, d = -1, me, st;
	char name[32];

	if (argc < 4 || argc > 6 || scan_u64(argv[2], 0, 100000000, &count) ||
	    scan_u64(argv[3], 1, 10000000, &per) ||
	    (argc > 4 && scan_u64(argv[4], 0, UINT64_MAX, &suid)) ||
	    (argc > 5 && scan_u64(argv[5], 0, UINT64_MAX, &capn))) {
		fprintf(stderr, "usage: mkmany DIR COUNT PERDIR [SUID_EVERY "
		    "[CAP_EVERY]]\n");
		return 2;
	}
	if ((root = open(argv[1], O_RDONLY | O_DIRECTORY)) == -1) {
		perror("mkmany: open DIR");
		return 1;
	}
	/* Two processes, each making every other directory. */
	me = fork() == 0;
	for (i = 0; i < count; i++) {
		int fd;

		if ((i / per) % 2 != (uint64_t)me) {
			i += per - 1 - i % per;
			continue;
		}
		if (i % per == 0) {
			if (d != -1)
				close(d);
			snprintf(name, sizeof name, "d%llu",
			    (unsigned long long)(i / per));
			if (mkdirat(root, name, 0755) == -1 && errno != EEXIST) {
				perror("mkmany: mkdir");
				return 1;
			}
			if ((d = openat(root, name, O_RDONLY | O_DIRECTORY)) == -1) {
				perror("mkmany: open");
				return 1;
			}
		}
		snprintf(name, sizeof name, "f%llu", (unsigned long long)i);
		if (!(suid && (i + 1) % suid == 0) &&
		    !(capn && (i + 1) % capn == 0)) {
			/* One system call per plain empty file. */
			if (mknodat(d, name, S_IFREG | 0644, 0) == -1) {
				perror("mkmany: mknod");
				return 1;
			}
			continue;
		}
		fd = openat(d, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd == -1) {
			perror("mkmany: create");
			return 1;
		}
		if (suid && (i + 1) % suid == 0 && fchmod(fd, 04755) == -1) {
			perror("mkmany: chmod");
			return 1;
		}
		if (capn && (i + 1) % capn == 0 &&
		    fsetxattr(fd, "security.capability", cap, sizeof cap, 0) == -1) {
			perror("mkmany: setxattr");
			return 1;
		}
		close(fd);
	}
	if (me)
		_exit(0);
	if (wait(&st) == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	return 0;
}
