/* SPDX-License-Identifier: ISC */
/* serve: journalchain serve (serve.h; journalchain(1), SERVE).
 *
 * Two listeners, each a libmicrohttpd daemon driven from this one loop on
 * the main thread (no thread of libmicrohttpd's: MHD_USE_EPOLL without
 * an internal polling thread; every callback, and jansson, on the main
 * thread); what they answer is http.c's.  Before a byte of a connection
 * is read, its peer's socket owner is asked of the kernel (peer.c, from
 * libmicrohttpd's accept policy callback, which runs right after
 * accept(2)): only this process's uid, root and the uids of --allow-uid
 * get in; others are closed unread.  Bounds: connections per listener
 * (--max-connections), a connection's memory (libmicrohttpd's pool,
 * MEMORY_LIMIT), an idle connection's time (TIMEOUT_S); http.c bounds
 * each request.  Journals are only ever opened O_RDONLY (runs.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "err.h"
#include "http.h"
#include "peer.h"
#include "runs.h"
#include "scan.h"
#include "serve.h"
#include "usage.h"

#define SERVE_USAGE                                                       \
	"journalchain serve [--dashboard ADDR:PORT|off] "                 \
	"[--agui ADDR:PORT|off] [--allow-uid UID]... "                    \
	"[--allow-origin ORIGIN]... [--non-loopback] "                    \
	"[--max-connections N] FILE..."

#define DEFAULT_DASHBOARD "127.0.0.1:18082"
#define DEFAULT_AGUI "127.0.0.1:18083"
#define TIMEOUT_S 10		/* an idle connection is closed */
#define MEMORY_LIMIT (32 * 1024)	/* per connection */
#define TICK_MS 200		/* journals looked at */
#define UIDS_MAX 16
#define JOURNALS_MAX 16

/* What the command line says: the listeners' addresses ("off": none;
 * NULL: the default). */
struct serve_opts {
	const char *dash, *ag;
	int nonloop;
};

/* The options opt_take reads. */
enum { OPT_ALLOW_UID = USAGE_LONG_ONLY, OPT_ALLOW_ORIGIN, OPT_MAX_CONN };

/* clang-format off */
static const struct usage_opt options[] = {
	USAGE_STR("dashboard", 0, "ADDR:PORT|off", struct serve_opts, dash, "the dashboard's address (" DEFAULT_DASHBOARD ")"),
	USAGE_STR("agui", 0, "ADDR:PORT|off", struct serve_opts, ag, "the AG-UI adapter's address (" DEFAULT_AGUI ")"),
	USAGE_OPT("allow-uid", OPT_ALLOW_UID, "UID", "also let connections owned by UID in"),
	USAGE_OPT("allow-origin", OPT_ALLOW_ORIGIN, "ORIGIN", "answer cross-origin requests from ORIGIN"),
	USAGE_FLAG("non-loopback", 0, struct serve_opts, nonloop, "allow an address that is not a loopback one"),
	USAGE_ONCE("max-connections", OPT_MAX_CONN, "N", "connections per listener (512)"),
	USAGE_STD_ROWS,
};
/* clang-format on */

static struct {
	uid_t uids[UIDS_MAX + 2];
	size_t nuids;
	unsigned maxconn;
	struct listener l[2];
	size_t nl;
} S;

static void
usage_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void
usage_fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	die_usage_hint(EXIT_USAGE, "serve: %s", buf);
}

/* "ADDR:PORT" or "[ADDR6]:PORT", numeric only. */
static int
parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	uint64_t port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (rb == NULL || rb[1] != ':')
			return -1;
		hl = (size_t)(rb - s - 1);
		colon = rb + 1;
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s + 1, hl);
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL)
			return -1;
		hl = (size_t)(colon - s);
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s, hl);
	}
	host[hl] = '\0';
	if (scan_u64(colon + 1, 0, 65535, &port) == -1)
		return -1;
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -1;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -1;
		*len = sizeof(*a);
	}
	return 0;
}

static int
is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr)
		    >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->
	    sin6_addr);
}

static int
is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		    htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->
	    sin6_addr);
}

static void
addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;

		inet_ntop(AF_INET, &a->sin_addr, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, ntohs(a->sin_port));
	} else {
		const struct sockaddr_in6 *a = (const void *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, ntohs(a->sin6_port));
	}
}

/* ---- who may connect: before a byte is read ---- */

