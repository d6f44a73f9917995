/* SPDX-License-Identifier: ISC */
/* runs: the runs of the journals journalchain serve serves, read-only,
 * kept up to date (runs.c), and their JSON views (runview.c;
 * journalchain(1), SERVE).
 *
 * Each journal is opened read-only and verified whole (journal_verify_fd)
 * whenever its size, time or inode changes; only records of the verified
 * prefix are read, each line's link checked again as it is read, and
 * grouped into runs: a start event opens one (its id: the start record's
 * seq, "N:SEQ" for the Nth journal when several are served), the events
 * naming its plan after it (egress, handoff, canary) and its end event
 * join it.  A journal whose chain is broken or torn keeps its verified
 * records and says where it breaks; nothing past that is shown.  A journal
 * rewritten under the server (its last read record no longer there) is
 * read again from its start.  Everything runs on the main thread (jansson). */
#ifndef JC_RUNS_H
#define JC_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Add a journal (opened read-only now).  0, or -1 with errno. */
int runs_add(const char *path);

/* Look at every journal again; re-read what changed.  Returns 1 when
 * the model changed (runs_version moved), else 0.  Never writes. */
int runs_refresh(void);
uint64_t runs_version(void);

/* The dashboard's list: {"journals":[...],"runs":[...],"version":N},
 * newest run first, at most max runs (0: all).  NULL on ENOMEM. */
json_t *runs_list_json(size_t max);
/* One run in detail, or NULL (errno ENOENT: no such run; ENOMEM). */
json_t *runs_run_json(const char *id);

/* What a stream needs of a run (agui.c).  runs_resolve: id (or "last")
 * to the run's canonical id in buf; 0, or -1 errno ENOENT.
 * runs_first_after: the id of the first run whose start record was
 * written after time_ns (CLOCK_REALTIME), 0, or -1 ENOENT.
 * runs_record: the k-th record of run id (from 0): its event (a new
 * reference), its line without the newline (malloc'ed), its seq; 1
 * when it exists, 0 when the run has fewer records (yet), -1 (errno
 * ENOENT) when the run is no longer there.  runs_ended: whether the
 * run's end record has been read; -1 ENOENT. */
int runs_resolve(const char *id, char *buf, size_t len);
int runs_first_after(uint64_t time_ns, char *buf, size_t len);
int runs_record(const char *id, size_t k, json_t **event, char **line,
    size_t *linelen, uint64_t *seq);
int runs_ended(const char *id);
/* The chain's state of the run's journal: {"path",...} as in the list. */
json_t *runs_chain_json(const char *id);

#endif
