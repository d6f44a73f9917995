/* SPDX-License-Identifier: ISC */
/* err: diagnostics on stderr, one write(2) per line, and exit codes. */
#ifndef BORNE_ERR_H
#define BORNE_ERR_H

#include <stdarg.h>

/* Exit codes shared by every tool (STYLE.md, "Errors and exit codes"). */
enum {
	EXIT_OK = 0,		/* success */
	EXIT_NO = 1,		/* a definite "no" */
	EXIT_USAGE = 2,		/* usage error or invalid input */
	EXIT_TIMEOUT = 124,	/* payload timed out, tree killed */
	EXIT_FAIL = 125,	/* chain-loader failed or refused */
	EXIT_NOEXEC = 126,	/* payload could not be executed */
	EXIT_NOTFOUND = 127,	/* payload not found */
};

/* Set the program name used as the prefix of every message. */
void prog_set(const char *name);
const char *prog_name(void);

/* Where warning(), die() and the rest write their line: NULL (the
 * default) is write(2) on stderr; a program that must never wait on
 * stderr (confexec while its payload runs) sets a writer of its own,
 * which returns what write(2) would. */
void err_output(long (*out)(const char *buf, unsigned long len));

/* "prog: message\n" in one write(2), one line (see err_format()). */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message: strerror(errno)\n". errno is preserved. */
void warning_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* warning() then exit(code). */
_Noreturn void die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* warning_sys() then exit(code). */
_Noreturn void die_sys(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "prog: usage: USAGE\n" then exit(EXIT_USAGE).  usage is the
 * tool's own constant and is written as is (it may span lines). */
_Noreturn void die_usage(const char *usage);

/* Write a one-line message (no program name) into err[errlen] for a
 * common/ function's caller to print; does nothing when err is NULL or
 * errlen is 0.  errno is preserved.  Returns -1, so that
 * `return err_set(...);` fails.  The one way common/ reports errors. */
int err_set(char *err, unsigned long errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* err_set(), then ": strerror(errno)". */
int err_set_sys(char *err, unsigned long errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The symbolic name of errno value e ("EACCES"), or NULL for one not in
 * the table (the values the boundary's layers and the probes meet). */
const char *err_name(int e);

/* Longest message before escaping (bytes, with "prog: "); longer ones are
 * cut. */
#define ERR_LINE_MAX 2048

/* Format "prog: <fmt>[: strerror(e)]\n" into buf (always terminated, at
 * least 2 bytes; ESC_SIZE(ERR_LINE_MAX) + 1 never cuts); e < 0 means no
 * errno part.  The result is exactly one line: every control byte (\n,
 * \r, ESC, ...), C1 control and invalid UTF-8 byte of the formatted text
 * is written as \xNN (common/esc), so a caller that passes an untrusted
 * string cannot forge a second message.  Used by the functions above and
 * by code that must not allocate (between fork and exec): stack only. */
void err_format(char *buf, unsigned long size, int e, const char *fmt,
    va_list ap);

#endif
