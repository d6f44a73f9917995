/* SPDX-License-Identifier: ISC */
/* ctlreq: one request line of confexec's control protocol
 * (confexec-control(5)), parsed strictly with jansson.
 *
 * A request is one JSON object on one line (the newline not included
 * here), at most CTL_LINE_MAX bytes:
 *   {"v":1,"op":"inspect"}
 *   {"v":1,"op":"heartbeat"}
 *   {"v":1,"op":"cancel"}
 *   {"v":1,"op":"subscribe"[,"offset":N][,"limit":M][,"follow":BOOL]}
 * Nothing else: duplicate keys, unknown keys, unknown ops, keys of another
 * op, wrong types, numbers that are not integers in range, trailing bytes
 * and NUL bytes are errors.  "v" is judged first: an integer other than
 * CTL_VERSION is a version error whatever the rest says (a later version
 * may add ops and keys). */
#ifndef BORNE_CTLREQ_H
#define BORNE_CTLREQ_H

#include <stddef.h>
#include <stdint.h>

#define CTL_VERSION 1
#define CTL_LINE_MAX 65536u		/* request bytes, newline excluded */
#define CTL_LIMIT_MAX (1u << 20)	/* largest subscribe "limit" */

enum ctl_op { CTL_INSPECT, CTL_HEARTBEAT, CTL_SUBSCRIBE, CTL_CANCEL };

struct ctl_req {
	enum ctl_op op;
	uint64_t offset;	/* subscribe: byte offset in the log (0) */
	uint64_t limit;		/* subscribe: page bytes, 1 to
				 * CTL_LIMIT_MAX (CTL_LIMIT_MAX) */
	int follow;		/* subscribe: stream until the end (0) */
};

/* Parse line[0..len) into *q.  Returns 0, or -1 with errno:
 *   EMSGSIZE         len > CTL_LINE_MAX
 *   EPROTONOSUPPORT  "v" is an integer other than CTL_VERSION
 *   EINVAL           anything else that is not a request
 * and err (if errlen > 0) gets one line saying why: printable UTF-8
 * (the request's strings in it escaped, esc.h), fit for a JSON string. */
int ctlreq_parse(const char *line, size_t len, struct ctl_req *q, char *err,
    size_t errlen);

/* The name of op, as in requests. */
const char *ctlreq_op_name(enum ctl_op op);

#endif
