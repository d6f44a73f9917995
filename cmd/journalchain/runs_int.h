/* SPDX-License-Identifier: ISC */
/* runs_int: the model runs.c keeps of the journals served and their runs,
 * shared with the views runview.c draws from it (runs.h is the contract
 * for everyone else).  Main thread only. */
#ifndef JC_RUNS_INT_H
#define JC_RUNS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <jansson.h>

#include "hash.h"
#include "journal.h"

/* Journals served at most (journalchain(1), SERVE). */
#define JOURNALS_MAX 16

/* One verified record: where it is, and the run it belongs to. */
struct rec {
	uint64_t off;
	uint32_t len;		/* newline excluded */
	uint64_t seq;
	uint64_t time_ns;
	int32_t run;		/* index in the journal's runs, or -1 */
	uint8_t kind;		/* enum ev_kind (events.h) */
};

struct run {
	uint64_t seq;		/* its start record's */
	char plan[SHA256_HEX_LEN + 1];
	size_t *recs;		/* indexes in the journal's records */
	size_t n, cap;
	int ended;
	json_t *start;		/* the start event's summary */
	json_t *end;		/* the end event (without its big lists) */
	uint64_t egress, handoffs;
	json_t *canary;		/* counts */
};

struct journal {
	char *path;
	int fd;
	struct stat st;		/* when last looked at */
	int seen;
	int busy;		/* an appender held the lock: look again */
	int err;		/* errno of the last failed read, or 0 */
	struct journal_verdict v;
	struct rec *recs;
	size_t n, cap;
	uint64_t parsed_end;	/* offset past the last record read */
	uint8_t last[SHA256_LEN];	/* its hash */
	struct run *runs;
	size_t nruns, capruns;
	uint64_t orphans;	/* records of no run */
};

extern struct journal runs_J[JOURNALS_MAX];
extern size_t runs_NJ;

/* The run named id ("SEQ", or "N:SEQ" for the Nth journal), its journal's
 * index in *jout; NULL when there is none. */
struct run *runs_find(const char *id, size_t *jout);
/* A run's id, as runs_find takes it. */
void runs_id(size_t ji, const struct run *r, char *buf, size_t len);
/* Its start record's time (ns, CLOCK_REALTIME). */
uint64_t runs_start_time(const struct journal *j, const struct run *r);

#endif
