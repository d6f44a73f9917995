/* SPDX-License-Identifier: ISC */
/* brokersay: the broker's lines on stderr (brokersay.h). */
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

void
brokersay_refused(struct egress_stats *st, const struct conn *c)
{
	static char keys[EGRESS_SAID][KEY_LEN];
	static struct said t = {keys, 0, EGRESS_SAID};
	char key[KEY_LEN];
	int k;

	snprintf(key, sizeof(key), "%s %u", c->rq.host,
	    (unsigned)c->rq.port);
	if ((k = said_new(&t, key)) == 0)
		return;
	if (k == 1 && say_line("egress: refused: %s (%s%s)", c->why,
	    c->grant[0] ? "allow it with " : "no --egress allows it",
	    c->grant) == 0)
		st->said++;
	else
		st->unsaid++;
}

void
brokersay_failed(struct egress_stats *st, const struct conn *c)
{
	static char keys[EGRESS_SAID_FAILED][KEY_LEN];
	static struct said t = {keys, 0, EGRESS_SAID_FAILED};
	char key[KEY_LEN];
	int k;

	snprintf(key, sizeof(key), "%s %u %s", c->rq.host,
	    (unsigned)c->rq.port, c->why);
	if ((k = said_new(&t, key)) == 0)
		return;
	if (k == 1 && say_line(strchr(c->rq.host, ':') ?
	    "egress: [%s]:%u: %s" : "egress: %s:%u: %s", c->rq.host,
	    (unsigned)c->rq.port, c->why) == 0)
		st->failed_said++;
	else
		st->failed_unsaid++;
}
