/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"

static const char *progname = "borne";

void
prog_set(const char *name)
{
	progname = name;
}

const char *
prog_name(void)
{
	return progname;
}

void
err_format(char *buf, unsigned long size, int e, const char *fmt, va_list ap)
{
	char raw[ERR_LINE_MAX];
	size_t n;
	int r;

	if (size < 2) {
		if (size == 1)
			buf[0] = '\0';
		return;
	}
	r = snprintf(raw, sizeof(raw), "%s: ", progname);
	n = r < 0 ? 0 : (size_t)r;
	if (n < sizeof(raw)) {
		r = vsnprintf(raw + n, sizeof(raw) - n, fmt, ap);
		n += r < 0 ? 0 : (size_t)r;
	}
	if (e >= 0 && n < sizeof(raw)) {
		r = snprintf(raw + n, sizeof(raw) - n, ": %s", strerror(e));
		n += r < 0 ? 0 : (size_t)r;
	}
	if (n >= sizeof(raw))
		n = sizeof(raw) - 1;	/* truncated by snprintf */
	/* Whatever the arguments held (a path with a newline, an ESC
	 * sequence), the line stays one line: no caller can forge a
	 * second message or drive the terminal.  Backslashes are kept so
	 * that pieces a caller escaped itself read as they were. */
	esc_mem(raw, n, buf, size - 1, ESC_KEEP_BACKSLASH);
	n = strlen(buf);
	buf[n++] = '\n';
	buf[n] = '\0';
}

static long (*output)(const char *, unsigned long);

void
err_output(long (*out)(const char *buf, unsigned long len))
{
	output = out;
}

static void
emit(int e, const char *fmt, va_list ap)
{
	char buf[ESC_SIZE(ERR_LINE_MAX) + 1];
	ssize_t w;

	err_format(buf, sizeof(buf), e, fmt, ap);
	if (output != NULL)
		w = output(buf, strlen(buf));
	else
		w = write(STDERR_FILENO, buf, strlen(buf));
	(void)w;
}

void
warning(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	emit(-1, fmt, ap);
	va_end(ap);
	errno = saved;
}

void
warning_sys(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	emit(saved, fmt, ap);
	va_end(ap);
	errno = saved;
}

void
die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(-1, fmt, ap);
	va_end(ap);
	exit(code);
}

void
die_sys(int code, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	emit(saved, fmt, ap);
	va_end(ap);
	exit(code);
}

void
die_usage(const char *usage)
{
	struct iovec v[4] = {
		{ (void *)progname, strlen(progname) },
		{ (void *)": usage: ", 9 },
		{ (void *)usage, strlen(usage) },
		{ (void *)"\n", 1 },
	};
	ssize_t w;

	/* The tool's own constant, several lines on purpose: not escaped. */
	w = writev(STDERR_FILENO, v, 4);
	(void)w;
	exit(EXIT_USAGE);
}

/* err_set() and err_set_sys(): format into err, errno preserved. */
static void
set(char *err, unsigned long errlen, int e, const char *fmt, va_list ap)
{
	size_t n;

	if (err == NULL || errlen == 0)
		return;
	vsnprintf(err, errlen, fmt, ap);
	n = strlen(err);
	if (e >= 0 && n + 1 < errlen)
		snprintf(err + n, errlen - n, ": %s", strerror(e));
}

int
err_set(char *err, unsigned long errlen, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	set(err, errlen, -1, fmt, ap);
	va_end(ap);
	errno = saved;
	return -1;
}

int
err_set_sys(char *err, unsigned long errlen, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	set(err, errlen, saved, fmt, ap);
	va_end(ap);
	errno = saved;
	return -1;
}

static const struct {
	int e;
	const char *name;
} err_names[] = {
	{EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"},
	{EIO, "EIO"}, {ENXIO, "ENXIO"}, {E2BIG, "E2BIG"},
	{ENOEXEC, "ENOEXEC"}, {EBADF, "EBADF"}, {ECHILD, "ECHILD"},
	{EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"},
	{EFAULT, "EFAULT"}, {EEXIST, "EEXIST"}, {EXDEV, "EXDEV"},
	{ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"}, {EINVAL, "EINVAL"},
	{ENFILE, "ENFILE"}, {EMFILE, "EMFILE"}, {ENOTTY, "ENOTTY"},
	{ETXTBSY, "ETXTBSY"}, {ENOSPC, "ENOSPC"}, {EROFS, "EROFS"},
	{EPIPE, "EPIPE"}, {ERANGE, "ERANGE"}, {ENAMETOOLONG, "ENAMETOOLONG"},
	{ENOSYS, "ENOSYS"}, {ELOOP, "ELOOP"}, {EIDRM, "EIDRM"},
	{ENODATA, "ENODATA"}, {EOVERFLOW, "EOVERFLOW"},
	{ENOTSOCK, "ENOTSOCK"}, {EDESTADDRREQ, "EDESTADDRREQ"},
	{EPROTOTYPE, "EPROTOTYPE"}, {EPROTONOSUPPORT, "EPROTONOSUPPORT"},
	{ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT"}, {EOPNOTSUPP, "EOPNOTSUPP"},
	{EAFNOSUPPORT, "EAFNOSUPPORT"}, {EADDRINUSE, "EADDRINUSE"},
	{EADDRNOTAVAIL, "EADDRNOTAVAIL"}, {ENETUNREACH, "ENETUNREACH"},
	{ECONNRESET, "ECONNRESET"}, {EISCONN, "EISCONN"},
	{ENOTCONN, "ENOTCONN"}, {ETIMEDOUT, "ETIMEDOUT"},
	{ECONNREFUSED, "ECONNREFUSED"}, {EHOSTUNREACH, "EHOSTUNREACH"},
	{EINPROGRESS, "EINPROGRESS"},
};

const char *
err_name(int e)
{
	size_t i;

	for (i = 0; i < sizeof(err_names) / sizeof(err_names[0]); i++)
		if (err_names[i].e == e)
			return err_names[i].name;
	return NULL;
}
