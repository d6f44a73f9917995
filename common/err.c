/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"

static const char *progname = "borne";
static int usage_code = EXIT_USAGE;

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
usage_code_set(int code)
{
	usage_code = code;
}

void
err_format(char *buf, unsigned long size, int e, const char *fmt, va_list ap)
{
	size_t n;
	int r;

	r = snprintf(buf, size, "%s: ", progname);
	n = r < 0 ? 0 : (size_t)r;
	if (n < size) {
		r = vsnprintf(buf + n, size - n, fmt, ap);
		n += r < 0 ? 0 : (size_t)r;
	}
	if (e >= 0 && n < size) {
		r = snprintf(buf + n, size - n, ": %s", strerror(e));
		n += r < 0 ? 0 : (size_t)r;
	}
	if (n >= size - 1)
		n = size - 2;	/* truncated: keep room for the newline */
	buf[n++] = '\n';
	buf[n] = '\0';
}

static void
emit(int e, const char *fmt, va_list ap)
{
	char buf[2048];
	ssize_t w;

	err_format(buf, sizeof(buf), e, fmt, ap);
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
	warning("usage: %s", usage);
	exit(usage_code);
}

int
err_set(char *err, unsigned long errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