static enum MHD_Result
accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct listener *l = cls;
	char who[INET6_ADDRSTRLEN + 16];
	uid_t uid;
	size_t i;

	if (peer_uid(addr, addrlen, (const struct sockaddr *)&l->addr,
	    &uid) == -1) {
		l->refused++;
		if (l->refused <= 20 || (l->refused & 1023) == 0)
			warning_sys("serve: %s: a connection whose peer the "
			    "kernel cannot name: closed unread (%" PRIu64
			    " so far)", l->name, l->refused);
		return MHD_NO;
	}
	for (i = 0; i < S.nuids; i++)
		if (S.uids[i] == uid)
			return MHD_YES;
	l->refused++;
	if (l->refused <= 20 || (l->refused & 1023) == 0) {
		struct sockaddr_storage ss;

		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, addr, addrlen < sizeof(ss) ? addrlen : sizeof(ss));
		addr_str(&ss, who, sizeof(who));
		warning("serve: %s: connection from %s, uid %u: not allowed, "
		    "closed unread (%" PRIu64 " so far)", l->name, who,
		    (unsigned)uid, l->refused);
	}
	return MHD_NO;
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	warning("serve: %s", buf);
}

/* An address that is not a loopback one: refused without --non-loopback,
 * said with it. */
static void
loopback_check(const struct listener *l, const char *spec, int nonloop)
{
	if (is_loopback(&l->addr))
		return;
	if (!nonloop)
		die_usage_hint(EXIT_USAGE, "serve: --%s %s: not a loopback "
		    "address (--non-loopback to serve there)", l->name, spec);
	warning("serve: WARNING: %s listens on %s, not a loopback address: "
	    "only peers the kernel shows as sockets of this host owned by an "
	    "allowed uid get in", l->name, spec);
}

static void
start_listener(struct listener *l, const char *spec, int nonloop)
{
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
	    MHD_USE_ERROR_LOG;
	char a[INET6_ADDRSTRLEN + 16];

	loopback_check(l, spec, nonloop);
	if (l->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	l->d = MHD_start_daemon(flags, 0, accept_policy, l, http_request, l,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&l->addr,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)S.maxconn,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
	    MHD_OPTION_NOTIFY_COMPLETED, http_completed, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, http_conn_notify, NULL,
	    MHD_OPTION_END);
	if (l->d == NULL)
		die(EXIT_NO, "serve: cannot listen on %s for the %s", spec,
		    l->name);
	info = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_LISTEN_FD);
	if (info == NULL || getsockname(info->listen_fd,
	    (struct sockaddr *)&bound, &blen) == -1)
		die_sys(EXIT_NO, "serve: %s: its address", l->name);
	/* Port 0: the one the kernel chose. */
	memcpy(&l->addr, &bound, blen);
	l->alen = blen;
	addr_str(&l->addr, l->host, sizeof(l->host));
	if (is_loopback(&l->addr))
		snprintf(l->localhost, sizeof(l->localhost), "localhost:%u",
		    l->addr.ss_family == AF_INET ?
		    ntohs(((struct sockaddr_in *)&l->addr)->sin_port) :
		    ntohs(((struct sockaddr_in6 *)&l->addr)->sin6_port));
	info = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_EPOLL_FD);
	if (info == NULL)
		die(EXIT_NO, "serve: %s: no epoll descriptor", l->name);
	l->epfd = info->epoll_fd;
	addr_str(&l->addr, a, sizeof(a));
	printf("%s http://%s/\n", l->name, a);
}

static void
opt_take(struct serve_opts *o, int c)
{
	uint64_t v;

	switch (c) {
	case OPT_ALLOW_UID:
		if (S.nuids == UIDS_MAX + 2 ||
		    scan_u64(optarg, 0, UINT32_MAX - 1, &v) == -1)
			usage_fail("--allow-uid: not a uid (or more than %d): "
			    "%s", UIDS_MAX, optarg);
		S.uids[S.nuids++] = (uid_t)v;
		break;
	case OPT_ALLOW_ORIGIN:
		if ((strncmp(optarg, "http://", 7) != 0 &&
		    strncmp(optarg, "https://", 8) != 0) ||
		    strchr(optarg + 8, '/') != NULL ||
		    http_allow_origin(optarg) == -1)
			usage_fail("--allow-origin: want SCHEME://HOST[:PORT] "
			    "(%d at most): %s", HTTP_ORIGINS_MAX, optarg);
		break;
	case OPT_MAX_CONN:
		if (scan_u64(optarg, 1, 4096, &v) == -1)
			usage_fail("--max-connections: 1 to 4096: %s", optarg);
		S.maxconn = (unsigned)v;
		break;
	default:
		abort();	/* usage_next's */
	}
}

