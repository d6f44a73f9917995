/* SPDX-License-Identifier: ISC */
/* confexec --canary (confexec(1), CANARIES): the plan's boundary, built
 * as for a run, around confexec-canary (canary/canary.c) in place of the
 * plan's program.  Before the clone, canary_prepare makes what the
 * probes aim at on the host (a directory outside every rule with a file
 * per probe and a copy of the probe program, a TCP and an abstract unix
 * listener, a paused process, a SysV queue), derives what the plan
 * should give each probe from its rules and the layers this run applies,
 * and hands the probes to the program as its argv, with a pipe kept for
 * its answers.  Once the run's tree is gone, canary_end reads the
 * answers, looks at the host's side of each probe, prints one line per
 * probe (or one JSON object) and journals a "canary" record. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/stat.h>

#include "canary.h"
#include "clock.h"
#include "err.h"
#include "esc.h"
#include "io.h"
#include "layers.h"
#include "plan.h"
#include "probe.h"
#include "record.h"
#include "run.h"

#define CANARY_PROG "confexec-canary"
#define MAX_PROBES 160
#define MAX_RW 16		/* rw rules probed */
#define MAX_PORTS 8		/* granted ports probed */
#define MAX_DAEMONS 24
#define MEM_PROBE_MAX (256ull << 20)	/* memory limits touched past */
#define PIDS_PROBE_MAX 1024
#define ANSWERS_MAX (64u << 10)
#define FILE_BYTES "borne canary\n"

/* What the plan should give a probe. */
enum expect {
	X_DENY,		/* an errno */
	X_GRANT,	/* "ok" */
	X_KILL,		/* SIGKILL (a memory limit) */
	X_HTTP403,	/* the broker refuses */
	X_HTTPOK,	/* the broker takes it (any other answer) */
	X_NOTRUN,	/* not tried: why in expected */
};

/* What confexec looks at on the host afterwards. */
enum host {
	H_NONE, H_BYTES, H_MODE, H_TIMES, H_LEFT, H_TCP, H_ABSTRACT,
	H_SIGNAL, H_TRACE, H_SYSV, H_PRIV,
};

struct probe_line {
	const char *name;
	char tried[1024];	/* paths escaped (esc.h), cut at 1 KiB */
	char op[12];
	char arg[PATH_MAX];
	enum expect x;
	int want;		/* X_DENY: this errno only (0: any) */
	char expected[512];
	enum host h;
	int file;		/* H_BYTES, H_MODE, H_TIMES: fname[] index */
	char got[160];
	char hostsaw[160];
	int match;
};

/* The canary record at its largest (JSON escapes a field's backslashes,
 * and esc.h's \xNN has one per 4 bytes: 5/4 of each field, plus keys)
 * fits the source's share of the run's log. */
_Static_assert(MAX_PROBES * (5 * (sizeof(((struct probe_line *)0)->tried) +
    sizeof(((struct probe_line *)0)->expected) +
    sizeof(((struct probe_line *)0)->got) +
    sizeof(((struct probe_line *)0)->hostsaw)) / 4 + 160) + 1024 <=
    LOG_CANARY_SHARE, "the canary record fits its share");

/* The files of the outside directory: one per probe. */
enum { F_WRITE, F_CHMOD, F_UTIMES, F_READ, F_EXEC, F_N };
static const char *const fname[F_N] = {"write", "chmod", "utimes", "read",
	"exec"};

static struct canary {
	int on, json;
	struct probe_line *pl;
	size_t n;
	char prog[PATH_MAX];
	char dir[PATH_MAX];	/* "" none */
	char nodir[256];	/* why none */
	struct stat st[F_N];
	int rfd, wfd;		/* the answers' pipe */
	int tcpfd, absfd;	/* the host's listeners */
	uint16_t tcpport;
	char absname[64];
	pid_t target;		/* the paused host process */
	int targetfd, lifefd;
	int msqid;
	/* The privileged file beneath the first rw directory rule (the
	 * rw-privileged probe): its path, as made, and its first page. */
	char priv[PATH_MAX];
	struct stat privst;
	char privpage[4096];
	ssize_t privlen;
	char **argv;
	size_t argc;
	int started, ended;	/* its "start" and "end" lines were read */
	int judged, code;	/* canary_finish: a verdict, the exit */
	size_t matched, bad, skipped, missing;
} cn = {.rfd = -1, .wfd = -1, .tcpfd = -1, .absfd = -1, .target = -1,
	.targetfd = -1, .lifefd = -1, .msqid = -1};

/* The answers a layer gives when it stands in a route's way (EACCES and
 * EPERM: Landlock, seccomp, a file mode; EROFS: the mount view; ESRCH:
 * another pid namespace; ECONNREFUSED, ENOENT, EINVAL: the name, the
 * socket or the queue is not in the run's namespaces; EAGAIN: the pids
 * limit).  Any other errno (EMFILE under a small nofile limit, ENOMEM)
 * says nothing of the boundary: not a match. */
static const int denials[] = {EACCES, EPERM, EROFS, ESRCH, ECONNREFUSED,
	ENOENT, EINVAL, EAGAIN};

static void
errno_text(int e, char *buf, size_t size)
{
	const char *n = err_name(e);

	if (n != NULL)
		snprintf(buf, size, "%s", n);
	else
		snprintf(buf, size, "errno %d", e);
}

int
canary_on(void)
{
	return cn.on;
}

void
canary_want(int json)
{
	cn.on = 1;
	cn.json = json;
}

/* ---- expectations ---- */

/* One thing in a route's way: a layer of this run (on: applied; wanted:
 * the plan asks for it, so that off means missing), or a property of the
 * plan (the uid it runs as: never "missing"). */
struct guard {
	const char *name;
	int on, missing;
};

static struct guard
g_layer(const struct run *r, int i)
{
	struct guard g = {r->layers[i].name, layers_on(r, i),
		r->layers[i].wanted && !layers_on(r, i)};

	return g;
}

/* Landlock's scopes (abstract unix, signals): applied with Landlock
 * from ABI 6 on, whatever the plan grants. */
static struct guard
g_scope(const struct run *r)
{
	int on = layers_on(r, L_LANDLOCK) && r->pr.landlock_abi >= 6;
	struct guard g = {"landlock-scope", on, !on};

	return g;
}

/* Denied when a guard is on ("denied (a, b)"), else granted ("granted (x
 * missing)": degrade mode dropped what would have denied it). */
static void
expect_guards(struct probe_line *pl, const struct guard *g, size_t n)
{
	char on[200] = "", off[200] = "";
	size_t i;

	for (i = 0; i < n; i++) {
		if (g[i].on)
			snprintf(on + strlen(on), sizeof(on) - strlen(on),
			    "%s%s", on[0] ? ", " : "", g[i].name);
		else if (g[i].missing)
			snprintf(off + strlen(off), sizeof(off) - strlen(off),
			    "%s%s", off[0] ? ", " : "", g[i].name);
	}
	if (on[0] != '\0') {
		pl->x = X_DENY;
		snprintf(pl->expected, sizeof(pl->expected), "denied (%s)", on);
	} else {
		pl->x = X_GRANT;
		snprintf(pl->expected, sizeof(pl->expected), "granted%s%s%s",
		    off[0] ? " (" : "", off, off[0] ? " missing)" : "");
	}
}

