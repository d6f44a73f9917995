/* SPDX-License-Identifier: ISC */
/* show: a journal's valid records for people, one bounded line each
 * (time, run, event, program, outcome, counts), or as JSON lines for jq;
 * all records or one run's (journalchain(1), show). */
#ifndef JC_SHOW_H
#define JC_SHOW_H

/* A line is at most SHOW_LINE_MAX bytes plus twice the width of the
 * largest record number (journalchain(1)). */
#define SHOW_LINE_MAX 162

/* Check every event as verify --deep does, then print the valid records
 * of path: lines, or JSON lines when json.  run: NULL for every record,
 * or a run's id (its start record's number): that run's records only;
 * a run id that names no run is an error (exit 1).  Returns the exit
 * status of verify (0, 1 broken, 3 torn); dies on a read error. */
int show_main(const char *path, int json, const char *run);

#endif
