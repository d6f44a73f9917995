/* SPDX-License-Identifier: ISC */
/* brokersay: the broker's lines on stderr, each destination once.
 * brokersay_refused: a refused destination, its reason and the
 * --egress that would allow it, at most EGRESS_SAID destinations;
 * brokersay_failed: a failed connection (cannot resolve, cannot connect,
 * no connection in time, a reset, a TLS client that gave up), each
 * destination and cause once, at most EGRESS_SAID_FAILED lines.  What
 * is not said is counted in st (the source's finish says how many);
 * each is journaled.  Never waits (say.c). */
#ifndef CONFEXEC_BROKERSAY_H
#define CONFEXEC_BROKERSAY_H

#include "broker.h"

void brokersay_refused(struct egress_stats *st, const struct conn *c);
void brokersay_failed(struct egress_stats *st, const struct conn *c);

#endif
