/* SPDX-License-Identifier: ISC */
/* say: lines on stderr from the loop, never waiting on it.  say_open
 * before the clone (where stderr is reopened non-blocking); say_line:
 * one line as warning() prints it, written at once or dropped: 0, or -1
 * dropped (counted, say_dropped); say_close after the run. */
#ifndef CONFEXEC_SAY_H
#define CONFEXEC_SAY_H

#include <stdint.h>

void say_open(void);
int say_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t say_dropped(void);
void say_close(void);

#endif