/* A path as lines and records show it: escaped (no tab, newline or
 * invalid UTF-8 to break a line or a record), cut at 900 bytes.  Into
 * one of two buffers in turn (two in one format). */
static const char *
shown(const char *path)
{
	static char buf[2][900];
	static int k;

	k ^= 1;
	(void)esc_name(path, buf[k], sizeof(buf[k]));
	return buf[k];
}

static struct probe_line *
add(const char *name, const char *op, const char *arg)
{
	struct probe_line *pl;

	if (cn.n >= MAX_PROBES)
		return NULL;
	pl = &cn.pl[cn.n++];
	memset(pl, 0, sizeof(*pl));
	pl->name = name;
	snprintf(pl->op, sizeof(pl->op), "%s", op);
	snprintf(pl->arg, sizeof(pl->arg), "%s", arg);
	snprintf(pl->tried, sizeof(pl->tried), "%s %s", op, shown(arg));
	snprintf(pl->got, sizeof(pl->got), "no answer");
	return pl;
}

static void
not_run(const char *name, const char *tried, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
not_run(const char *name, const char *tried, const char *fmt, ...)
{
	struct probe_line *pl = add(name, "", "");
	va_list ap;

	if (pl == NULL)
		return;
	pl->x = X_NOTRUN;
	snprintf(pl->tried, sizeof(pl->tried), "%s", shown(tried));
	va_start(ap, fmt);
	vsnprintf(pl->expected, sizeof(pl->expected), fmt, ap);
	va_end(ap);
	snprintf(pl->got, sizeof(pl->got), "-");
}

/* DAC for the run's credentials (no capability: the payload holds
 * none, uid 0 included): want of rwx on st. */
static int
dac(const struct run *r, const struct stat *st, unsigned want)
{
	unsigned m = (unsigned)st->st_mode;

	if (st->st_uid == r->final_uid)
		return ((m >> 6) & want) == want;
	if (st->st_gid == r->final_gid)
		return ((m >> 3) & want) == want;
	return (m & want) == want;
}

/* DAC along path: search on every directory above it, want on path
 * itself (st, already looked at). */
static int
dac_path(const struct run *r, const char *path, const struct stat *st,
    unsigned want)
{
	char up[PATH_MAX];
	struct stat ust;
	char *slash;

	snprintf(up, sizeof(up), "%s", path);
	while ((slash = strrchr(up, '/')) != NULL && slash != up) {
		*slash = '\0';
		if (stat(up, &ust) == -1 || !dac(r, &ust, 1))
			return 0;
	}
	if (strcmp(path, "/") != 0 && (stat("/", &ust) == -1 ||
	    !dac(r, &ust, 1)))
		return 0;
	return dac(r, st, want);
}

/* ---- the host's side, made before the clone ---- */

static int
inside_rule(const struct run *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->p.nfs; i++)
		if (plan_path_within(path, r->p.fs[i].path) ||
		    plan_path_within(r->p.fs[i].path, path))
			return 1;
	return 0;
}

static int
copy_file(const char *from, int dfd, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in, o, rc = 0;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	o = openat(dfd, to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (o == -1) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_all(o, buf, (size_t)n) == -1) {
			rc = -1;
			break;
		}
	if (n == -1 || fchmod(o, mode) == -1)
		rc = -1;
	close(in);
	if (close(o) == -1)
		rc = -1;
	return rc;
}

/* A fresh directory outside every rule, each probe's file in it, owned
 * by the run's ids (only the boundary stands in the way). */
static int
make_dir(const struct run *r, char *err, size_t len)
{
	static const char *const bases[] = {"/tmp", "/var/tmp", "/dev/shm",
		"/run"};
	char real[PATH_MAX - 32], path[PATH_MAX];
	size_t i;
	int dfd, fd;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (realpath(bases[i], real) == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/borne-canary.XXXXXX", real);
		if (inside_rule(r, path))
			continue;
		if (mkdtemp(path) == NULL)
			continue;
		snprintf(cn.dir, sizeof(cn.dir), "%s", path);
		break;
	}
	if (cn.dir[0] == '\0') {
		snprintf(cn.nodir, sizeof(cn.nodir), "no directory outside "
		    "the rules could be made (/tmp, /var/tmp, /dev/shm, /run "
		    "each lie beneath a rule or refuse one)");
		return 0;
	}
	if ((dfd = open(cn.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return err_set_sys(err, len, "canary: %s", cn.dir);
	for (i = 0; i < F_N; i++) {
		if (i == F_EXEC) {
			if (copy_file(cn.prog, dfd, fname[i], 0755) == -1)
				goto fail;
		} else {
			fd = openat(dfd, fname[i], O_WRONLY | O_CREAT | O_EXCL |
			    O_CLOEXEC, 0644);
			if (fd == -1 || write_all(fd, FILE_BYTES,
			    strlen(FILE_BYTES)) == -1 || fchmod(fd, 0644) ==
			    -1 || close(fd) == -1)
				goto fail;
		}
		if (fchownat(dfd, fname[i], r->final_uid, r->final_gid,
		    AT_SYMLINK_NOFOLLOW) == -1 ||
		    fstatat(dfd, fname[i], &cn.st[i], AT_SYMLINK_NOFOLLOW) == -1)
			goto fail;
	}
	if (fchown(dfd, r->final_uid, r->final_gid) == -1 ||
	    fchmod(dfd, 0755) == -1)
		goto fail;
	close(dfd);
	return 0;
fail:
	err_set_sys(err, len, "canary: %s/%s", cn.dir, fname[i]);
	close(dfd);
	return -1;
}

static int
listen_tcp(const struct run *r)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	size_t i, tries;
	int fd, taken;

	for (tries = 0; tries < 8; tries++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
		if (fd == -1)
			return -1;
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
		    listen(fd, 4) == -1 ||
		    getsockname(fd, (struct sockaddr *)&sa, &sl) == -1) {
			close(fd);
			return -1;
		}
		cn.tcpport = ntohs(sa.sin_port);
		for (taken = 0, i = 0; i < r->p.nconnect; i++)
			taken |= r->p.connect_tcp[i] == cn.tcpport;
		if (!taken) {
			cn.tcpfd = fd;
			return 0;
		}
		close(fd);	/* a port the plan grants: another */
	}
	errno = EADDRINUSE;
	return -1;
}

static int
listen_abstract(void)
{
	struct sockaddr_un sa;
	size_t n;
	int fd;

	snprintf(cn.absname, sizeof(cn.absname), "borne-canary.%ld.%lx",
	    (long)getpid(), (unsigned long)now_ns(CLOCK_MONOTONIC));
	n = strlen(cn.absname);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, cn.absname, n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct
	    sockaddr_un, sun_path) + 1 + n)) == -1 || listen(fd, 4) == -1) {
		close(fd);
		return -1;
	}
	cn.absfd = fd;
	return 0;
}

