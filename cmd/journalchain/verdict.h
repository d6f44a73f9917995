/* SPDX-License-Identifier: ISC */
/* verdict: a journal's verdict as the subcommands that read a whole
 * journal report it (verify, show): the exit status and the one line
 * that says where the chain breaks (journalchain(1), EXIT STATUS). */
#ifndef JC_VERDICT_H
#define JC_VERDICT_H

#include "journal.h"

/* Exit status of a torn tail. */
#define EXIT_TORN 3

/* 0 for a valid journal, EXIT_TORN for a torn tail, 1 for a broken one. */
int verdict_exit(enum journal_status st);

/* Nothing for a valid journal; else a warning naming the record, the
 * byte offset and why. */
void verdict_report(const char *path, const struct journal_verdict *v);

/* Open path read-only (close-on-exec), or die naming it (exit 1). */
int verdict_open(const char *path);

#endif
