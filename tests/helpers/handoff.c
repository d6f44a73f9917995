/* SPDX-License-Identifier: ISC */
/* handoff: the two sides of a unix connection for the handoff records
 * (tests/t-confexec-handoff.sh).
 *
 *   handoff serve TYPE PATH READY LOG
 *                                   a daemon: listen at PATH (mode
 *                                   0666; TYPE stream or seqpacket),
 *                                   then create READY; accept each
 *                                   connection, append a line to LOG,
 *                                   close it; until killed
 *   handoff connect HOW PATH [N]    the payload: connect to PATH, N
 *                                   times (1), each on a new socket,
 *                                   read until the peer closes, close;
 *                                   HOW: plain, seqpacket, fork (from a
 *                                   child), thread (from a second
 *                                   thread), notsock (on /dev/null's
 *                                   descriptor), badfd (on a closed
 *                                   one), pair (on a socketpair's end,
 *                                   connected already); prints OK, or
 *                                   the first failure's errno name
 *   handoff swap PATH N             the payload racing the record: N
 *                                   times, a connect on a descriptor
 *                                   number a second thread keeps
 *                                   pointing at one socket, then at
 *                                   another (dup2); prints OK
 *   handoff own DIR                 the payload's own listener at
 *                                   DIR/docker.sock, connected to;
 *                                   prints OK or the errno name
 *   handoff hold PATH FD PROG ARG...
 *                                   the caller: connect to PATH (a
 *                                   stream), the socket at FD, then
 *                                   execute PROG (absolute) with it;
 *                                   the errno name on failure */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "ename.h"

static struct sockaddr_un sa = { .sun_family = AF_UNIX };
static int type = SOCK_STREAM;
static int times = 1;
static int drain = 1;	/* read until the peer closes */

static int
set_path(const char *p)
{
	if (strlen(p) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "handoff: path too long: %s\n", p);
		return -1;
	}
	strcpy(sa.sun_path, p);
	return 0;
}

/* 0, or the errno of the first failure. */
static int
connect_n(void)
{
	char buf[64];
	int i, s;

	for (i = 0; i < times; i++) {
		s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
		if (s == -1)
			return errno;
		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
			int e = errno;

			close(s);
			return e;
		}
		while (drain && read(s, buf, sizeof(buf)) > 0)
			;
		close(s);
	}
	return 0;
}

#define SWAP_FD 100
static int swap_s[2];
static volatile int swap_stop;

static void *
swapper(void *arg)
{
	while (!swap_stop) {
		dup2(swap_s[1], SWAP_FD);
		dup2(swap_s[0], SWAP_FD);
	}
	return NULL;
}

/* Whatever the race gives: the sockets are closed after each round
 * (a connected one read until the daemon closes). */