/* The paused host process: a grandchild (never a child of confexec's,
 * whose children a run without a pid namespace kills), every signal
 * blocked, until its pipe's other end closes (confexec's end). */
static int
start_target(void)
{
	int life[2], pp[2], st;
	sigset_t all;
	pid_t a, b;

	if (pipe2(life, O_CLOEXEC) == -1)
		return -1;
	if (pipe2(pp, O_CLOEXEC) == -1) {
		close(life[0]);
		close(life[1]);
		return -1;
	}
	fflush(NULL);
	if ((a = fork()) == -1)
		return -1;
	if (a == 0) {
		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		if ((b = fork()) == 0) {
			char c;

			dup2(life[0], 0);
			syscall(SYS_close_range, 1u, ~0u, 0u);
			while (read(0, &c, 1) == -1 && errno == EINTR)
				;
			_exit(0);
		}
		(void)!write(pp[1], &b, sizeof(b));
		_exit(b == -1);
	}
	close(life[0]);
	close(pp[1]);
	while (waitpid(a, &st, 0) == -1 && errno == EINTR)
		;
	if (read(pp[0], &b, sizeof(b)) != (ssize_t)sizeof(b) || b <= 0) {
		close(pp[0]);
		close(life[1]);
		errno = ECHILD;
		return -1;
	}
	close(pp[0]);
	cn.lifefd = life[1];
	cn.target = b;
	cn.targetfd = (int)syscall(SYS_pidfd_open, b, 0);
	return cn.targetfd == -1 ? -1 : 0;
}

/* Whether a TCP listener is on 127.0.0.1 or 0.0.0.0 at port. */
static int
host_listens(uint16_t port)
{
	char line[256], want1[32], want2[32];
	FILE *f = fopen("/proc/net/tcp", "re");
	unsigned st;
	int found = 0;

	if (f == NULL)
		return 0;
	snprintf(want1, sizeof(want1), "0100007F:%04X", port);
	snprintf(want2, sizeof(want2), "00000000:%04X", port);
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char local[64];

		if (sscanf(line, " %*d: %63s %*s %x", local, &st) != 2)
			continue;
		found = st == 0x0a && (strcmp(local, want1) == 0 ||
		    strcmp(local, want2) == 0);
	}
	fclose(f);
	return found;
}

/* ---- the probes ---- */

/* The view's own root listed: there (a directory), and no rule grants
 * reading it unless one names / itself: Landlock alone is in the way. */
static void
probe_list_root(const struct run *r)
{
	struct guard ll[1] = {g_layer(r, L_LANDLOCK)};
	struct probe_line *pl;
	size_t i;

	if ((pl = add("list-root", "list", "/")) == NULL)
		return;
	snprintf(pl->tried, sizeof(pl->tried), "list the entries of /");
	for (i = 0; i < r->p.nfs; i++)
		if (strcmp(r->p.fs[i].path, "/") == 0) {
			pl->x = X_GRANT;
			snprintf(pl->expected, sizeof(pl->expected), "granted "
			    "(%s /)", plan_intent_name(r->p.fs[i].intent));
			return;
		}
	expect_guards(pl, ll, 1);
}

static void
probes_outside(const struct run *r)
{
	struct guard write[2] = {g_layer(r, L_LANDLOCK), g_layer(r, L_MOUNTNS)};
	struct guard meta[1] = {g_layer(r, L_MOUNTNS)};
	struct guard ll[2] = {g_layer(r, L_LANDLOCK), g_layer(r, L_MOUNTNS)};
	struct guard ex[3] = {g_layer(r, L_LANDLOCK), g_layer(r, L_MOUNTNS),
		{"noexec mount", 0, 0}};
	struct statvfs vfs;
	static const char *const names[F_N] = {"write-outside",
		"chmod-outside", "utimes-outside", "read-outside",
		"exec-outside"};
	static const char *const ops[F_N] = {"write", "chmod", "utimes",
		"read", "exec"};
	static const enum host hs[F_N] = {H_BYTES, H_MODE, H_TIMES, H_NONE,
		H_NONE};
	char path[PATH_MAX + 16];
	struct probe_line *pl;
	size_t i;

	for (i = 0; i < F_N; i++) {
		if (cn.dir[0] == '\0') {
			not_run(names[i], ops[i], "not run: %s", cn.nodir);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", cn.dir, fname[i]);
		if ((pl = add(names[i], ops[i], path)) == NULL)
			return;
		pl->h = hs[i];
		pl->file = (int)i;
		if (i == F_WRITE)
			expect_guards(pl, write, 2);
		else if (i == F_CHMOD || i == F_UTIMES)
			expect_guards(pl, meta, 1);
		else if (i == F_READ)
			expect_guards(pl, ll, 2);
		else {
			/* /dev/shm is often noexec: in the way too. */
			ex[2].on = statvfs(cn.dir, &vfs) == 0 &&
			    (vfs.f_flag & ST_NOEXEC);
			expect_guards(pl, ex, 3);
		}
	}
	probe_list_root(r);
}

static void
rw_expect(const struct run *r, struct probe_line *pl, int ok,
    const char *path)
{
	pl->x = ok ? X_GRANT : X_DENY;
	if (ok)
		snprintf(pl->expected, sizeof(pl->expected), "granted (rw rule "
		    "%.400s)", shown(path));
	else
		snprintf(pl->expected, sizeof(pl->expected), "denied (file "
		    "modes on the path, for uid %lu)",
		    (unsigned long)r->final_uid);
}

/* A privileged file beneath the first rw directory rule, as a root
 * container leaves one: a copy of the probe program, the run's own (so
 * that only the boundary stands in the way), setuid and setgid, with a
 * file capability when confexec may set one.  The check of the rw trees
 * (privileged.c) strips it before the run; the probe rewrites it through
 * a shared mapping; the host's side after: its privilege gone, or its
 * bytes unchanged. */
static void
probe_privileged(const struct run *r, const char *dir, int reach)
{
	/* cap_net_raw=ep, vfs_cap_data v2 (tests/helpers/fcapset.c). */
	static const unsigned char cap[20] = { 0x01, 0, 0, 0x02, 0x00, 0x20 };
	struct probe_line *pl;
	int dfd, fd;
	char name[64];
	const char *slash = strcmp(dir, "/") == 0 ? "" : "/";

	snprintf(name, sizeof(name), ".borne-canary-priv.%ld", (long)getpid());
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		not_run("rw-privileged", dir, "not run: %s", strerror(errno));
		return;
	}
	if (copy_file(cn.prog, dfd, name, 0755) == -1 ||
	    fchownat(dfd, name, r->final_uid, r->final_gid,
	    AT_SYMLINK_NOFOLLOW) == -1 ||
	    fchmodat(dfd, name, 06755, 0) == -1) {
		not_run("rw-privileged", dir, "not run: a setuid file could not "
		    "be made there: %s", strerror(errno));
		(void)unlinkat(dfd, name, 0);
		close(dfd);
		return;
	}
	snprintf(cn.priv, sizeof(cn.priv), "%s%s%s", dir, slash, name);
	/* A capability too, when confexec holds CAP_SETFCAP (root). */
	(void)lsetxattr(cn.priv, "security.capability", cap, sizeof(cap), 0);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	cn.privlen = fd == -1 ? -1 : read(fd, cn.privpage,
	    sizeof(cn.privpage));
	if (fd != -1)
		close(fd);
	close(dfd);
	if (cn.privlen == -1 || lstat(cn.priv, &cn.privst) == -1) {
		not_run("rw-privileged", cn.priv, "not run: %s",
		    strerror(errno));
		return;
	}
	if ((pl = add("rw-privileged", "mmapw", cn.priv)) == NULL)
		return;
	snprintf(pl->tried, sizeof(pl->tried), "rewrite %s (mode %04o) "
	    "through a shared mapping", shown(cn.priv),
	    (unsigned)(cn.privst.st_mode & 07777));
	pl->h = H_PRIV;
	rw_expect(r, pl, reach, dir);
	if (reach)
		snprintf(pl->expected + strlen(pl->expected),
		    sizeof(pl->expected) - strlen(pl->expected), ", its "
		    "privilege stripped before the run");
}

