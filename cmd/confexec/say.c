/* SPDX-License-Identifier: ISC */
/* say: confexec's lines on stderr once its sources are open (signals
 * blocked, the payload about to run), which must never wait on stderr:
 * it may be a pipe the payload fills and that its reader (or nobody)
 * drains, and a confexec blocked there would keep the run alive past
 * its timeout and a SIGTERM it cannot take.  Every line, warning() and
 * die() included (err_output), is one write(2) that cannot wait: on a
 * descriptor of stderr's own with O_NONBLOCK (a pipe, FIFO or terminal
 * reopened through /proc/self/fd/2: a new open file description, so
 * the payload's stderr, which shares the old one, keeps its flags), a
 * send(2) with MSG_DONTWAIT (a socket), or an appending description of
 * confexec's own (a regular file, which takes the bytes at once).  A
 * line that does not go at once (EAGAIN, no reader) is dropped: there
 * is no buffer to fill (the broker counts its own, as unsaid). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "say.h"

static struct {
	int opened;
	int fd;		/* where to write */
	int own;	/* fd is ours */
	int sock;	/* send(MSG_DONTWAIT) */
	int advance;	/* the caller's description: a regular file's,
			 * not appending (moved to the end at exit) */
} say = {0, STDERR_FILENO, 0, 0, 0};

static long
say_write(const char *buf, unsigned long len)
{
	if (say.sock)
		return send(say.fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	return write(say.fd, buf, len);
}

/* At exit: the caller's description of a regular file goes on after
 * every line of the run's, the payload's and confexec's (as mv_end
 * leaves it after the payload's), so the caller's next write lands
 * after them, not on them. */
static void
say_end(void)
{
	if (say.advance)
		(void)lseek(STDERR_FILENO, 0, SEEK_END);
}

void
say_open(void)
{
	struct stat st;
	int fl, fd;

	if (say.opened)
		return;
	say.opened = 1;
	if (fstat(STDERR_FILENO, &st) == -1)
		return;
	if (S_ISSOCK(st.st_mode)) {
		say.sock = 1;
		err_output(say_write);
		return;
	}
	/* A regular file: appended to, as the payload's copy is
	 * (mountview.h), so that neither writes over the other's bytes.
	 * Anything else: never waited on. */
	fl = fcntl(STDERR_FILENO, F_GETFL);
	fd = open("/proc/self/fd/2", O_WRONLY | O_NOCTTY | O_CLOEXEC |
	    (S_ISREG(st.st_mode) ? O_APPEND : O_NONBLOCK));
	if (fd == -1)
		return;		/* stderr as it is: better said than not */
	say.fd = fd;
	say.own = 1;
	say.advance = S_ISREG(st.st_mode) && fl != -1 && !(fl & O_APPEND);
	if (say.advance)
		atexit(say_end);
	err_output(say_write);
}

int
say_line(const char *fmt, ...)
{
	char buf[ESC_SIZE(ERR_LINE_MAX) + 1];
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	err_format(buf, sizeof(buf), -1, fmt, ap);
	va_end(ap);
	len = strlen(buf);
	return say_write(buf, len) == (long)len ? 0 : -1;
}
