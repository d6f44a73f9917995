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
	struct nlmsghdr *h;
	struct inet_diag_msg *m;
	ssize_t n;
	int fd, e, found = 0;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = ~0u;
	req.r.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (peer->sa_family == AF_INET && local->sa_family == AF_INET &&
	    peerlen >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *p = (const void *)peer;
		const struct sockaddr_in *l = (const void *)local;

		req.r.sdiag_family = AF_INET;
		req.r.id.idiag_sport = p->sin_port;
		req.r.id.idiag_dport = l->sin_port;
		memcpy(req.r.id.idiag_src, &p->sin_addr, 4);
		memcpy(req.r.id.idiag_dst, &l->sin_addr, 4);
	} else if (peer->sa_family == AF_INET6 && local->sa_family ==
	    AF_INET6 && peerlen >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *p = (const void *)peer;
		const struct sockaddr_in6 *l = (const void *)local;

		req.r.sdiag_family = AF_INET6;
		req.r.id.idiag_sport = p->sin6_port;
		req.r.id.idiag_dport = l->sin6_port;
		memcpy(req.r.id.idiag_src, &p->sin6_addr, 16);
		memcpy(req.r.id.idiag_dst, &l->sin6_addr, 16);
	} else
		return errno = EAFNOSUPPORT, -1;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd == -1)
		return -1;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl,
	    sizeof(nl)) != (ssize_t)sizeof(req))
		goto fail;
	/* One answer: the socket, or an error (ENOENT: no such socket). */
	do
		n = recv(fd, &ans, sizeof(ans), 0);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		goto fail;
	for (h = &ans.nh; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *er = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*er)))
				break;
			close(fd);
			errno = er->error ? -er->error : ENOENT;
			return -1;
		}
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
			continue;
		m = NLMSG_DATA(h);
		/* The kernel's answer must be the socket asked for. */
		if (m->id.idiag_sport != req.r.id.idiag_sport ||
		    m->id.idiag_dport != req.r.id.idiag_dport ||
		    memcmp(m->id.idiag_src, req.r.id.idiag_src, 16) != 0 ||
		    memcmp(m->id.idiag_dst, req.r.id.idiag_dst, 16) != 0)
			continue;
		*uid = m->idiag_uid;
		found = 1;
		break;
	}
	close(fd);
	if (!found)
		return errno = EPROTO, -1;
	return 0;
fail:
	e = errno;
	close(fd);
	return errno = e, -1;
}
