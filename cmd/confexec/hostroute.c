/* SPDX-License-Identifier: ISC */
/* confexec's egress broker: whether an address is this host's, asked of
 * the kernel at each connection (broker.h).  The guard (egress_addr_why)
 * refuses the special-purpose ranges itself; every other address a name
 * resolved to is asked about here, just before the connect: the route
 * the kernel gives confexec to it, for TCP to that port (RTM_GETROUTE on
 * a NETLINK_ROUTE socket of confexec's network; rtnetlink(7)).  A local
 * route is this host: one of its addresses whenever the host gained it,
 * or a range routed "local" (ip-route(8)).  No snapshot to go stale:
 * the host's addresses are judged as they are at the connection.
 *
 * Never blocking: rtnetlink answers RTM_GETROUTE within the sendmsg (its
 * doit runs in the sender's context, without the RTNL lock), so the
 * answer is queued when the send returns, and read with MSG_DONTWAIT.
 * No answer, a malformed one, or any failure to ask: whether the address
 * is this host's cannot be told, and it is refused (fail closed). */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "broker.h"

#define UNKNOWN "whether it is this host's address cannot be told"
#define ANSWERS	8	/* messages read for one answer at most */

/* What the kernel's route says.  A route that fails (unreachable,
 * prohibit, blackhole, throw) fails a connect(2) the same way: it does
 * not reach this host. */
static const char *
type_why(unsigned char type)
{
	switch (type) {
	case RTN_UNICAST:
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
	case RTN_BLACKHOLE:
	case RTN_THROW:
		return NULL;
	case RTN_LOCAL:
	case RTN_ANYCAST:
		return "this host's address";
	case RTN_BROADCAST:
		return "broadcast";
	case RTN_MULTICAST:
		return "multicast";
	default:
		return UNKNOWN;
	}
}

/* The lookup's error: no route (a connect fails the same way), or
 * anything else, which tells nothing. */
static const char *
error_why(int err)
{
	switch (err) {
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EACCES:
		return NULL;
	default:
		return UNKNOWN;
	}
}

static void
put_attr(struct nlmsghdr *nh, unsigned short type, const void *v, size_t n)
{
	struct rtattr *ra = (struct rtattr *)((char *)nh +
	    NLMSG_ALIGN(nh->nlmsg_len));

	ra->rta_type = type;
	ra->rta_len = (unsigned short)RTA_LENGTH(n);
	memcpy(RTA_DATA(ra), v, n);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + RTA_ALIGN(ra->rta_len);
}

/* egress_self's ask: the route to a (af, 4 or 16 bytes) on b->rtport. */
static const char *
ask(void *ctx, int af, const unsigned char *a)
{
	struct broker *b = ctx;
	union {
		struct nlmsghdr nh;
		char buf[NLMSG_SPACE(sizeof(struct rtmsg)) + 4 * RTA_SPACE(16)];
	} q;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} ans;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK }, from;
	struct nlmsghdr *nh;
	struct rtmsg *rt;
	struct nlmsgerr *e;
	socklen_t fl;
	size_t alen = af == AF_INET ? 4 : 16;
	uint16_t dport = htons(b->rtport);
	uint8_t proto = IPPROTO_TCP;
	uint32_t seq;
	ssize_t n;
	int k;

	if (b->rtfd == -1 || (af != AF_INET && af != AF_INET6))
		return UNKNOWN;
	memset(&q, 0, sizeof(q));
	q.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	q.nh.nlmsg_type = RTM_GETROUTE;
	q.nh.nlmsg_flags = NLM_F_REQUEST;
	q.nh.nlmsg_seq = seq = ++b->rtseq;
	rt = NLMSG_DATA(&q.nh);
	rt->rtm_family = (unsigned char)af;
	rt->rtm_dst_len = (unsigned char)(alen * 8);
	put_attr(&q.nh, RTA_DST, a, alen);
	/* What a policy rule may choose by (ip-rule(8) ipproto, dport);
	 * the uid is ours, as the connect's. */
	put_attr(&q.nh, RTA_IP_PROTO, &proto, sizeof(proto));
	put_attr(&q.nh, RTA_DPORT, &dport, sizeof(dport));
	for (;;) {
		n = sendto(b->rtfd, &q, q.nh.nlmsg_len, MSG_DONTWAIT,
		    (struct sockaddr *)&kernel, sizeof(kernel));
		if (n == -1 && errno == EINTR)
			continue;
		if (n != (ssize_t)q.nh.nlmsg_len)
			return UNKNOWN;
		break;
	}
	/* The answer, past any stale one (an earlier ask that gave up). */
	for (k = 0; k < ANSWERS; k++) {
		fl = sizeof(from);
		n = recvfrom(b->rtfd, &ans, sizeof(ans), MSG_DONTWAIT |
		    MSG_TRUNC, (struct sockaddr *)&from, &fl);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || (size_t)n > sizeof(ans))
			return UNKNOWN;		/* none queued, truncated */
		if (fl != sizeof(from) || from.nl_pid != 0)
			continue;		/* not the kernel's */
		for (nh = &ans.nh; NLMSG_OK(nh, (size_t)n);
		     nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return UNKNOWN;
				e = NLMSG_DATA(nh);
				if (e->error == 0)
					continue;	/* an ack */
				return error_why(-e->error);
			}
			if (nh->nlmsg_type != RTM_NEWROUTE)
				continue;
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*rt)))
				return UNKNOWN;
			rt = NLMSG_DATA(nh);
			if (rt->rtm_family != af)
				return UNKNOWN;
			return type_why(rt->rtm_type);
		}
	}
	return UNKNOWN;
}

int
hostroute_open(struct broker *b)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int one = 1, e;

	b->rtfd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    NETLINK_ROUTE);
	if (b->rtfd == -1)
		return -1;
	/* The kernel checks the whole request and refuses what it would
	 * not read (since Linux 4.20; older ones read it as it is). */
	(void)setsockopt(b->rtfd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
	    sizeof(one));
	if (bind(b->rtfd, (struct sockaddr *)&me, sizeof(me)) == -1) {
		e = errno;
		hostroute_close(b);
		errno = e;
		return -1;
	}
	b->self.ask = ask;
	b->self.ctx = b;
	return 0;
}

void
hostroute_close(struct broker *b)
{
	if (b->rtfd != -1)
		close(b->rtfd);
	b->rtfd = -1;
	b->self.ask = NULL;
	b->self.ctx = NULL;
}
