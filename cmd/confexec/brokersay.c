/* SPDX-License-Identifier: ISC */
/* brokersay: the broker's lines on stderr (brokersay.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "broker.h"
#include "brokersay.h"
#include "plan.h"
#include "say.h"

#define KEY_LEN (PLAN_MAX_HOST_LEN + 8 + sizeof(((struct conn *)0)->why))

struct said {
	char (*key)[KEY_LEN];
	size_t n, max;
};

/* 1 when key is new (remembered), 0 when said already, -1 when the
 * table is full. */
static int
said_new(struct said *t, const char *key)
{
	size_t k;

	for (k = 0; k < t->n; k++)
		if (strcmp(t->key[k], key) == 0)
			return 0;
	if (t->n == t->max)
		return -1;
	snprintf(t->key[t->n++], KEY_LEN, "%s", key);
	return 1;
}

enum said_kind { SAID_REFUSED, SAID_FAILED };

/* c's line, once a key: a refused destination once, a failed one once a
 * cause.  Said (counted in st's said of the kind), or counted in its
 * unsaid when the kind's table is full or stderr did not take it. */
static void
say_once(enum said_kind kind, struct egress_stats *st, const struct conn *c,
    const char *line)
{
	static char keys[EGRESS_SAID + EGRESS_SAID_FAILED][KEY_LEN];
	static struct said t[] = {
		[SAID_REFUSED] = {keys, 0, EGRESS_SAID},
		[SAID_FAILED] = {keys + EGRESS_SAID, 0, EGRESS_SAID_FAILED},
	};
	uint64_t *said = kind == SAID_FAILED ? &st->failed_said : &st->said;
	uint64_t *unsaid = kind == SAID_FAILED ? &st->failed_unsaid :
	    &st->unsaid;
	char key[KEY_LEN];
	int k;

	snprintf(key, sizeof(key), "%s %u %s", c->rq.host,
	    (unsigned)c->rq.port, kind == SAID_FAILED ? c->why : "");
	k = said_new(&t[kind], key);
	if (k == 0)
		return;		/* said already; each is journaled */
	if (k == 1 && say_line("%s", line) == 0)
		(*said)++;
	else
		(*unsaid)++;
}

void
brokersay_refused(struct egress_stats *st, const struct conn *c)
{
	char line[2 * KEY_LEN];

	snprintf(line, sizeof(line), "egress: refused: %s (%s%s)", c->why,
	    c->grant[0] ? "allow it with " : "no --egress allows it",
	    c->grant);
	say_once(SAID_REFUSED, st, c, line);
}

void
brokersay_failed(struct egress_stats *st, const struct conn *c)
{
	char line[2 * KEY_LEN];

	snprintf(line, sizeof(line), strchr(c->rq.host, ':') ?
	    "egress: [%s]:%u: %s" : "egress: %s:%u: %s", c->rq.host,
	    (unsigned)c->rq.port, c->why);
	say_once(SAID_FAILED, st, c, line);
}