int
canary_own(const struct statx *stx)
{
	return cn.priv[0] != '\0' && stx->stx_ino == cn.privst.st_ino &&
	    makedev(stx->stx_dev_major, stx->stx_dev_minor) ==
	    cn.privst.st_dev;
}

/* Inside each rw (and rwx) rule: a directory gets a file created,
 * changed, read and removed; a file is opened for writing only (the
 * user's bytes stay). */
static void
probes_rw(const struct run *r)
{
	static char paths[MAX_RW][PATH_MAX];
	static const char *const ops[] = {"create", "chmod", "read",
		"remove"};
	static const char *const names[] = {"rw-create", "rw-chmod",
		"rw-read", "rw-remove"};
	struct probe_line *pl;
	struct stat st;
	size_t i, j, k = 0, skipped = 0;
	int ok;

	for (i = 0; i < r->p.nfs; i++) {
		const struct plan_fsrule *f = &r->p.fs[i];

		if (f->intent != PLAN_RW && f->intent != PLAN_RWX)
			continue;
		if (k >= MAX_RW) {
			skipped++;
			continue;
		}
		if (stat(f->path, &st) == -1) {
			not_run("rw", f->path, "not run: %s", strerror(errno));
			continue;
		}
		if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) {
			if ((pl = add("rw-write", "openw", f->path)) == NULL)
				return;
			rw_expect(r, pl, dac_path(r, f->path, &st, 2), f->path);
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			not_run("rw", f->path, "not run: neither a directory, "
			    "a regular file nor a character device");
			continue;
		}
		snprintf(paths[k], sizeof(paths[k]), "%s%s.borne-canary.%ld",
		    f->path, strcmp(f->path, "/") == 0 ? "" : "/",
		    (long)getpid());
		ok = dac_path(r, f->path, &st, 3);
		if (k == 0)
			probe_privileged(r, f->path, dac_path(r, f->path, &st,
			    1));
		for (j = 0; j < 4; j++) {
			if ((pl = add(names[j], ops[j], paths[k])) == NULL)
				return;
			pl->h = j == 3 ? H_LEFT : H_NONE;
			rw_expect(r, pl, ok, f->path);
		}
		k++;
	}
	if (skipped > 0)
		not_run("rw", "rules past the first 16", "not run: %zu more rw "
		    "rules", skipped);
}

static void
probes_net(const struct run *r)
{
	const struct plan *p = &r->p;
	struct guard sc = {"seccomp", layers_on(r, L_SECCOMP), 0};
	struct guard tcp[3] = {sc, g_layer(r, L_TCP),
		{"net-namespace (the egress broker's)", p->negress > 0, 0}};
	struct guard abs[3] = {sc, g_scope(r), g_layer(r, L_NETNS)};
	struct probe_line *pl;
	char port[16];
	size_t i, n = 0;

	if ((pl = add("udp", "udp", "-")) != NULL) {
		snprintf(pl->tried, sizeof(pl->tried), "socket AF_INET "
		    "SOCK_DGRAM");
		expect_guards(pl, &sc, 1);
	}
	snprintf(port, sizeof(port), "%u", (unsigned)cn.tcpport);
	if ((pl = add("tcp-ungranted", "tcp", port)) != NULL) {
		snprintf(pl->tried, sizeof(pl->tried), "connect 127.0.0.1:%s",
		    port);
		/* Without the tcp right, seccomp refuses the socket. */
		tcp[0].on = sc.on && !(p->sock & PLAN_SOCK_TCP);
		tcp[0].missing = 0;
		if (p->sock & PLAN_SOCK_TCP)
			expect_guards(pl, tcp + 1, 2);
		else
			expect_guards(pl, tcp, 1);
		pl->h = H_TCP;
	}
	for (i = 0; i < p->nconnect; i++) {
		snprintf(port, sizeof(port), "%u", (unsigned)p->connect_tcp[i]);
		if (p->negress > 0) {
			not_run("tcp-granted", port, "not run: the run's network "
			    "is the egress broker's");
			continue;
		}
		if (n >= MAX_PORTS) {
			not_run("tcp-granted", port, "not run: past the first "
			    "%d ports", MAX_PORTS);
			continue;
		}
		if (!host_listens(p->connect_tcp[i])) {
			not_run("tcp-granted", port, "not run: no host listener "
			    "on 127.0.0.1:%s", port);
			continue;
		}
		if ((pl = add("tcp-granted", "tcp", port)) == NULL)
			return;
		snprintf(pl->tried, sizeof(pl->tried), "connect 127.0.0.1:%s",
		    port);
		pl->x = X_GRANT;
		snprintf(pl->expected, sizeof(pl->expected), "granted "
		    "(connect-tcp %s)", port);
		n++;
	}
	if ((pl = add("abstract-unix", "abstract", cn.absname)) != NULL) {
		snprintf(pl->tried, sizeof(pl->tried), "connect @%s",
		    cn.absname);
		abs[0].on = sc.on && !(p->sock & PLAN_SOCK_UNIX);
		abs[0].missing = 0;
		if (p->sock & PLAN_SOCK_UNIX)
			expect_guards(pl, abs + 1, 2);
		else
			expect_guards(pl, abs, 1);
		pl->h = H_ABSTRACT;
	}
}

