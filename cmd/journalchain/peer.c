/* SPDX-License-Identifier: ISC */
/* peer: the uid of a connection's peer socket, by sock_diag (peer.h).
 *
 * Both ends of a loopback TCP connection are sockets of this host: the
 * client's has the client's address as its source and ours as its
 * destination, and inet_diag reports its owner (idiag_uid, the
 * credentials of the process that created it, as ss -e prints them).
 * An exact lookup (no NLM_F_DUMP, cookie INET_DIAG_NOCOOKIE) names the
 * four-tuple, so no other socket can answer for it. */
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "peer.h"

/* The request's four-tuple: the peer's socket, from peer to local. */
static int
req_id(struct inet_diag_req_v2 *r, const struct sockaddr *peer,
    socklen_t peerlen, const struct sockaddr *local)
{
	const struct sockaddr_in *p4 = (const void *)peer;
	const struct sockaddr_in *l4 = (const void *)local;
	const struct sockaddr_in6 *p6 = (const void *)peer;
	const struct sockaddr_in6 *l6 = (const void *)local;
	int v4 = peer->sa_family == AF_INET;

	if (peer->sa_family != local->sa_family ||
	    (v4 && peerlen < sizeof(*p4)) ||
	    (!v4 && (peer->sa_family != AF_INET6 || peerlen < sizeof(*p6))))
		return errno = EAFNOSUPPORT, -1;
	r->sdiag_family = peer->sa_family;
	r->id.idiag_sport = v4 ? p4->sin_port : p6->sin6_port;
	r->id.idiag_dport = v4 ? l4->sin_port : l6->sin6_port;
	memcpy(r->id.idiag_src, v4 ? (const void *)&p4->sin_addr :
	    (const void *)&p6->sin6_addr, v4 ? 4 : 16);
	memcpy(r->id.idiag_dst, v4 ? (const void *)&l4->sin_addr :
	    (const void *)&l6->sin6_addr, v4 ? 4 : 16);
	return 0;
}

/* The owner's uid in the kernel's answer of n bytes, which must name the
 * socket asked for: 0, or -1 with errno (the kernel's error, ENOENT for
 * no such socket, EPROTO for an answer that does not name it). */
static int
answer_uid(struct nlmsghdr *h, ssize_t n, const struct inet_diag_req_v2 *r,
    uid_t *uid)
{
	struct inet_diag_msg *m;

	for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *er = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*er)))
				break;
			return errno = er->error ? -er->error : ENOENT, -1;
		}
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
			continue;
		m = NLMSG_DATA(h);
		if (m->id.idiag_sport != r->id.idiag_sport ||
		    m->id.idiag_dport != r->id.idiag_dport ||
		    memcmp(m->id.idiag_src, r->id.idiag_src, 16) != 0 ||
		    memcmp(m->id.idiag_dst, r->id.idiag_dst, 16) != 0)
			continue;
		*uid = m->idiag_uid;
		return 0;
	}
	return errno = EPROTO, -1;
}

int
peer_uid(const struct sockaddr *peer, socklen_t peerlen,
    const struct sockaddr *local, uid_t *uid)
{
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} ans;
	ssize_t n;
	int fd, e, rv = -1;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (req_id(&req.r, peer, peerlen, local) == -1)
		return -1;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd == -1)
		return -1;
	/* One answer: the socket, or an error (ENOENT: no such socket). */
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl,
	    sizeof(nl)) == (ssize_t)sizeof(req)) {
		do
			n = recv(fd, &ans, sizeof(ans), 0);
		while (n == -1 && errno == EINTR);
		if (n != -1)
			rv = answer_uid(&ans.nh, n, &req.r, uid);
	}
	e = errno;
	close(fd);
	errno = e;
	return rv;
}
