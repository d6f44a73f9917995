/* SPDX-License-Identifier: ISC */
/* checkpoint: journalchain's signed checkpoints (journalchain(1),
 * CHECKPOINTS): keygen, checkpoint, verify --checkpoint, prove and
 * consistent.  Each function is a subcommand: it prints its result and
 * returns the exit status, or dies. */
#ifndef JOURNALCHAIN_CHECKPOINT_H
#define JOURNALCHAIN_CHECKPOINT_H

#include <stdint.h>

/* keygen NAME PREFIX: PREFIX.key (mode 0600) and PREFIX.pub, neither
 * existing before. */
int ckpt_keygen(const char *name, const char *prefix);

/* checkpoint --key KEY [--origin O] [--state FILE] JOURNAL: the signed
 * note of the journal's checkpoint on stdout (origin: the key's name by
 * default); with a state, only the records since its checkpoint are
 * read, and the state is replaced by the new one's. */
int ckpt_checkpoint(const char *journal, const char *key,
    const char *origin, const char *state);

/* verify --checkpoint FILE --pub VKEY [--origin O] JOURNAL. */
int ckpt_verify(const char *journal, const char *ckpt, const char *pub,
    const char *origin);

/* prove --from OLD [--to NEW] JOURNAL: "old OLD" then the hashes of the
 * consistency proof from OLD records to NEW (all of them by default). */
int ckpt_prove(const char *journal, const char *from, const char *to);

/* consistent --pub VKEY --old OLDCKPT --proof PROOF NEWCKPT. */
int ckpt_consistent(const char *newck, const char *oldck, const char *proof,
    const char *pub);

#endif
