/* SPDX-License-Identifier: ISC */
/* fd-list: print this process's open descriptors, one "N TARGET" line
 * each, from /proc/self/fd (the directory's own fd left out). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(void)
{
	struct dirent *d;
	char path[64], target[4096];
	DIR *dp = opendir("/proc/self/fd");
	int fds[4096], n = 0, i;

	if (dp == NULL) {
		perror("fd-list: /proc/self/fd");
		return 1;
	}
	while ((d = readdir(dp)) != NULL && n < 4096)
		if (d->d_name[0] != '.' && atoi(d->d_name) != dirfd(dp))
			fds[n++] = atoi(d->d_name);
	closedir(dp);
	for (i = 0; i < n; i++) {
		ssize_t r;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[i]);
		r = readlink(path, target, sizeof(target) - 1);
		target[r < 0 ? 0 : r] = '\0';
		printf("%d %s\n", fds[i], target);
	}
	return 0;
}