/* A listener at spec, unless it is "off". */
static void
listener_add(const char *name, int agui, const char *spec)
{
	struct listener *l = &S.l[S.nl];

	if (strcmp(spec, "off") == 0)
		return;
	l->name = name;
	l->agui = agui;
	if (parse_addr(spec, &l->addr, &l->alen) == -1)
		usage_fail("--%s: want ADDR:PORT or [ADDR6]:PORT (numeric), or "
		    "off: %s", name, spec);
	S.nl++;
}

/* Room for the connections' descriptors, as far as the hard limit goes. */
static void
nofile_raise(void)
{
	struct rlimit rl;
	rlim_t want = 2 * (rlim_t)S.maxconn + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* SIGINT, SIGTERM and SIGHUP as a descriptor the loop polls; SIGPIPE
 * ignored (a client gone is a write error). */
static int
signals_fd(void)
{
	sigset_t set;
	int sfd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd == -1)
		die_sys(EXIT_NO, "serve: signalfd");
	return sfd;
}

/* The loop, until a signal: the listeners' descriptors, their timeouts,
 * and the journals every TICK_MS. */
static void
serve_loop(int sfd)
{
	struct timespec last, now;
	struct signalfd_siginfo si;
	struct pollfd p[3];
	MHD_UNSIGNED_LONG_LONG to;
	size_t k, nl = S.nl;
	int tmo;

	clock_gettime(CLOCK_MONOTONIC, &last);
	for (;;) {
		tmo = TICK_MS;
		for (k = 0; k < nl; k++) {
			p[k].fd = S.l[k].epfd;
			p[k].events = POLLIN;
			if (MHD_get_timeout(S.l[k].d, &to) == MHD_YES &&
			    to < (MHD_UNSIGNED_LONG_LONG)tmo)
				tmo = (int)to;
		}
		p[nl].fd = sfd;
		p[nl].events = POLLIN;
		if (poll(p, nl + 1, tmo) == -1 && errno != EINTR)
			die_sys(EXIT_NO, "serve: poll");
		if (p[nl].revents & POLLIN &&
		    read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			return;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec -
		    last.tv_nsec) / 1000000 >= TICK_MS) {
			last = now;
			http_tick(runs_refresh());
		}
		for (k = 0; k < nl; k++)
			MHD_run(S.l[k].d);
	}
}

/* The options, up to the first FILE (optind); the defaults where none. */
static void
opts_read(struct serve_opts *o, int argc, char *argv[])
{
	struct usage_cli u = USAGE_CLI(options, "", SERVE_USAGE, EXIT_USAGE,
	    o);
	int c;

	optind = 1;
	while ((c = usage_next(&u, argc, argv)) != -1)
		opt_take(o, c);
	if (o->dash == NULL)
		o->dash = DEFAULT_DASHBOARD;
	if (o->ag == NULL)
		o->ag = DEFAULT_AGUI;
}

int
serve_main(int argc, char *argv[])
{
	struct serve_opts o = { NULL, NULL, 0 };
	size_t k;
	int i, sfd;

	S.maxconn = 512;
	S.uids[S.nuids++] = getuid();
	if (getuid() != 0)
		S.uids[S.nuids++] = 0;
	opts_read(&o, argc, argv);
	/* validation, before anything is opened */
	if (optind == argc)
		usage_fail("no FILE");
	if (argc - optind > JOURNALS_MAX)
		usage_fail("16 journals at most");
	if (strcmp(o.dash, "off") == 0 && strcmp(o.ag, "off") == 0)
		usage_fail("--dashboard off and --agui off: nothing to serve");
	listener_add("dashboard", 0, o.dash);
	listener_add("agui", 1, o.ag);
	for (k = 0; k < S.nl; k++)
		if (is_any(&S.l[k].addr))
			usage_fail("--%s: name one address, not a wildcard (the "
			    "peer is looked up by its four-tuple)", S.l[k].name);

	for (i = optind; i < argc; i++)
		if (runs_add(argv[i]) == -1)
			die_sys(EXIT_NO, "serve: cannot open %s", argv[i]);
	nofile_raise();
	sfd = signals_fd();
	(void)runs_refresh();
	for (k = 0; k < S.nl; k++)
		start_listener(&S.l[k], S.l[k].agui ? o.ag : o.dash, o.nonloop);
	if (fflush(stdout) == EOF)
		die_sys(EXIT_NO, "serve: writing stdout");
	serve_loop(sfd);
	/* Suspended connections must be resumed before the daemon stops;
	 * resumed, they end at once. */
	http_stop();
	for (k = 0; k < S.nl; k++) {
		MHD_run(S.l[k].d);
		MHD_stop_daemon(S.l[k].d);
	}
	return EXIT_OK;
}
