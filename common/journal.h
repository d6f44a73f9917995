/* SPDX-License-Identifier: ISC */
/* journal: the hash-chained journal (journalchain(5)).  Records are JSON
 * lines; each one's hash is SHA-256 over the exact bytes written.
 * journalchain is its CLI; confexec appends its run events through it.
 *
 * A record is one line, exactly:
 *   {"seq":N,"prev":"HEX64","time":"NS","event":EVENT}\n
 * N counts from 1 (no leading zero); prev is the lower-case SHA-256 of the
 * previous record's line including its newline (64 zeros for seq 1); NS is
 * CLOCK_REALTIME in nanoseconds, a decimal string; EVENT is a JSON object
 * in canonical form (journal_event_canon).
 *
 * Implemented in journal_rec.c (the record format and the one record
 * checker every verify mode calls), journal_verify.c (the verify drivers)
 * and journal.c (the file: lock, tail, append, recover). */
#ifndef BORNE_JOURNAL_H
#define BORNE_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Longest record line, newline included. */
#define JOURNAL_RECORD_MAX (1u << 20)
/* A record's bytes beyond its event, at most. */
#define JOURNAL_ENVELOPE_MAX 160

/* Append n payloads (each one JSON object text, no newline) to the
 * journal at path as consecutive records, atomically with respect to other
 * appenders: lock, read the tail, write with O_APPEND, fdatasync, unlock.
 * Creates the file (mode 0600) if missing.  Refuses (-1, errno EBADMSG) to
 * build on a torn or broken tail, and (-1, EINVAL) a payload that is not a
 * JSON object; nothing of the batch is written then.  On success the
 * records are durable.  err (if not NULL) gets a message on failure. */
int journal_append(const char *path, const char *const *payloads, size_t n,
    char *err, size_t errlen);

/* Result of reading or verifying a journal. */
enum journal_status {
	JOURNAL_OK = 0,		/* every record valid */
	JOURNAL_BAD = 1,	/* a record is malformed or a link is broken */
	JOURNAL_TORN = 3,	/* valid, then an unterminated partial record */
};

/* The last record of a journal: its sequence number (0 for an empty
 * journal) and its hash (all zeros for an empty journal). */
struct journal_head {
	uint64_t seq;
	uint8_t hash[SHA256_LEN];
};

/* What verification found.  For JOURNAL_BAD and JOURNAL_TORN, bad_seq and
 * bad_off name the first record that is not valid (its expected sequence
 * number and the byte offset of its line) and why says what is wrong;
 * head, count and good_end always describe the valid prefix. */
struct journal_verdict {
	enum journal_status status;
	uint64_t count;		/* valid records */
	uint64_t good_end;	/* offset just past the last valid record */
	struct journal_head head;
	uint64_t bad_seq;
	uint64_t bad_off;
	char why[200];
};

/* Verification flags. */
#define JOURNAL_DEEP 0x1	/* also parse every event (jansson, strict)
				 * and require its canonical form */

/* Verify the journal held in buf[0..len).  If from is not NULL, the
 * journal must also contain record from->seq with hash from->hash (seq 0:
 * the empty journal, always true); a journal that is shorter or differs
 * there is JOURNAL_BAD.  Never fails: the verdict says everything. */
void journal_verify_buf(const void *buf, size_t len, unsigned flags,
    const struct journal_head *from, struct journal_verdict *v);

/* Same for an open file, with the same record checker and verdict: its
 * size is taken under a shared flock(2) (appenders hold it exclusively
 * until their records are durable), then it is read with pread(2) in
 * chunks of a few MiB, never mapped (a file truncated under a mapping
 * would raise SIGBUS) nor held whole.  Lines are hashed on two threads.
 * Returns 0, or -1 with errno from flock(2)/fstat(2)/pread(2)/malloc(3). */
int journal_verify_fd(int fd, unsigned flags, const struct journal_head *from,
    struct journal_verdict *v);

/* One record line's parts, as offsets into the line. */
struct journal_record {
	uint64_t seq;
	uint64_t time_ns;
	const char *prev_hex;	/* 64 bytes in the line, not checked here:
				 * compare them with the expected hash */
	const char *event;	/* the event object's text, in the line */
	size_t event_len;
};

