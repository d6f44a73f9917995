/* SPDX-License-Identifier: ISC */
/* say: confexec's lines on stderr, never waiting on it once say_open
 * has run (start, before the sources open and the payload runs): from
 * then on warning() and die() write as say_line does.  say_line: one
 * line as warning() prints it, written at once or dropped: 0, or -1
 * dropped. */
#ifndef CONFEXEC_SAY_H
#define CONFEXEC_SAY_H

void say_open(void);
int say_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