static int
swap_rounds(void)
{
	pthread_t t;
	char buf[64];
	int i, k;

	for (i = 0; i < times; i++) {
		for (k = 0; k < 2; k++)
			if ((swap_s[k] = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
				return errno;
		if (dup2(swap_s[0], SWAP_FD) == -1)
			return errno;
		swap_stop = 0;
		if ((errno = pthread_create(&t, NULL, swapper, NULL)) != 0)
			return errno;
		(void)connect(SWAP_FD, (struct sockaddr *)&sa, sizeof(sa));
		swap_stop = 1;
		pthread_join(t, NULL);
		for (k = 0; k < 2; k++) {
			struct sockaddr_un peer;
			socklen_t l = sizeof(peer);

			if (getpeername(swap_s[k], (struct sockaddr *)&peer,
			    &l) == 0)
				while (read(swap_s[k], buf, sizeof(buf)) > 0)
					;
			close(swap_s[k]);
		}
		close(SWAP_FD);
	}
	return 0;
}

static void *
thread_main(void *arg)
{
	*(int *)arg = connect_n();
	return NULL;
}

static int
serve(const char *ready, const char *log)
{
	int s, c, fd, lg;

	s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (s == -1 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    chmod(sa.sun_path, 0666) == -1 || listen(s, 64) == -1) {
		perror("handoff: serve");
		return 1;
	}
	lg = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	fd = open(ready, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (lg == -1 || fd == -1) {
		perror("handoff: ready");
		return 1;
	}
	close(fd);
	/* The line before the close: the client reads until then. */
	for (;;)
		if ((c = accept(s, NULL, NULL)) != -1) {
			if (write(lg, "c\n", 2) != 2)
				return 1;
			close(c);
		}
}

int
main(int argc, char *argv[])
{
	int e = 0, st;
	pid_t pid;
	pthread_t t;

	if (argc == 6 && strcmp(argv[1], "serve") == 0) {
		type = strcmp(argv[2], "seqpacket") == 0 ? SOCK_SEQPACKET :
		    SOCK_STREAM;
		return set_path(argv[3]) == -1 ? 2 : serve(argv[4], argv[5]);
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "connect") == 0) {
		if (set_path(argv[3]) == -1)
			return 2;
		if (argc == 5)
			times = atoi(argv[4]);
		if (strcmp(argv[2], "seqpacket") == 0)
			type = SOCK_SEQPACKET;
		if (strcmp(argv[2], "fork") == 0) {
			if ((pid = fork()) == -1)
				e = errno;
			else if (pid == 0)
				_exit(connect_n() == 0 ? 0 : 1);
			else if (waitpid(pid, &st, 0) == -1 ||
			    !WIFEXITED(st) || WEXITSTATUS(st) != 0)
				e = ECONNREFUSED;	/* said as a failure */
		} else if (strcmp(argv[2], "thread") == 0) {
			int te = 0;

			if ((e = pthread_create(&t, NULL, thread_main,
			    &te)) == 0) {
				pthread_join(t, NULL);
				e = te;
			}
		} else if (strcmp(argv[2], "notsock") == 0 ||
		    strcmp(argv[2], "badfd") == 0 ||
		    strcmp(argv[2], "pair") == 0) {
			int fd = 999, sv[2];

			if (strcmp(argv[2], "notsock") == 0)
				fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			else if (strcmp(argv[2], "pair") == 0)
				fd = socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ==
				    -1 ? -1 : sv[0];
			if (fd == -1 || connect(fd, (struct sockaddr *)&sa,
			    sizeof(sa)) == -1)
				e = errno;
		} else
			e = connect_n();
		printf("%s\n", e == 0 ? "OK" : ename(e));
		return e == 0 ? 0 : 1;
	}
	if (argc == 4 && strcmp(argv[1], "swap") == 0) {
		if (set_path(argv[2]) == -1)
			return 2;
		times = atoi(argv[3]);
		e = swap_rounds();
		printf("%s\n", e == 0 ? "OK" : ename(e));
		return e == 0 ? 0 : 1;
	}
	if (argc == 3 && strcmp(argv[1], "own") == 0) {
		char path[sizeof(sa.sun_path)];
		int s;

		snprintf(path, sizeof(path), "%s/docker.sock", argv[2]);
		if (set_path(path) == -1)
			return 2;
		drain = 0;	/* nobody accepts */
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s == -1 || bind(s, (struct sockaddr *)&sa,
		    sizeof(sa)) == -1 || listen(s, 8) == -1)
			e = errno;
		else
			e = connect_n();
		printf("%s\n", e == 0 ? "OK" : ename(e));
		return e == 0 ? 0 : 1;
	}
	if (argc >= 5 && strcmp(argv[1], "hold") == 0) {
		int s, fd = atoi(argv[3]);

		if (set_path(argv[2]) == -1)
			return 2;
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s == -1 || connect(s, (struct sockaddr *)&sa,
		    sizeof(sa)) == -1 || (s != fd && dup2(s, fd) == -1)) {
			printf("%s\n", ename(errno));
			return 1;
		}
		if (s != fd)
			close(s);
		execv(argv[4], argv + 4);
		printf("%s\n", ename(errno));
		return 1;
	}
	fprintf(stderr, "usage: handoff serve stream|seqpacket PATH READY "
	    "LOG\n"
	    "       handoff connect plain|seqpacket|fork|thread|notsock|"
	    "badfd|pair PATH [N]\n"
	    "       handoff swap PATH N\n"
	    "       handoff own DIR\n"
	    "       handoff hold PATH FD PROG [ARG...]\n");
	return 2;
}
