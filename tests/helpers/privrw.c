/* SPDX-License-Identifier: ISC */
/* privrw: rewrite a privileged file from inside a run, as an attacker
 * would, one route per call (issue 34).  Prints OK or the errno name of
 * the first call refused, then, with a READY path, makes that file and
 * waits forever (a run then ended by its timeout, a cancel or a kill).
 *   privrw mmap-msync FILE [READY]  MAP_SHARED, a marker at 64, msync
 *   privrw mmap-exit FILE [READY]   MAP_SHARED, a marker, no msync
 *   privrw pwrite FILE [READY]      pwrite of the marker at 64
 *   privrw trunc FILE [READY]       O_TRUNC, then the marker written
 *   privrw rename FILE [READY]      a new file renamed over FILE */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ename.h"

static const char mark[] = "rewritten by the payload";

static int
mapped(const char *f, int sync)
{
	char *m;
	int fd = open(f, O_RDWR | O_CLOEXEC);

	if (fd == -1)
		return -1;
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	memcpy(m + 64, mark, sizeof(mark) - 1);
	if (sync && msync(m, 4096, MS_SYNC) == -1)
		return -1;
	/* mmap-exit: the dirty page left to the kernel, mapping kept. */
	return 0;
}

static int
route(const char *r, const char *f)
{
	char tmp[4096];
	int fd;

	if (strcmp(r, "mmap-msync") == 0)
		return mapped(f, 1);
	if (strcmp(r, "mmap-exit") == 0)
		return mapped(f, 0);
	if (strcmp(r, "pwrite") == 0) {
		if ((fd = open(f, O_WRONLY | O_CLOEXEC)) == -1)
			return -1;
		return pwrite(fd, mark, sizeof(mark) - 1, 64) ==
		    (ssize_t)(sizeof(mark) - 1) ? 0 : -1;
	}
	if (strcmp(r, "trunc") == 0) {
		if ((fd = open(f, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1)
			return -1;
		return write(fd, mark, sizeof(mark) - 1) ==
		    (ssize_t)(sizeof(mark) - 1) ? 0 : -1;
	}
	if (strcmp(r, "rename") == 0) {
		snprintf(tmp, sizeof(tmp), "%s.new", f);
		if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0755)) == -1 || write(fd, mark, sizeof(mark) - 1) == -1 ||
		    close(fd) == -1)
			return -1;
		return rename(tmp, f);
	}
	fprintf(stderr, "privrw: unknown route %s\n", r);
	_exit(2);
}

int
main(int argc, char *argv[])
{
	int fd;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: privrw ROUTE FILE [READY]\n");
		return 2;
	}
	if (route(argv[1], argv[2]) == -1)
		printf("%s\n", ename(errno));
	else
		printf("OK\n");
	fflush(stdout);
	if (argc == 4) {
		if ((fd = open(argv[3], O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) ==
		    -1)
			return 1;
		close(fd);
		for (;;)
			pause();
	}
	return 0;
}
