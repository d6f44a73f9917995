/* SPDX-License-Identifier: ISC */
/* events: the kind and plan of a confexec event (events.h). */
#include <string.h>

#include "events.h"

json_t *
ev_parse(const char *text, size_t len)
{
	json_error_t e;

	return json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
}

enum ev_kind
ev_kind(json_t *ev)
{
	static const struct {
		const char *name;
		enum ev_kind kind;
	} kinds[] = {
		{ "start", EV_START }, { "end", EV_END },
		{ "egress", EV_EGRESS }, { "handoff", EV_HANDOFF },
		{ "canary", EV_CANARY },
	};
	const char *k = json_string_value(json_object_get(ev, "event"));
	size_t i;

	for (i = 0; k != NULL && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(k, kinds[i].name) == 0)
			return kinds[i].kind;
	return EV_OTHER;
}

const char *
ev_plan(json_t *ev)
{
	const char *p = json_string_value(json_object_get(ev, "plan"));

	if (p == NULL)
		p = json_string_value(json_object_get(ev, "plan_sha256"));
	return p;
}
