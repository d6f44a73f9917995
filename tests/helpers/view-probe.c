/* SPDX-License-Identifier: ISC */
/* view-probe: what a payload sees of the run's mount, pid and network
 * view (t-confexec-view.sh).  Runs its routes in order, one line of
 * output each ("OK", an errno name such as ENOENT, or the data asked
 * for); exit 0 once every route ran, 2 for usage.
 *   stat PATH              lstat(2): OK or the errno
 *   list PATH              the names in directory PATH, sorted, one
 *                          space between ("" when empty), or the errno
 *   pids                   the numeric names of /proc, in numeric order
 *   self                   getpid()
 *   cmdline PID            /proc/PID/cmdline, NULs as spaces, or the errno
 *   bind-abstract NAME     bind and listen on the abstract unix name NAME
 *                          (the socket stays open until exit)
 *   connect-abstract NAME  connect to the abstract unix name NAME
 *   hold READY GO          open GO (a FIFO) without waiting, create the
 *                          file READY, then wait until a writer of GO
 *                          came and went (the host: `: 9<>GO` once it
 *                          has checked what it wanted meanwhile) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ename.h"


static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
by_number(const void *a, const void *b)
{
	long x = strtol(*(char *const *)a, NULL, 10);
	long y = strtol(*(char *const *)b, NULL, 10);

	return x < y ? -1 : x > y;
}

/* The names of directory path (numeric ones only when numeric), sorted,
 * on one line. */
static void
list(const char *path, int numeric)
{
	char **v = NULL, **n;
	size_t nv = 0, i;
	struct dirent *de;
	DIR *d = opendir(path);

	if (d == NULL) {
		puts(ename(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (numeric &&
		    strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		if ((n = realloc(v, (nv + 1) * sizeof(*v))) == NULL ||
		    (n[nv] = strdup(de->d_name)) == NULL) {
			perror("view-probe");
			exit(2);
		}
		v = n;
		nv++;
	}
	closedir(d);
	if (nv > 0)
		qsort(v, nv, sizeof(*v), numeric ? by_number : by_name);
	for (i = 0; i < nv; i++) {
		printf("%s%s", i ? " " : "", v[i]);
		free(v[i]);
	}
	free(v);
	putchar('\n');
}

static void
cmdline(const char *pid)
{
	char path[64], buf[4096];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) == -1) {
		puts(ename(errno));
		return;
	}
	close(fd);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	puts(buf);
}

/* An abstract unix address for name; its length in *len. */
static struct sockaddr_un
abstract(const char *name, socklen_t *len)
{
	struct sockaddr_un u;
	size_t n = strlen(name);

	memset(&u, 0, sizeof(u));
	u.sun_family = AF_UNIX;
	if (n > sizeof(u.sun_path) - 1) {
		fprintf(stderr, "view-probe: name too long\n");
		exit(2);
	}
	memcpy(u.sun_path + 1, name, n);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	return u;
}

static void
unix_abstract(const char *name, int bind_it)
{
	socklen_t len;
	struct sockaddr_un u = abstract(name, &len);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int r;

	if (s == -1) {
		printf("socket:%s\n", ename(errno));
		return;
	}
	if (bind_it)
		r = bind(s, (struct sockaddr *)&u, len) == -1 ? -1
							      : listen(s, 8);
	else
		r = connect(s, (struct sockaddr *)&u, len);
	puts(r == -1 ? ename(errno) : "OK");
	if (!bind_it)
		close(s);
	/* a bound socket stays open: the host looks for it meanwhile */
}

static void
hold(const char *ready, const char *go)
{
	struct pollfd pf;
	char buf[64];
	ssize_t n;
	int fd;

	/* GO open before READY exists, without waiting for a writer: the
	 * host's open of it never blocks while the probe lives. */
	if ((pf.fd = open(go, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		printf("go:%s\n", ename(errno));
		exit(1);
	}
	fd = open(ready, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1 || close(fd) == -1) {
		printf("ready:%s\n", ename(errno));
		exit(1);
	}
	/* A FIFO no writer has opened yet polls as nothing: this returns
	 * once the host opened it, and ends once the host closed it. */
	pf.events = POLLIN;
	for (;;) {
		if (poll(&pf, 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			printf("poll:%s\n", ename(errno));
			exit(1);
		}
		n = read(pf.fd, buf, sizeof(buf));
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			break; /* the writer closed it */
	}
	close(pf.fd);
	puts("released");
}

static const char *
arg(char **av, int ac, int i)
{
	if (i >= ac) {
		fprintf(stderr, "view-probe: %s: missing argument\n",
			av[i - 1]);
		exit(2);
	}
	return av[i];
}

int
main(int argc, char *argv[])
{
	struct stat st;
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: view-probe ROUTE [ARG...] ...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		const char *op = argv[i];

		if (!strcmp(op, "stat"))
			puts(lstat(arg(argv, argc, ++i), &st) == -1
				 ? ename(errno)
				 : "OK");
		else if (!strcmp(op, "list"))
			list(arg(argv, argc, ++i), 0);
		else if (!strcmp(op, "pids"))
			list("/proc", 1);
		else if (!strcmp(op, "self"))
			printf("%ld\n", (long)getpid());
		else if (!strcmp(op, "cmdline"))
			cmdline(arg(argv, argc, ++i));
		else if (!strcmp(op, "bind-abstract"))
			unix_abstract(arg(argv, argc, ++i), 1);
		else if (!strcmp(op, "connect-abstract"))
			unix_abstract(arg(argv, argc, ++i), 0);
		else if (!strcmp(op, "hold")) {
			const char *ready = arg(argv, argc, ++i);

			hold(ready, arg(argv, argc, ++i));
		} else {
			fprintf(stderr, "view-probe: unknown route %s\n", op);
			return 2;
		}
	}
	return 0;
}