static void
probes_egress(const struct run *r)
{
	static char dest[PLAN_MAX_EGRESS][PLAN_MAX_HOST_LEN + 32];
	const struct plan *p = &r->p;
	struct probe_line *pl;
	const char *h;
	size_t i;

	if (p->negress == 0) {
		not_run("egress-unlisted", "CONNECT canary.invalid:443",
		    "not run: the plan has no egress broker (no TCP to "
		    "anywhere but its connect-tcp ports)");
		return;
	}
	for (i = 0; i < p->negress; i++) {
		h = p->egress[i].host;
		/* A suffix wildcard: a name beneath it. */
		if (h[0] == '*')
			snprintf(dest[i], sizeof(dest[i]), "borne-canary%s:%u",
			    h + 1, (unsigned)p->egress[i].port);
		else
			snprintf(dest[i], sizeof(dest[i]), strchr(h, ':') ?
			    "[%s]:%u" : "%s:%u", h,
			    (unsigned)p->egress[i].port);
		if ((pl = add("egress-listed", "egress", dest[i])) == NULL)
			return;
		snprintf(pl->tried, sizeof(pl->tried), "CONNECT %.300s "
		    "(broker)", dest[i]);
		pl->x = X_HTTPOK;
		snprintf(pl->expected, sizeof(pl->expected), "allowed "
		    "(listed)");
	}
	if ((pl = add("egress-unlisted", "egress", "canary.invalid:443")) !=
	    NULL) {
		snprintf(pl->tried, sizeof(pl->tried), "CONNECT "
		    "canary.invalid:443 (broker)");
		pl->x = X_HTTP403;
		snprintf(pl->expected, sizeof(pl->expected), "refused (http "
		    "403: not listed)");
	}
}

static void
probes_daemons(const struct run *r)
{
	static struct daemon_hit hits[MAX_DAEMONS];
	const struct plan *p = &r->p;
	struct probe_line *pl;
	size_t i, j, n = 0;
	int acked, named;

	if (probe_daemons(r->final_uid, r->final_gid, hits, MAX_DAEMONS,
	    &n) == -1 && errno != E2BIG)
		n = 0;
	for (i = 0; i < n; i++) {
		if ((pl = add("daemon", "unix", hits[i].path)) == NULL)
			return;
		snprintf(pl->tried, sizeof(pl->tried), "connect %s (%s)",
		    shown(hits[i].path), hits[i].name);
		for (acked = 0, j = 0; j < p->nack; j++)
			acked |= strcmp(p->ack_daemons[j], hits[i].name) == 0;
		pl->x = X_DENY;
		for (named = 0, j = 0; j < p->nfs; j++)
			named |= plan_path_within(hits[i].path,
			    p->fs[j].path);
		if (!(p->sock & PLAN_SOCK_UNIX))
			snprintf(pl->expected, sizeof(pl->expected),
			    "denied (seccomp: no unix right)");
		else if (layers_on(r, L_MOUNTNS) && !named)
			snprintf(pl->expected, sizeof(pl->expected),
			    "denied (mount-view: no rule names it)");
		else if (!hits[i].connectable)
			snprintf(pl->expected, sizeof(pl->expected),
			    "denied (socket mode, for uid %lu)",
			    (unsigned long)r->final_uid);
		else {
			pl->x = X_GRANT;
			snprintf(pl->expected, sizeof(pl->expected), acked ?
			    "granted (acknowledged: --ack-daemon %s)" :
			    "granted (not acknowledged: degrade)",
			    hits[i].name);
		}
	}
}

static void
probes_process(const struct run *r)
{
	static char uid[48];
	struct guard sig[3] = {g_layer(r, L_PIDNS), g_scope(r),
		{uid, r->final_uid != geteuid(), 0}};
	struct guard sc = {"seccomp", layers_on(r, L_SECCOMP), 0};
	struct guard ipc[2] = {g_layer(r, L_IPCNS), sc};
	struct probe_line *pl;
	char arg[32];

	snprintf(uid, sizeof(uid), "uid %lu", (unsigned long)r->final_uid);
	snprintf(arg, sizeof(arg), "%ld", (long)cn.target);
	if ((pl = add("signal", "signal", arg)) != NULL) {
		snprintf(pl->tried, sizeof(pl->tried), "kill SIGUSR1 to host "
		    "pid %s", arg);
		expect_guards(pl, sig, 3);
		pl->h = H_SIGNAL;
	}
	if ((pl = add("ptrace", "ptrace", arg)) != NULL) {
		snprintf(pl->tried, sizeof(pl->tried), "PTRACE_ATTACH host "
		    "pid %s", arg);
		expect_guards(pl, &sc, 1);
		pl->h = H_TRACE;
	}
	snprintf(arg, sizeof(arg), "%d", cn.msqid);
	if ((pl = add("sysv-ipc", "sysv", arg)) != NULL) {
		snprintf(pl->tried, sizeof(pl->tried), "msgsnd to host queue "
		    "%s", arg);
		/* Without its own IPC namespace, seccomp refuses SysV. */
		ipc[0].missing = 0;
		ipc[1].on = sc.on && !layers_on(r, L_IPCNS);
		expect_guards(pl, ipc, 2);
		pl->h = H_SYSV;
	}
}

static void
probes_limits(const struct run *r)
{
	const struct plan *p = &r->p;
	struct probe_line *pl;
	char arg[32];

	if (p->mem_max != 0 && p->mem_max + (32ull << 20) > MEM_PROBE_MAX)
		not_run("memory", "touch past memory-max", "not run: "
		    "memory-max above %llu MiB", (MEM_PROBE_MAX >> 20) - 32);
	else if (p->mem_max != 0) {
		snprintf(arg, sizeof(arg), "%llu",
		    (unsigned long long)(p->mem_max + (32ull << 20)));
		if ((pl = add("memory", "memory", arg)) == NULL)
			return;
		snprintf(pl->tried, sizeof(pl->tried), "touch %s bytes in a "
		    "child", arg);
		if (layers_on(r, L_MEMORY)) {
			pl->x = X_KILL;
			snprintf(pl->expected, sizeof(pl->expected), "killed "
			    "(memory)");
		} else {
			pl->x = X_GRANT;
			snprintf(pl->expected, sizeof(pl->expected), "granted "
			    "(memory missing)");
		}
	}
	if (p->pids_max != 0 && p->pids_max > PIDS_PROBE_MAX)
		not_run("pids", "fork past pids-max", "not run: pids-max above "
		    "%d", PIDS_PROBE_MAX);
	else if (p->pids_max != 0) {
		snprintf(arg, sizeof(arg), "%llu",
		    (unsigned long long)p->pids_max);
		if ((pl = add("pids", "pids", arg)) == NULL)
			return;
		snprintf(pl->tried, sizeof(pl->tried), "fork %s processes in "
		    "a child", arg);
		if (layers_on(r, L_PIDS)) {
			pl->x = X_DENY;
			pl->want = EAGAIN;
			snprintf(pl->expected, sizeof(pl->expected), "denied "
			    "(pids)");
		} else {
			pl->x = X_GRANT;
			snprintf(pl->expected, sizeof(pl->expected), "granted "
			    "(pids missing)");
		}
	}
}

