/* SPDX-License-Identifier: ISC */
/* peer: who is at the other end of an accepted TCP connection, as the
 * kernel says (sock_diag, inet_diag), before a byte of it is read. */
#ifndef JC_PEER_H
#define JC_PEER_H

#include <sys/socket.h>
#include <sys/types.h>

/* The owner uid of the peer's socket of the connection between peer (the
 * address accept(2) gave) and local (the listening address, port
 * included): the socket whose source is peer and whose destination is
 * local, asked of the kernel by its exact four-tuple through a
 * NETLINK_SOCK_DIAG request (inet_diag_req_v2).  Only a socket of this
 * host in this network namespace is found: a remote peer is ENOENT.
 * Returns 0 with *uid set, or -1 with errno (ENOENT: no such socket;
 * EAFNOSUPPORT: not IPv4 or IPv6; others from socket(2), send(2),
 * recv(2), EPROTO for a malformed answer). */
int peer_uid(const struct sockaddr *peer, socklen_t peerlen,
    const struct sockaddr *local, uid_t *uid);

#endif
