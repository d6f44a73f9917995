/* SPDX-License-Identifier: ISC */
/* say: lines on stderr from inside the supervisor's loop, which must
 * never block on them: stderr may be a pipe the payload's reader (or
 * nobody) drains.  Each line is one write(2) that cannot wait: on a
 * descriptor of stderr's own with O_NONBLOCK (a pipe, FIFO or terminal
 * reopened through /proc/self/fd/2: a new open file description, so
 * the payload's stderr, which shares the old one, keeps its flags), a
 * send(2) with MSG_DONTWAIT (a socket), or stderr itself made an
 * appending description of confexec's own (a regular file, which takes
 * the bytes at once).  A line that does not go at
 * once (EAGAIN, no reader, no such descriptor) is dropped and counted:
 * there is no buffer to fill. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "say.h"

static struct {
	int opened;
	int fd;		/* where to write, -1: nowhere */
	int own;	/* fd is ours to close */
	int sock;	/* send(MSG_DONTWAIT) */
	uint64_t dropped;
} say = {0, -1, 0, 0, 0};

void
say_open(void)
{
	struct stat st;

	if (say.opened)
		return;
	say.opened = 1;
	if (fstat(STDERR_FILENO, &st) == -1)
		return;
	if (S_ISREG(st.st_mode)) {
		/* Appended: the payload's stderr there is a description of
		 * its own that appends (mountview.h), so a line written at
		 * another description's offset would land on its bytes.
		 * confexec's own stderr becomes that appending description
		 * too, for every line it writes, in the loop or not (the
		 * caller's description keeps its flags). */
		int fd = open("/proc/self/fd/2", O_WRONLY | O_APPEND |
		    O_NOCTTY | O_CLOEXEC);

		if (fd != -1 && fd != STDERR_FILENO &&
		    dup3(fd, STDERR_FILENO, 0) != -1)
			close(fd);
		else if (fd != -1)
			close(fd);
		say.fd = STDERR_FILENO;
	} else if (S_ISSOCK(st.st_mode)) {
		say.fd = STDERR_FILENO;
		say.sock = 1;
	} else {
		say.fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK |
		    O_NOCTTY | O_CLOEXEC);
		say.own = say.fd != -1;
	}
}

int
say_line(const char *fmt, ...)
{
	char buf[ESC_SIZE(ERR_LINE_MAX) + 1];
	va_list ap;
	size_t len;
	ssize_t w;

	va_start(ap, fmt);
	err_format(buf, sizeof(buf), -1, fmt, ap);
	va_end(ap);
	len = strlen(buf);
	if (say.fd == -1)
		w = -1;
	else if (say.sock)
		w = send(say.fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	else
		w = write(say.fd, buf, len);
	if (w != (ssize_t)len) {
		say.dropped++;
		return -1;
	}
	return 0;
}

uint64_t
say_dropped(void)
{
	return say.dropped;
}

void
say_close(void)
{
	if (say.own)
		close(say.fd);
	say.fd = -1;
	say.own = 0;
}