static void
cleanup(void)
{
	char path[PATH_MAX + 16];
	size_t i;

	if (cn.dir[0] != '\0') {
		for (i = 0; i < F_N; i++) {
			snprintf(path, sizeof(path), "%s/%s", cn.dir, fname[i]);
			(void)unlink(path);
		}
		if (rmdir(cn.dir) == -1)
			warning_sys("canary: residue: %s", cn.dir);
		cn.dir[0] = '\0';
	}
	for (i = 0; i < cn.n; i++)
		if (cn.pl[i].h == H_LEFT)
			(void)unlink(cn.pl[i].arg);
	if (cn.priv[0] != '\0')
		(void)unlink(cn.priv);
	cn.priv[0] = '\0';
	if (cn.msqid != -1)
		(void)msgctl(cn.msqid, IPC_RMID, NULL);
	cn.msqid = -1;
	if (cn.lifefd != -1)
		close(cn.lifefd);	/* the target ends */
	cn.lifefd = -1;
}

/* Move the answers' write end to a descriptor the payload keeps: the
 * plan's keep list gets it, in order. */
static int
keep_pipe(struct run *r, char *err, size_t len)
{
	struct plan *p = &r->p;
	int fds[2], *k;
	size_t i;

	if (p->nkeep >= PLAN_MAX_KEEP)
		return err_set(err, len, "canary: the plan keeps %d "
		    "descriptors already: none is left for the probes' "
		    "answers", PLAN_MAX_KEEP);
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == -1)
		return err_set_sys(err, len, "canary: pipe");
	cn.rfd = fds[0];
	cn.wfd = fds[1];
	/* Blocking for the writer: the answers fit in the pipe. */
	if (fcntl(cn.wfd, F_SETFL, 0) == -1 || fcntl(cn.wfd, F_SETFD, 0) == -1)
		return err_set_sys(err, len, "canary: pipe");
	if ((k = realloc(p->keep_fds, (p->nkeep + 1) * sizeof(int))) == NULL)
		return err_set_sys(err, len, "canary: keep list");
	for (i = p->nkeep; i > 0 && k[i - 1] > cn.wfd; i--)
		k[i] = k[i - 1];
	k[i] = cn.wfd;
	p->keep_fds = k;
	p->nkeep++;
	return 0;
}

/* The probe program, beside confexec's own executable. */
static int
find_prog(char *err, size_t len)
{
	char self[PATH_MAX - 32], *slash;
	struct stat st;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return err_set_sys(err, len, "canary: /proc/self/exe");
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return err_set(err, len, "canary: /proc/self/exe: %s", self);
	*slash = '\0';
	snprintf(cn.prog, sizeof(cn.prog), "%s/%s", self, CANARY_PROG);
	if (stat(cn.prog, &st) == -1)
		return err_set_sys(err, len, "canary: the probe program %s",
		    cn.prog);
	if (!S_ISREG(st.st_mode))
		return err_set(err, len, "canary: the probe program %s is not "
		    "a regular file", cn.prog);
	return 0;
}

/* The plan's program replaced by the probe program and its probes (the
 * rest of the plan as it came). */
static int
replace_program(struct run *r, char *err, size_t len)
{
	struct plan *p = &r->p;
	char fd[16];
	size_t i, a = 0;

	if ((cn.argv = calloc(2 + 2 * cn.n + 1, sizeof(char *))) == NULL)
		return err_set_sys(err, len, "canary: argv");
	snprintf(fd, sizeof(fd), "%d", cn.wfd);
	cn.argv[a++] = strdup(CANARY_PROG);
	cn.argv[a++] = strdup(fd);
	for (i = 0; i < cn.n; i++) {
		if (cn.pl[i].x == X_NOTRUN)
			continue;
		cn.argv[a++] = strdup(cn.pl[i].op);
		cn.argv[a++] = strdup(cn.pl[i].arg);
	}
	for (i = 0; i < a; i++)
		if (cn.argv[i] == NULL)
			return err_set_sys(err, len, "canary: argv");
	cn.argc = a;
	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->program);
	p->argv = NULL;
	p->argc = 0;
	p->program = strdup(cn.prog);
	if (p->program == NULL)
		return err_set_sys(err, len, "canary: program");
	p->argv = cn.argv;
	p->argc = a;
	p->has_sha256 = 0;	/* the pin was the plan's program's */
	p->script_arg = 0;
	return 0;
}

int
canary_prepare(struct run *r, char *err, size_t len)
{
	if (atexit(cleanup) != 0)
		return err_set(err, len, "canary: atexit");
	if ((cn.pl = calloc(MAX_PROBES, sizeof(*cn.pl))) == NULL)
		return err_set_sys(err, len, "canary: probes");
	if (find_prog(err, len) == -1 || keep_pipe(r, err, len) == -1 ||
	    make_dir(r, err, len) == -1)
		return -1;
	if (listen_tcp(r) == -1)
		return err_set_sys(err, len, "canary: TCP listener on "
		    "127.0.0.1");
	if (listen_abstract() == -1)
		return err_set_sys(err, len, "canary: abstract unix listener");
	if (start_target() == -1)
		return err_set_sys(err, len, "canary: the host process");
	if ((cn.msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0666)) == -1)
		return err_set_sys(err, len, "canary: SysV queue");
	probes_outside(r);
	probes_rw(r);
	probes_net(r);
	probes_egress(r);
	probes_daemons(r);
	probes_process(r);
	probes_limits(r);
	return replace_program(r, err, len);
}

/* ---- after the run ---- */

/* The answers so far, read as they come (the source): bounded; past
 * ANSWERS_MAX they are read and dropped (the program answers far less:
 * one short line a probe). */
static char abuf[ANSWERS_MAX + 1];
static size_t alen;

const int *
canary_answers_fd(void)
{
	return &cn.rfd;
}

void
canary_read(void)
{
	char drop[512];
	ssize_t n;

	for (;;) {
		if (alen < ANSWERS_MAX)
			n = read(cn.rfd, abuf + alen, ANSWERS_MAX - alen);
		else
			n = read(cn.rfd, drop, sizeof(drop));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (alen < ANSWERS_MAX)
			alen += (size_t)n;
	}
}

