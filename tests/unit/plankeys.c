/* SPDX-License-Identifier: ISC */
/* Unit tests of common/plankeys: every key's row is whole, and what a row
 * says of its key (single or list, its length, its JSON member) is what
 * the codec does with it, walked over every key. */
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "planint.h"
#include "tap.h"

#define H64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Every key but egress, each list key on two lines at least (egress
 * contradicts connect-tcp and bind-tcp: plan_b). */
static const char plan_a[] = "borne-plan 1\n"
    "program /usr/bin/tool\narg /usr/bin/tool\narg /tmp/s\narg\n"
    "sha256 " H64 "\nscript 1 " H64 "\n"
    "ro /etc\nro /usr\nrw /tmp/a\nrw /tmp/b\nrox /bin\nrox /opt\n"
    "rwx /srv/a\nrwx /srv/b\nfollow /etc\nfollow /usr\npreset sys\n"
    "tmp private\nsocket unix\nsocket tcp\nconnect-tcp 80\n"
    "connect-tcp 443\nbind-tcp 0\nbind-tcp 8080\nenv A=1\nenv B=2\n"
    "rlimit core 0 0\nrlimit nofile 64 64\nmemory-max 1048576\n"
    "pids-max 10\ncpu-max 1000 100000\ntimeout-ms 1000\nuid 1000\n"
    "gid 1000\nack-daemon a\nack-daemon b\nkeep-fd 3\nkeep-fd 4\n"
    "mode degrade\nprompt 2\nend\nhi";
static const char plan_b[] = "borne-plan 1\n"
    "program /bin/true\narg /bin/true\nsocket tcp\n"
    "egress a.example.org 1\negress b.example.org 2\nmode strict\nend\n";

static int
key_of(const char *s, size_t n)
{
	int k;

	for (k = 0; k < K_NKEYS; k++)
		if (strlen(plan_keys[k].name) == n &&
		    memcmp(plan_keys[k].name, s, n) == 0)
			return k;
	return -1;
}

/* Each row whole: a missing row (all empty) or field fails here. */
static int
rows(void)
{
	int k, j, whole = 1;

	for (k = 0; k < K_NKEYS; k++) {
		const struct plan_keydef *d = &plan_keys[k];
		int f = d->name && d->json && d->count && d->dec && d->enc &&
		    d->rule && d->tojson;

		ok(f, "key %d (%s): every field of its row", k,
		    d->name ? d->name : "?");
		whole &= f;
		if (!f)
			continue;
		/* The shared functions find their field by the row. */
		if (d->dec == plan_dec_u64 || d->dec == plan_dec_id)
			ok(!d->list && d->val != 0 && (d->has != 0) ==
			    (d->dec == plan_dec_id), "%s: its number's field "
			    "in the row", d->name);
		if (d->dec == plan_dec_u64)
			ok(d->lo > 0 && d->hi > d->lo && d->range != NULL,
			    "%s: its bounds in the row", d->name);
		if (d->dec == plan_dec_ports)
			ok(d->list && d->elem == PLAN_ELEM_U16 && d->arr != 0 &&
			    d->len != 0, "%s: its port list in the row",
			    d->name);
		if (d->max > 0)
			ok(d->list && d->group && d->what &&
			    d->at != PLAN_AT_NONE, "%s: a bounded list, "
			    "reported in its list", d->name);
		else
			ok(d->at == PLAN_AT_NONE && !d->group, "%s: no bound, "
			    "nothing to report an entry in", d->name);
		for (j = 0; j < k; j++)
			ok(strcmp(plan_keys[j].name, d->name) != 0 &&
			    strcmp(plan_keys[j].json, d->json) != 0,
			    "%s: name and member unlike %s's", d->name,
			    plan_keys[j].name);
	}
	return whole;
}

/* Decode text; for every key, its lines against its row: a single key
 * on one line at most, a list's length (count) its lines (those of every
 * key sharing its list, counted once), and its JSON member there. */
static void
walk(const char *name, const char *text, size_t len)
{
	size_t lines[K_NKEYS] = { 0 }, at_lines[PLAN_AT_ARG + 1] = { 0 };
	size_t at_count[PLAN_AT_ARG + 1] = { 0 }, n;
	const char *s = text + sizeof(PLAN_MAGIC), *e;
	char err[256] = "";
	struct plan p;
	json_t *j;
	int k;

	for (; (e = strchr(s, '\n')) != NULL && strncmp(s, "end\n", 4) != 0;
	    s = e + 1) {
		n = strcspn(s, " \n");
		k = key_of(s, n);
		ok(k >= 0, "%s: key of %.*s", name, (int)n, s);
		if (k >= 0)
			lines[k]++;
	}
	is_int(plan_decode((const unsigned char *)text, len, &p, err,
	    sizeof(err)), 0, "%s decodes (%s)", name, err);
	j = plan_to_json(&p);
	ok(j != NULL, "%s: JSON", name);
	for (k = 0; k < K_NKEYS; k++) {
		const struct plan_keydef *d = &plan_keys[k];
		size_t c = d->count(&p);

		if (!d->list)
			ok(lines[k] <= 1 && c == 1, "%s: %s single, counted "
			    "once", name, d->name);
		else if (d->max == 0)
			ok(c == 1, "%s: %s a set of lines, one field", name,
			    d->name);
		if (d->elem != PLAN_ELEM_NONE)
			is_int(*(const size_t *)((const char *)&p + d->len), c,
			    "%s: %s's array as long as its count", name,
			    d->name);
		at_lines[d->at] += lines[k];
		at_count[d->at] += c;
		ok(j && json_object_get(j, d->json) != NULL &&
		    !(lines[k] > 0 && json_is_null(json_object_get(j,
		    d->json))), "%s: %s in JSON as \"%s\"", name, d->name,
		    d->json);
	}
	for (n = PLAN_AT_NONE + 1; n <= PLAN_AT_ARG; n++)
		is_int(at_count[n], at_lines[n], "%s: list %zu counts its "
		    "lines", name, n);
	is_int(json_object_size(j), K_NKEYS + 3, "%s: a member per key, "
	    "format, plan_sha256, warnings", name);
	json_decref(j);
	plan_free(&p);
}

/* Every list key on two lines in plan_a or plan_b: a list row marked
 * single would refuse the second ("given twice"). */
static void
lists_repeat(void)
{
	int k;

	for (k = 0; k < K_NKEYS; k++) {
		char key[32];

		if (!plan_keys[k].list)
			continue;
		snprintf(key, sizeof(key), "\n%s ", plan_keys[k].name);
		ok(strstr(plan_a, key) && strstr(strstr(plan_a, key) + 1, key) ?
		    1 : strstr(plan_b, key) && strstr(strstr(plan_b, key) + 1,
		    key) != NULL, "%s: given twice in a test plan",
		    plan_keys[k].name);
	}
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);	/* what ran before a crash */
	if (!rows())
		return done_testing();	/* the walk would read empty rows */
	walk("plan_a", plan_a, sizeof(plan_a) - 1);
	walk("plan_b", plan_b, sizeof(plan_b) - 1);
	lists_repeat();
	return done_testing();
}
