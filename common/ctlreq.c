/* SPDX-License-Identifier: ISC */
/* ctlreq: confexec's control requests (ctlreq.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ctlreq.h"
#include "err.h"
#include "esc.h"

static const char *const op_names[] = {
	[CTL_INSPECT] = "inspect",
	[CTL_HEARTBEAT] = "heartbeat",
	[CTL_SUBSCRIBE] = "subscribe",
	[CTL_CANCEL] = "cancel",
};
#define NOPS (sizeof(op_names) / sizeof(op_names[0]))

const char *
ctlreq_op_name(enum ctl_op op)
{
	return (size_t)op < NOPS ? op_names[op] : "?";
}

/* A message cut short may end inside a UTF-8 sequence: drop it. */
static void
utf8_trim(char *s)
{
	size_t n = strlen(s), i = n, need;
	unsigned char c;

	while (i > 0 && n - i < 4 && ((unsigned char)s[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0)
		return;
	c = (unsigned char)s[i - 1];
	if (c < 0x80)
		return;
	need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (n - (i - 1) < need)
		s[i - 1] = '\0';
}

static int
bad(char *err, size_t errlen, int e, const char *fmt, const char *arg)
{
	err_set(err, errlen, fmt, arg);
	if (errlen > 0)
		utf8_trim(err);
	errno = e;
	return -1;
}

/* The same, naming a string of the request: its first 64 bytes,
 * escaped (no newline or control byte gets into the message). */
static int
bad_name(char *err, size_t errlen, const char *fmt, const char *name)
{
	char cut[65], out[ESC_SIZE(64)];

	snprintf(cut, sizeof(cut), "%s", name);
	esc_name(cut, out, sizeof(out));
	return bad(err, errlen, EINVAL, fmt, out);
}

/* A non-negative JSON integer no larger than max. */
static int
uint_field(json_t *v, uint64_t max, uint64_t *out)
{
	json_int_t i;

	if (!json_is_integer(v))
		return -1;
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i > max)
		return -1;
	*out = (uint64_t)i;
	return 0;
}

/* The keys of a subscribe request other than "v" and "op". */
static int
subscribe_fields(json_t *o, struct ctl_req *q, char *err, size_t errlen)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		if (strcmp(k, "v") == 0 || strcmp(k, "op") == 0)
			continue;
		if (strcmp(k, "offset") == 0) {
			if (uint_field(v, INT64_MAX, &q->offset) == -1)
				return bad(err, errlen, EINVAL, "%s: not an "
				    "integer from 0", k);
		} else if (strcmp(k, "limit") == 0) {
			if (uint_field(v, CTL_LIMIT_MAX, &q->limit) == -1 ||
			    q->limit == 0)
				return bad(err, errlen, EINVAL, "%s: not an "
				    "integer from 1 to 1048576", k);
		} else if (strcmp(k, "follow") == 0) {
			if (!json_is_boolean(v))
				return bad(err, errlen, EINVAL, "%s: not a "
				    "boolean", k);
			q->follow = json_is_true(v);
		} else
			return bad_name(err, errlen, "unknown key for "
			    "subscribe: %s", k);
	}
	return 0;
}

static int
parse_obj(json_t *o, struct ctl_req *q, char *err, size_t errlen)
{
	json_t *v, *op;
	const char *name, *k;
	size_t i;

	v = json_object_get(o, "v");
	if (v == NULL)
		return bad(err, errlen, EINVAL, "%s", "no \"v\" (the protocol "
		    "version)");
	if (!json_is_integer(v))
		return bad(err, errlen, EINVAL, "%s", "\"v\" is not an "
		    "integer");
	if (json_integer_value(v) != CTL_VERSION)
		return bad(err, errlen, EPROTONOSUPPORT, "%s", "unsupported "
		    "protocol version");
	op = json_object_get(o, "op");
	if (op == NULL)
		return bad(err, errlen, EINVAL, "%s", "no \"op\"");
	if (!json_is_string(op))
		return bad(err, errlen, EINVAL, "%s", "\"op\" is not a "
		    "string");
	name = json_string_value(op);
	for (i = 0; i < NOPS; i++)
		if (strlen(op_names[i]) == json_string_length(op) &&
		    strcmp(op_names[i], name) == 0)
			break;
	if (i == NOPS)
		return bad_name(err, errlen, "unknown op: %s", name);
	q->op = (enum ctl_op)i;
	if (q->op == CTL_SUBSCRIBE)
		return subscribe_fields(o, q, err, errlen);
	json_object_foreach(o, k, v)
		if (strcmp(k, "v") != 0 && strcmp(k, "op") != 0)
			return bad_name(err, errlen, "unknown key: %s", k);
	return 0;
}

static int
parse_line(const char *line, size_t len, struct ctl_req *q, char *err,
    size_t errlen)
{
	json_error_t je;
	json_t *o;
	int rc;

	if (len > CTL_LINE_MAX)
		return bad(err, errlen, EMSGSIZE, "%s", "request longer than "
		    "65536 bytes");
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (o == NULL) {
		/* jansson quotes the input near the error: escaped. */
		char txt[ESC_SIZE(JSON_ERROR_TEXT_LENGTH)];

		esc_name(je.text, txt, sizeof(txt));
		return bad(err, errlen, EINVAL, "not JSON: %s", txt);
	}
	if (!json_is_object(o)) {
		json_decref(o);
		return bad(err, errlen, EINVAL, "%s", "not a JSON object");
	}
	rc = parse_obj(o, q, err, errlen);
	json_decref(o);
	return rc;
}

int
ctlreq_parse(const char *line, size_t len, struct ctl_req *q, char *err,
    size_t errlen)
{
	int e;

	memset(q, 0, sizeof(*q));
	q->limit = CTL_LIMIT_MAX;
	if (errlen > 0)
		err[0] = '\0';
	if (parse_line(line, len, q, err, errlen) == 0)
		return 0;
	e = errno;
	memset(q, 0, sizeof(*q));
	errno = e;
	return -1;
}