static void
answers(void)
{
	size_t i;
	unsigned long k;
	char *line, *sp, *save = NULL;
	int v;

	canary_read();
	abuf[alen] = '\0';
	/* The answers in argv's order: the k-th probe that ran. */
	for (line = strtok_r(abuf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "start") == 0 || strcmp(line, "end") == 0) {
			*(line[0] == 's' ? &cn.started : &cn.ended) = 1;
			continue;
		}
		k = strtoul(line, &sp, 10);
		if (*sp != ' ')
			continue;
		for (i = 0; i < cn.n; i++) {
			if (cn.pl[i].x == X_NOTRUN)
				continue;
			if (k-- == 0)
				break;
		}
		if (i == cn.n)
			continue;
		sp++;
		if (sscanf(sp, "errno %d", &v) == 1)
			errno_text(v, cn.pl[i].got, sizeof(cn.pl[i].got));
		else if (strncmp(sp, "error ", 6) == 0 ||
		    strcmp(sp, "ok") == 0 || strcmp(sp, "timeout") == 0 ||
		    sscanf(sp, "signal %d", &v) == 1 ||
		    sscanf(sp, "http %d", &v) == 1) {
			esc_name(sp, cn.pl[i].got, sizeof(cn.pl[i].got));
		}
	}
}

static int
accepted(int fd)
{
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (c == -1)
		return 0;
	close(c);
	return 1;
}

/* A field of /proc/PID/status, as text. */
static int
status_field(pid_t pid, const char *key, char *val, size_t size)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			snprintf(val, size, "%s", line + kl + 1 +
			    strspn(line + kl + 1, " \t"));
			val[strcspn(val, "\n")] = '\0';
			found = 1;
		}
	fclose(f);
	return found;
}

static int
target_alive(void)
{
	struct pollfd pf = {cn.targetfd, POLLIN, 0};

	return poll(&pf, 1, 0) == 0;
}

/* The privileged file after the run: 1 when it still carries privilege
 * and its bytes changed (the payload's bytes would run with it). */
static int
host_priv(struct probe_line *pl)
{
	char page[sizeof(cn.privpage)], capb[64];
	struct stat st;
	ssize_t n;
	int fd, capped, priv, same;

	if (lstat(cn.priv, &st) == -1 || st.st_ino != cn.privst.st_ino) {
		snprintf(pl->hostsaw, sizeof(pl->hostsaw), "file %s",
		    errno == ENOENT ? "gone" : "replaced");
		return 1;
	}
	capped = lgetxattr(cn.priv, "security.capability", capb,
	    sizeof(capb)) >= 0 || errno == ERANGE;
	priv = (st.st_mode & (S_ISUID | S_ISGID)) != 0 || capped;
	fd = open(cn.priv, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	n = fd == -1 ? -1 : read(fd, page, sizeof(page));
	if (fd != -1)
		close(fd);
	same = n == cn.privlen && n >= 0 && memcmp(page, cn.privpage,
	    (size_t)n) == 0 && st.st_size == cn.privst.st_size;
	snprintf(pl->hostsaw, sizeof(pl->hostsaw), "mode %04o%s, bytes %s",
	    (unsigned)(st.st_mode & 07777), capped ? " with a capability" :
	    "", same ? "unchanged" : "rewritten");
	return priv && !same;
}

/* The host's side of one probe: what it shows, and 1 when it changed. */
static int
host_side(struct probe_line *pl)
{
	char path[PATH_MAX + 16], v[128], buf[64];
	struct msqid_ds q;
	struct stat st;
	const struct stat *was;
	unsigned long long pend;
	int fd;
	ssize_t n;

	snprintf(pl->hostsaw, sizeof(pl->hostsaw), "-");
	switch (pl->h) {
	case H_NONE:
		return 0;
	case H_BYTES:
	case H_MODE:
	case H_TIMES:
		was = &cn.st[pl->file];
		snprintf(path, sizeof(path), "%s/%s", cn.dir,
		    fname[pl->file]);
		if (lstat(path, &st) == -1) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "file gone "
			    "(%s)", strerror(errno));
			return 1;
		}
		if ((st.st_mode & S_IFMT) != (was->st_mode & S_IFMT) ||
		    st.st_ino != was->st_ino) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "file "
			    "replaced");
			return 1;
		}
		if (st.st_uid != was->st_uid || st.st_gid != was->st_gid) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "owner "
			    "changed");
			return 1;
		}
		if (pl->h == H_MODE && st.st_mode != was->st_mode) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "mode %04o "
			    "-> %04o", (unsigned)(was->st_mode & 07777),
			    (unsigned)(st.st_mode & 07777));
			return 1;
		}
		if (pl->h == H_TIMES &&
		    (st.st_mtim.tv_sec != was->st_mtim.tv_sec ||
		    st.st_mtim.tv_nsec != was->st_mtim.tv_nsec)) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "mtime "
			    "changed");
			return 1;
		}
		if (pl->h == H_BYTES) {
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
			    O_NONBLOCK);
			n = fd == -1 ? -1 : read(fd, buf, sizeof(buf));
			if (fd != -1)
				close(fd);
			if (n != (ssize_t)strlen(FILE_BYTES) ||
			    memcmp(buf, FILE_BYTES, (size_t)n) != 0 ||
			    st.st_size != was->st_size) {
				snprintf(pl->hostsaw, sizeof(pl->hostsaw),
				    "bytes changed (%lld -> %lld)",
				    (long long)was->st_size,
				    (long long)st.st_size);
				return 1;
			}
		}
		snprintf(pl->hostsaw, sizeof(pl->hostsaw), "file unchanged");
		return 0;
	case H_PRIV:
		return host_priv(pl);
	case H_LEFT:
		if (lstat(pl->arg, &st) == 0) {
			(void)unlink(pl->arg);
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "left behind "
			    "(removed)");
			return 1;
		}
		snprintf(pl->hostsaw, sizeof(pl->hostsaw), "gone");
		return 0;
	case H_TCP:
	case H_ABSTRACT:
		if (accepted(pl->h == H_TCP ? cn.tcpfd : cn.absfd)) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "listener "
			    "accepted a connection");
			return 1;
		}
		snprintf(pl->hostsaw, sizeof(pl->hostsaw), "listener saw "
		    "nothing");
		return 0;
	case H_SIGNAL:
	case H_TRACE:
		if (!target_alive()) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "process "
			    "gone");
			return 1;
		}
		if (pl->h == H_TRACE) {
			if (status_field(cn.target, "TracerPid", v, sizeof(v))
			    && strcmp(v, "0") != 0) {
				snprintf(pl->hostsaw, sizeof(pl->hostsaw),
				    "process traced (by %s)", v);
				return 1;
			}
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "process "
			    "alive, untraced");
			return 0;
		}
		pend = 0;
		if (status_field(cn.target, "SigPnd", v, sizeof(v)))
			pend |= strtoull(v, NULL, 16);
		if (status_field(cn.target, "ShdPnd", v, sizeof(v)))
			pend |= strtoull(v, NULL, 16);
		if (pend & (1ull << (SIGUSR1 - 1))) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "process "
			    "got SIGUSR1");
			return 1;
		}
		snprintf(pl->hostsaw, sizeof(pl->hostsaw), "process alive, "
		    "no signal");
		return 0;
	case H_SYSV:
		if (msgctl(cn.msqid, IPC_STAT, &q) == -1) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "queue "
			    "gone (%s)", strerror(errno));
			return 1;
		}
		if (q.msg_qnum != 0 || q.msg_lspid != 0) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw), "queue got "
			    "%lu message(s)", (unsigned long)q.msg_qnum);
			return 1;
		}
		snprintf(pl->hostsaw, sizeof(pl->hostsaw), "queue unchanged");
		return 0;
	}
	return 0;
}

