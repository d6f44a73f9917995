/* SPDX-License-Identifier: ISC */
/* journal: the hash-chained journal (journalchain(5)).  Records are JSON
 * lines; each one's hash is SHA-256 over the exact bytes written.
 * journalchain is its CLI; confexec appends its run events through it. */
#ifndef BORNE_JOURNAL_H
#define BORNE_JOURNAL_H

#include <stddef.h>

/* Append n payloads (each one JSON object text, no newline) to the
 * journal at path as consecutive records, atomically with respect to other
 * appenders: lock, read the tail, write with O_APPEND, fdatasync, unlock.
 * Creates the file (mode 0600) if missing.  Refuses (-1, errno EBADMSG) to
 * build on a torn or broken tail, and (-1, EINVAL) a payload that is not a
 * JSON object; nothing of the batch is written then.  On success the
 * records are durable.  err (if not NULL) gets a message on failure. */
int journal_append(const char *path, const char *const *payloads, size_t n,
    char *err, size_t errlen);

#endif
