/* SPDX-License-Identifier: ISC */
/* journal_int: what the journal module's own files share.  Not a contract
 * for anyone else (journal.h is); include it from common/journal*.c only.
 *
 * The module is split by what changes together:
 *   journal_rec.c     the record format: envelope parser, event shape and
 *                     canonical form, and the one record checker
 *   journal_verify.c  the verify drivers (buffer and file), which split
 *                     lines, hash them (two threads) and call the checker
 *   journal.c         the file: locking, the tail, append, recover
 *   journal_tree.c    the chain's records as Merkle leaves, checkpoint
 *                     positions (journal_tree.h) */
#ifndef BORNE_JOURNAL_INT_H
#define BORNE_JOURNAL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "journal.h"

/* 64 zeros: genesis' prev. */
extern const char journal_zero_hex[SHA256_HEX_LEN + 1];

/* What the next record must be. */
struct jrec_want {
	unsigned flags;			/* JOURNAL_DEEP */
	uint64_t seq;			/* its seq */
	const char *prev_hex;		/* 64 hex digits: hash of the line
					 * before it (zeros for seq 1) */
	const struct journal_head *from; /* if not NULL and from->seq is
					 * seq, the line must hash to it */
};

/* The one record checker: every verify mode (buffer, file, --deep,
 * --from) and append's tail reader call it, and nothing else judges a
 * record.  line[0..n) is one line, its newline included; d is its
 * SHA-256 (computed by the caller, possibly on another thread).  Checks,
 * in this order, and reports the first failure: length, envelope and
 * event shape (journal_record_parse), seq, prev, canonical event (with
 * JOURNAL_DEEP), --from hash.  Returns 0, or -1 with why[0..whylen) set. */
int jrec_check(const struct jrec_want *w, const char *line, size_t n,
    const uint8_t d[SHA256_LEN], char *why, size_t whylen);

/* fn(a) and fn(b), a on a second thread when threaded (both here when
 * that thread cannot be made): the two halves of a batch of lines, which
 * hash independently (journal_verify.c, journal_tree.c). */
void journal_halves(void *(*fn)(void *), void *a, void *b, int threaded);

/* journal_verify_fd without the lock: the first limit bytes of fd, read
 * with pread(2).  The caller holds the lock (recover) or took the size
 * under it. */
int journal_verify_upto(int fd, uint64_t limit, unsigned flags,
    const struct journal_head *from, struct journal_verdict *v);

#endif