static int
judge(struct probe_line *pl)
{
	int changed = host_side(pl), code;
	char name[32];
	size_t i;

	/* Privilege left on rewritten bytes: never a match. */
	if (pl->h == H_PRIV && changed)
		return 0;
	switch (pl->x) {
	case X_NOTRUN:
		return 1;
	case X_DENY:
		if (changed)
			return 0;
		for (i = 0; i < sizeof(denials) / sizeof(denials[0]); i++) {
			if (pl->want != 0 && denials[i] != pl->want)
				continue;
			errno_text(denials[i], name, sizeof(name));
			if (strcmp(pl->got, name) == 0)
				return 1;
		}
		return 0;
	case X_GRANT:
		return strcmp(pl->got, "ok") == 0;
	case X_KILL:
		return strcmp(pl->got, "signal 9") == 0;
	case X_HTTP403:
		return strcmp(pl->got, "http 403") == 0;
	case X_HTTPOK:
		return strcmp(pl->got, "timeout") == 0 ||
		    (sscanf(pl->got, "http %d", &code) == 1 && code != 403);
	}
	return 0;
}

static int
unanswered(const struct probe_line *pl)
{
	return pl->x != X_NOTRUN && strcmp(pl->got, "no answer") == 0;
}

static const char *
verdict(const struct probe_line *pl)
{
	return pl->x == X_NOTRUN ? "not run" : unanswered(pl) ? "unanswered" :
	    pl->match ? "match" : "MISMATCH";
}

static json_t *
canary_json(const struct run *r)
{
	json_t *o = json_object(), *a = json_array(), *e;
	size_t i;

	for (i = 0; i < cn.n; i++) {
		e = json_object();
		json_object_set_new(e, "probe", json_string(cn.pl[i].name));
		json_object_set_new(e, "tried", json_string(cn.pl[i].tried));
		json_object_set_new(e, "expected",
		    json_string(cn.pl[i].expected));
		json_object_set_new(e, "got", json_string(cn.pl[i].got));
		json_object_set_new(e, "host", json_string(cn.pl[i].hostsaw));
		json_object_set_new(e, "verdict", json_string(verdict(&cn.pl[i])));
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "event", json_string("canary"));
	json_object_set_new(o, "plan_sha256", json_string(r->plan_hex));
	json_object_set_new(o, "probe_sha256", json_string(r->prog_hex));
	json_object_set_new(o, "probes", a);
	json_object_set_new(o, "matched", json_integer((json_int_t)cn.matched));
	json_object_set_new(o, "mismatched", json_integer((json_int_t)cn.bad));
	json_object_set_new(o, "not_run", json_integer((json_int_t)cn.skipped));
	json_object_set_new(o, "unanswered",
	    json_integer((json_int_t)cn.missing));
	json_object_set_new(o, "exit", json_integer(cn.code));
	return o;
}

/* The run ended (the source's finish, before the end record): nothing
 * when the probe program never said "start"; else every probe judged,
 * the lines (or the object) on stdout, the mismatches on stderr, the
 * canary record.  Judged only when it answered every probe in a run
 * that neither timed out, was cancelled nor failed. */
void
canary_finish(struct run *r)
{
	size_t i;
	json_t *o;
	char *txt;

	answers();
	if (!cn.started)
		return;
	for (i = 0; i < cn.n; i++) {
		struct probe_line *pl = &cn.pl[i];

		pl->match = judge(pl);
		if (pl->x == X_NOTRUN)
			cn.skipped++;
		else if (unanswered(pl))
			cn.missing++;
		else if (pl->match)
			cn.matched++;
		else
			cn.bad++;
	}
	cn.code = cn.bad > 0 ? EXIT_NO : EXIT_OK;
	if (cn.missing > 0 || !cn.ended || r->failed || r->timed_out ||
	    r->cancel[0] != '\0') {
		warning("canary: the probe program ended with %zu probe(s) "
		    "unanswered: the plan is not judged", cn.missing);
		cn.code = EXIT_FAIL;
	}
	cn.judged = 1;
	cleanup();
	if (cn.json) {
		o = canary_json(r);
		json_object_del(o, "event");
		txt = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(o);
		if (txt != NULL)
			printf("%s\n", txt);
		free(txt);
	} else {
		for (i = 0; i < cn.n; i++)
			printf("%s\t%s\t%s\t%s\t%s\t%s\n", cn.pl[i].name,
			    cn.pl[i].tried, cn.pl[i].expected, cn.pl[i].got,
			    cn.pl[i].hostsaw, verdict(&cn.pl[i]));
	}
	if (fflush(stdout) == EOF) {
		warning_sys("canary: standard output");
		cn.code = EXIT_FAIL;
	}
	for (i = 0; i < cn.n; i++)
		if (cn.pl[i].x != X_NOTRUN && !cn.pl[i].match &&
		    !unanswered(&cn.pl[i]))
			warning("canary: %s: %s: expected %s, got %s%s%s",
			    cn.pl[i].name, cn.pl[i].tried, cn.pl[i].expected,
			    cn.pl[i].got, strcmp(cn.pl[i].hostsaw, "-") ?
			    "; host: " : "", strcmp(cn.pl[i].hostsaw, "-") ?
			    cn.pl[i].hostsaw : "");
	if (record_wanted(r) && r->started) {
		o = canary_json(r);
		if (record_events(r, &o, 1, "canary record") == -1 &&
		    cn.code == EXIT_OK)
			cn.code = EXIT_FAIL;
	}
}

/* The end record's "canary": the counts and the exit, or null. */
json_t *
canary_summary(void)
{
	if (!cn.judged)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I,s:i}", "matched",
	    (json_int_t)cn.matched, "mismatched", (json_int_t)cn.bad,
	    "not_run", (json_int_t)cn.skipped, "unanswered",
	    (json_int_t)cn.missing, "exit", cn.code);
}

int
canary_exit(int code, const siginfo_t *si)
{
	cleanup();
	if (cn.judged)
		return cn.code;
	if (si == NULL)
		return code;	/* it never ran: the run said why */
	warning("canary: the probe program ended (%s %d) before its first "
	    "probe: the plan is not judged", si->si_code == CLD_EXITED ?
	    "exit" : "signal", si->si_status);
	return EXIT_FAIL;
}
