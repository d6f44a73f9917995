/* SPDX-License-Identifier: ISC */
/* cglock: the attack on run cgroups a payload with a read view of the
 * cgroup filesystem could make.  For SECONDS it watches DIR (inotify,
 * and a listing every 100 ms for what it missed) and, for each borne-*
 * directory, tries to open it for reading and take flock(LOCK_SH) on it
 * (held to the end: what held off cg_create and faked a supervisor's
 * lock), and opens and locks each of its files it can (cgroup.events,
 * cgroup.procs, ...).  READY (a file) is written once the watch is in
 * place.  At the end one line:
 *   dirs N opened N locked N eacces N files-locked N
 * then "ended normally" (the stress test's proof that the run was not
 * killed), exit 0; exit 2 on a usage or setup error.
 *   cglock DIR SECONDS READY */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define MAXSEEN 4096

static char seen[MAXSEEN][96];
static int nseen;
static unsigned long dirs, opened, locked, eacces, files;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
attack(int dfd, const char *name)
{
	static const char *const f[] = {"cgroup.events", "cgroup.procs",
		"cgroup.kill", "cgroup.type", "cgroup.freeze", "cpu.stat"};
	size_t i;
	int fd, k;

	if (strncmp(name, "borne-", 6) != 0 || strlen(name) >= 96)
		return;
	for (k = 0; k < nseen; k++)
		if (strcmp(seen[k], name) == 0)
			return;
	if (nseen == MAXSEEN)
		return;	/* seen enough: count no more */
	strcpy(seen[nseen++], name);
	dirs++;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1) {
		eacces += errno == EACCES;
		printf("%s open %s lock -\n", name, errno == EACCES ?
		    "EACCES" : strerror(errno));
	} else {
		opened++;
		if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
			locked++;	/* kept open: held to the end */
			printf("%s open OK lock OK\n", name);
		} else {
			printf("%s open OK lock %s\n", name,
			    errno == EWOULDBLOCK ? "EWOULDBLOCK" :
			    strerror(errno));
			close(fd);
		}
	}
	fflush(stdout);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/%s", name, f[i]);
		fd = openat(dfd, path, (i == 2 ? O_WRONLY : O_RDONLY) |
		    O_CLOEXEC);
		if (fd == -1)
			continue;
		if (flock(fd, LOCK_SH | LOCK_NB) == 0)
			files++;	/* kept, locked */
		else
			close(fd);
	}
}

static void
scan(int dfd)
{
	struct dirent *d;
	DIR *dir;
	int fd = dup(dfd);

	if (fd == -1 || (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	rewinddir(dir);
	while ((d = readdir(dir)) != NULL)
		attack(dfd, d->d_name);
	closedir(dir);
}

int
main(int argc, char *argv[])
{
	char buf[8192] __attribute__((aligned(8)));
	struct inotify_event *ev;
	struct pollfd pfd;
	double end, last = 0;
	ssize_t n;
	char *p;
	int in, dfd, fd;

	if (argc != 4) {
		fputs("usage: cglock dir seconds ready\n", stderr);
		return 2;
	}
	end = now() + strtod(argv[2], NULL);
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (dfd == -1 || in == -1 ||
	    inotify_add_watch(in, argv[1], IN_CREATE | IN_ONLYDIR) == -1) {
		perror("cglock: watching");
		return 2;
	}
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, "ready\n", 6) != 6 || close(fd) == -1) {
		perror("cglock: ready file");
		return 2;
	}
	while (now() < end) {
		pfd.fd = in;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 100) > 0)
			while ((n = read(in, buf, sizeof(buf))) > 0)
				for (p = buf; p < buf + n;
				    p += sizeof(*ev) + ev->len) {
					ev = (struct inotify_event *)p;
					if (ev->len > 0)
						attack(dfd, ev->name);
				}
		if (now() - last > 0.1) {
			scan(dfd);
			last = now();
		}
	}
	printf("dirs %lu opened %lu locked %lu eacces %lu files-locked %lu\n",
	    dirs, opened, locked, eacces, files);
	puts("ended normally");
	return 0;
}
