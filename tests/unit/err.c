/* SPDX-License-Identifier: ISC */
/* Unit tests of common/err and common/esc: every message is one line,
 * whatever its arguments hold. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "tap.h"

enum { W_WARNING, W_WARNING_SYS, W_DIE, W_DIE_SYS };

/* Run one err.c helper in a child with arg as its %s argument; capture
 * what it wrote on stderr into out (NUL-terminated); return its wait
 * status. */
static int
capture(int how, const char *arg, char *out, size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd[2], st = -1;
	pid_t pid;

	out[0] = '\0';
	if (pipe(fd) == -1)
		return -1;
	fflush(stdout);	/* die() exits through stdio: no TAP line twice */
	pid = fork();
	if (pid == -1)
		return -1;
	if (pid == 0) {
		dup2(fd[1], STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		prog_set("confexec");
		errno = ENOENT;
		switch (how) {
		case W_WARNING: warning("running %s", arg); break;
		case W_WARNING_SYS: warning_sys("running %s", arg); break;
		case W_DIE: die(125, "running %s", arg);
		case W_DIE_SYS: die_sys(125, "running %s", arg);
		default: break;
		}
		_exit(0);
	}
	close(fd[1]);
	while (len + 1 < size &&
	    (r = read(fd[0], out + len, size - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(fd[0]);
	waitpid(pid, &st, 0);
	return st;
}

static int
lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void
test_one_line(void)
{
	static const char *const names[] = {
		"warning", "warning_sys", "die", "die_sys",
	};
	const char *forged = "/tmp/x\nconfexec: forged";
	char out[8192];
	int how, st;

	for (how = W_WARNING; how <= W_DIE_SYS; how++) {
		st = capture(how, forged, out, sizeof(out));
		is_int(lines(out), 1, "%s: exactly one line", names[how]);
		ok(strstr(out, "\nconfexec: forged") == NULL,
		    "%s: no forged line", names[how]);
		ok(strncmp(out, "confexec: running /tmp/x\\x0aconfexec: forged",
		    44) == 0, "%s: newline written as \\x0a", names[how]);
		ok(WIFEXITED(st) && WEXITSTATUS(st) ==
		    (how >= W_DIE ? 125 : 0), "%s: exit status", names[how]);
	}
	capture(W_WARNING_SYS, "a", out, sizeof(out));
	is_str(out, "confexec: running a: No such file or directory\n",
	    "warning_sys appends strerror(errno)");

	capture(W_WARNING, "\r\x1b[2Kok\x7f\xc2\x85 \xc3\xa9 \\x41\t", out,
	    sizeof(out));
	is_str(out, "confexec: running \\x0d\\x1b[2Kok\\x7f\\xc2\\x85 \xc3\xa9 "
	    "\\x41\\x09\n", "CR, ESC, DEL, C1 and tab escaped; UTF-8 and "
	    "backslash kept");
	capture(W_WARNING, "\xff\xfe", out, sizeof(out));
	is_str(out, "confexec: running \\xff\\xfe\n", "invalid UTF-8 escaped");
}

static void
test_long(void)
{
	char *big, out[ESC_SIZE(ERR_LINE_MAX) + 64];

	big = malloc(3 * ERR_LINE_MAX);
	if (big == NULL)
		return;
	memset(big, '\n', 3 * ERR_LINE_MAX - 1);
	big[3 * ERR_LINE_MAX - 1] = '\0';
	capture(W_WARNING, big, out, sizeof(out));
	is_int(lines(out), 1, "an over-long message of newlines: one line");
	ok(strlen(out) <= ESC_SIZE(ERR_LINE_MAX) + 1 &&
	    out[strlen(out) - 1] == '\n', "cut, and still ends the line");
	free(big);
}

/* err_format() into a small buffer: cut, one line, terminated. */
static void
format_into(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_format(buf, size, -1, fmt, ap);
	va_end(ap);
}

static void
test_format(void)
{
	char b[16];

	prog_set("t");
	format_into(b, sizeof(b), "%s", "abc\ndef\nghi\njkl");
	is_str(b, "t: abc\\x0ad...\n", "cut with ..., one line");
	format_into(b, 2, "%s", "abc");
	is_str(b, "\n", "size 2: the newline alone");
}

static void
test_err_set(void)
{
	char e[64];

	errno = EACCES;
	is_int(err_set(e, sizeof(e), "open %s", "x"), -1, "err_set is -1");
	is_str(e, "open x", "err_set formats");
	is_int(errno, EACCES, "err_set keeps errno");
	errno = ENOENT;
	is_int(err_set_sys(e, sizeof(e), "open %s", "y"), -1, "err_set_sys");
	is_str(e, "open y: No such file or directory", "err_set_sys adds "
	    "strerror(errno)");
	is_int(errno, ENOENT, "err_set_sys keeps errno");
	is_int(err_set(NULL, 0, "x"), -1, "err_set(NULL) only fails");
}

static void
test_esc(void)
{
	char out[64];

	is_int(esc_mem("a\0b", 3, out, sizeof(out), 0), 0, "NUL in bytes");
	is_str(out, "a\\x00b", "NUL escaped");
	esc_mem("a\\b\n", 4, out, sizeof(out), ESC_KEEP_BACKSLASH);
	is_str(out, "a\\b\\x0a", "ESC_KEEP_BACKSLASH keeps \\ only");
	esc_mem("\xc3", 1, out, sizeof(out), 0);
	is_str(out, "\\xc3", "a sequence cut by the length is escaped");
	is_int(esc_mem("abcdefgh", 8, out, 8, 0), -1, "too small");
	is_str(out, "abcd...", "cut with ...");
}

/* err_output: warning() and die() write through the writer set, one
 * call a line; NULL is stderr again. */
static char got[256];
static int calls;

static long
grab(const char *buf, unsigned long len)
{
	snprintf(got, sizeof(got), "%.*s", (int)len, buf);
	calls++;
	return (long)len;
}

static void
test_output(void)
{
	char out[256];
	int st;

	prog_set("confexec");
	err_output(grab);
	warning("a %s", "line\nforged");
	is_int(calls, 1, "err_output: warning() calls the writer once");
	is_str(got, "confexec: a line\\x0aforged\n",
	    "err_output: the line as stderr would have it");
	st = capture(W_DIE, "c", out, sizeof(out));
	is_str(out, "", "err_output: die() too writes through it, not stderr");
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 125, "  and exits 125");
	err_output(NULL);
	capture(W_WARNING, "b", out, sizeof(out));
	is_str(out, "confexec: running b\n", "err_output(NULL): stderr again");
}

int
main(void)
{
	test_one_line();
	test_long();
	test_format();
	test_err_set();
	test_esc();
	test_output();
	return done_testing();
}