/* Parse one record line (line[0..len), newline excluded): the envelope
 * byte by byte, and the event by its shape only: one JSON object whose
 * strings are closed and brackets balanced and matched, ending at the
 * record's last brace (so a line never holds two records); its content is
 * judged by journal_event_canon.  Returns 0, or -1 with *why (if not
 * NULL) pointing at a static description. */
int journal_record_parse(const char *line, size_t len,
    struct journal_record *r, const char **why);

/* Check event text strictly with jansson (one JSON object, no duplicate
 * keys, no NUL) and put its canonical form (compact, keys sorted, as
 * jansson writes it) in a malloc'ed *out of length *outlen.  Returns 0,
 * or -1 with errno EINVAL (message in err) or ENOMEM. */
int journal_event_canon(const char *text, size_t len, char **out,
    size_t *outlen, char *err, size_t errlen);

/* Append n events already in canonical form (from journal_event_canon)
 * as journal_append does, in one write(2) and one fdatasync(2).  *head
 * (if not NULL) gets the new head.  Errors as journal_append; errno
 * EBADMSG comes with *status (if not NULL) set to JOURNAL_TORN or
 * JOURNAL_BAD. */
int journal_append_canon(const char *path, const char *const *events,
    const size_t *lens, size_t n, struct journal_head *head,
    enum journal_status *status, char *err, size_t errlen);

/* Read the head of the journal at path from its tail, under the lock,
 * checking the last link as append does.  Returns 0, or -1 with errno
 * (EBADMSG with *status as above). */
int journal_head_read(const char *path, struct journal_head *head,
    enum journal_status *status, char *err, size_t errlen);

/* Under the lock: if the journal is torn, truncate it to its last valid
 * record and append a {"type":"recovered",...} event recording the
 * offset, length and SHA-256 of the dropped bytes.  *dropped gets the
 * dropped length (0: nothing to recover, file untouched).  Refuses (-1,
 * EBADMSG) a journal whose chain is broken.  Returns 0 or -1 with errno. */
int journal_recover(const char *path, uint64_t *dropped, char *err,
    size_t errlen);

/* Parse "SEQ:HEX64" into *h.  Returns 0, or -1 with errno EINVAL. */
int journal_head_parse(const char *s, struct journal_head *h);

/* As journal_append; on success *out (if out is not NULL) gets a
 * malloc'ed copy of the record lines written, *outlen their length. */
int journal_append_out(const char *path, const char *const *payloads,
    size_t n, char **out, size_t *outlen, char *err, size_t errlen);

/* journal_append_canon in steps, for a caller that keeps the journal
 * open and waits for its lock on a thread of its own, or retries it.
 * journal_open: open path (created if missing, mode 0600), a regular
 * file; the descriptor, or -1 with errno and err.  journal_lock: its
 * exclusive lock, waiting for it (wait 1) or not (0: -1 with errno
 * EWOULDBLOCK when another holds a lock); 0, or -1 with errno and err.
 * journal_append_locked: under that lock, append n canonical events as
 * journal_append_canon does (one write, one fdatasync); *out gets a
 * malloc'ed copy of the bytes written, *outlen their length; 0, or -1 as
 * journal_append_canon.  journal_unlock: the lock released. */
int journal_open(const char *path, char *err, size_t errlen);
int journal_lock(int fd, const char *path, int wait, char *err,
    size_t errlen);
void journal_unlock(int fd);
int journal_append_locked(int fd, const char *path,
    const char *const *events, const size_t *lens, size_t n, char **out,
    size_t *outlen, char *err, size_t errlen);

/* The record lines for n payloads on top of *head (updated), built in
 * memory only, as journal_append would write them (a journal of its own
 * from a zeroed head).  Returns 0 with a malloc'ed *out of *outlen bytes,
 * or -1 with errno (EINVAL, ENOMEM) and err. */
int journal_build(struct journal_head *head, const char *const *payloads,
    size_t n, char **out, size_t *outlen, char *err, size_t errlen);

#endif
