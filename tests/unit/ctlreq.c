/* SPDX-License-Identifier: ISC */
/* Unit tests of common/ctlreq: the control protocol's request lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctlreq.h"
#include "tap.h"

static struct ctl_req q;
static char err[256];

static int
parse(const char *s)
{
	return ctlreq_parse(s, strlen(s), &q, err, sizeof(err));
}

/* parse s: -1 with errno want, and a message. */
static void
refused(const char *s, int want, const char *msg)
{
	int rc = parse(s);

	ok(rc == -1 && errno == want && strstr(err, msg) != NULL,
	    "refused (%s, \"%s\"): %s", strerror(want), msg, s);
}

int
main(void)
{
	char *big;

	is_int(parse("{\"v\":1,\"op\":\"inspect\"}"), 0, "inspect");
	is_int(q.op, CTL_INSPECT, "op inspect");
	is_int(parse(" {\"op\":\"heartbeat\", \"v\":1} "), 0,
	    "heartbeat, any key order, blanks around");
	is_int(q.op, CTL_HEARTBEAT, "op heartbeat");
	is_int(parse("{\"v\":1,\"op\":\"cancel\"}"), 0, "cancel");
	is_int(q.op, CTL_CANCEL, "op cancel");
	is_int(parse("{\"v\":1,\"op\":\"subscribe\"}"), 0, "subscribe");
	ok(q.op == CTL_SUBSCRIBE && q.offset == 0 &&
	    q.limit == CTL_LIMIT_MAX && !q.follow, "subscribe defaults");
	is_int(parse("{\"v\":1,\"op\":\"subscribe\",\"offset\":123,"
	    "\"limit\":7,\"follow\":true}"), 0, "subscribe with every key");
	ok(q.offset == 123 && q.limit == 7 && q.follow, "subscribe keys read");
	is_int(parse("{\"v\":1,\"op\":\"subscribe\",\"limit\":1048576}"), 0,
	    "limit at its maximum");
	is_str(ctlreq_op_name(CTL_SUBSCRIBE), "subscribe", "op name");

	refused("{\"v\":2,\"op\":\"inspect\"}", EPROTONOSUPPORT,
	    "unsupported protocol version");
	refused("{\"v\":0,\"op\":\"nope\",\"x\":1}", EPROTONOSUPPORT,
	    "unsupported protocol version");
	refused("{\"v\":\"1\",\"op\":\"inspect\"}", EINVAL, "\"v\" is not");
	refused("{\"v\":1.0,\"op\":\"inspect\"}", EINVAL, "\"v\" is not");
	refused("{\"op\":\"inspect\"}", EINVAL, "no \"v\"");
	refused("{\"v\":1}", EINVAL, "no \"op\"");
	refused("{\"v\":1,\"op\":7}", EINVAL, "\"op\" is not a string");
	refused("{\"v\":1,\"op\":\"kill\"}", EINVAL, "unknown op: kill");
	refused("{\"v\":1,\"op\":\"a\\nb\"}", EINVAL,
	    "unknown op: a\\x0ab");
	refused("{\"v\":1,\"op\":\"heartbeat\",\"\\u001b[2J\":0}", EINVAL,
	    "unknown key: \\x1b[2J");
	refused("{\"v\":1,\"op\":\"inspect\",\"offset\":0}", EINVAL,
	    "unknown key: offset");
	refused("{\"v\":1,\"op\":\"cancel\",\"force\":true}", EINVAL,
	    "unknown key: force");
	refused("{\"v\":1,\"op\":\"subscribe\",\"from\":0}", EINVAL,
	    "unknown key for subscribe: from");
	refused("{\"v\":1,\"op\":\"subscribe\",\"offset\":-1}", EINVAL,
	    "offset: not an integer");
	refused("{\"v\":1,\"op\":\"subscribe\",\"offset\":\"0\"}", EINVAL,
	    "offset: not an integer");
	refused("{\"v\":1,\"op\":\"subscribe\",\"limit\":0}", EINVAL,
	    "limit: not an integer from 1");
	refused("{\"v\":1,\"op\":\"subscribe\",\"limit\":1048577}", EINVAL,
	    "limit: not an integer from 1");
	refused("{\"v\":1,\"op\":\"subscribe\",\"limit\":2.5}", EINVAL,
	    "limit: not an integer from 1");
	refused("{\"v\":1,\"op\":\"subscribe\",\"follow\":1}", EINVAL,
	    "follow: not a boolean");
	refused("{\"v\":1,\"op\":\"inspect\",\"op\":\"cancel\"}", EINVAL,
	    "not JSON: duplicate object key");
	refused("{\"v\":1,\"op\":\"inspect\"} {}", EINVAL, "not JSON");
	refused("[1]", EINVAL, "not a JSON object");
	refused("", EINVAL, "not JSON");
	refused("garbage", EINVAL, "not JSON");
	refused("{\"v\":1,\"op\":\"insp\\u0000ect\"}", EINVAL, "not JSON");
	is_int(ctlreq_parse("{\"v\":1,\"op\":\"inspect\"}\0", 23, &q, err,
	    sizeof(err)), -1, "a NUL byte after the object");
	ok(q.op == 0 && q.limit == 0, "a refused request leaves it zeroed");

	big = malloc(CTL_LINE_MAX + 2);
	if (big == NULL)
		abort();
	memset(big, ' ', CTL_LINE_MAX + 1);
	memcpy(big, "{\"v\":1,\"op\":\"inspect\"}", 22);
	is_int(ctlreq_parse(big, CTL_LINE_MAX, &q, err, sizeof(err)), 0,
	    "a request of exactly 65536 bytes");
	is_int(ctlreq_parse(big, CTL_LINE_MAX + 1, &q, err, sizeof(err)), -1,
	    "65537 bytes: refused");
	is_int(errno, EMSGSIZE, "as EMSGSIZE");
	free(big);
	return done_testing();
}
