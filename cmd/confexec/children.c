/* SPDX-License-Identifier: ISC */
/* children: confexec's own children, as /proc lists them (end.c kills
 * the run's tree without a pid namespace, src_orphans.c reaps it). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "children.h"

/* fn(pid, arg) for every child of ours, as the children files of
 * /proc/self/task list them (Linux 3.5, CONFIG_PROC_CHILDREN; one read
 * of a page each, the rest at the next call), until fn returns nonzero.
 * No allocation (getdents64, not opendir).  Returns how many were
 * given to fn, -1 when no children file could be read. */
int
children_each(int (*fn)(pid_t, void *), void *arg)
{
	char path[64], buf[4096], tbuf[4096], *p, *end;
	int n = 0, listed = 0, fd, tfd, stop = 0;
	long pid, tid, bpos, off;
	ssize_t k;

	tfd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd == -1)
		return -1;
	while (!stop && (bpos = syscall(SYS_getdents64, tfd, tbuf,
	    sizeof(tbuf))) > 0) {
		for (off = 0; !stop && off < bpos;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *d = (void *)(tbuf + off);

			off += d->reclen;
			tid = strtol(d->name, &end, 10);
			if (d->name[0] < '0' || d->name[0] > '9' || *end)
				continue;
			snprintf(path, sizeof(path), "/proc/self/task/%ld/"
			    "children", tid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd == -1)
				continue;
			k = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (k < 0)
				continue;
			listed = 1;
			buf[k] = '\0';
			for (p = buf; !stop && *p;) {
				pid = strtol(p, &end, 10);
				if (end == p)
					break;
				p = end;
				if (pid <= 0)
					continue;
				n++;
				stop = fn((pid_t)pid, arg);
			}
		}
	}
	close(tfd);
	return listed ? n : -1;
}
