/* SPDX-License-Identifier: ISC */
/* http: what journalchain serve answers on its listeners, once a
 * connection is let in (serve.c decides who gets in): the dashboard's
 * files and JSON, its event stream, the AG-UI adapter's streams, each
 * request bound in time and size (journalchain(1), SERVE).  Every
 * function runs on the main thread, from serve's loop or from the
 * libmicrohttpd callbacks it drives. */
#ifndef JC_HTTP_H
#define JC_HTTP_H

#include <arpa/inet.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

/* A listener: a libmicrohttpd daemon, the dashboard or the AG-UI
 * adapter, and what its requests must name. */
struct listener {
	const char *name;	/* "dashboard", "agui" */
	int agui;
	struct sockaddr_storage addr;	/* the address bound, port included */
	socklen_t alen;
	char host[INET6_ADDRSTRLEN + 16];	/* Host: as it must be */
	char localhost[32];	/* "localhost:PORT" (loopback only) */
	struct MHD_Daemon *d;
	int epfd;
	uint64_t refused;	/* connections closed unread */
};

/* Answer cross-origin requests from origin too (--allow-origin): 0, or
 * -1 when HTTP_ORIGINS_MAX are allowed already. */
#define HTTP_ORIGINS_MAX 16
int http_allow_origin(const char *origin);

/* libmicrohttpd's callbacks: the request handler (cls: its listener),
 * the end of a request, a connection's start and end. */
enum MHD_Result http_request(void *cls, struct MHD_Connection *c,
    const char *url, const char *method, const char *version,
    const char *upload, size_t *upload_size, void **ctx);
void http_completed(void *cls, struct MHD_Connection *c, void **ctx,
    enum MHD_RequestTerminationCode toe);
void http_conn_notify(void *cls, struct MHD_Connection *c, void **sctx,
    enum MHD_ConnectionNotificationCode toe);

/* Each tick of serve's loop: wake the waiting streams (every one when
 * the journals changed, else those due a keepalive), and cut the
 * requests not whole by their deadline. */
void http_tick(int changed);

/* Serve stops: every stream ends at its next read (they are woken). */
void http_stop(void);

#endif
