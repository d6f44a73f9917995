/* SPDX-License-Identifier: ISC */
/* canary: the host's side of a probe, read after the run (canary.h).
 * One row per way of reading it: the host object looked at, the tests
 * that say it changed, each with its message, in order, and the message
 * when none did. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "canary_int.h"

/* The host object as it is now. */
struct look {
	const struct probe_line *pl;
	const char *path;		/* a file's */
	const struct stat *was;		/* as made */
	struct stat st;
	int err;			/* its look-up's errno, 0 found */
	struct msqid_ds q;
};

/* A test: 1 when the object changed, val for the message. */
typedef int test_fn(struct look *lk, char *val, size_t size);

/* ---- the objects ---- */

/* A file of the outside directory. */
static void
look_file(struct look *lk)
{
	static char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/%s", canary_state.dir,
	    canary_state.fname[lk->pl->file]);
	lk->path = path;
	lk->was = &canary_state.st[lk->pl->file];
	lk->err = lstat(path, &lk->st) == -1 ? errno : 0;
}

/* The file the probe made (and should have removed) itself. */
static void
look_left(struct look *lk)
{
	lk->path = lk->pl->arg;
	lk->err = lstat(lk->path, &lk->st) == -1 ? errno : 0;
}

static void
look_priv(struct look *lk)
{
	lk->path = canary_state.priv;
	lk->was = &canary_state.privst;
	lk->err = lstat(lk->path, &lk->st) == -1 ? errno : 0;
}

static void
look_queue(struct look *lk)
{
	lk->err = msgctl(canary_state.msqid, IPC_STAT, &lk->q) == -1 ? errno :
	    0;
}

/* ---- the tests ---- */

/* Its look-up failed. */
static int
t_gone(struct look *lk, char *val, size_t size)
{
	snprintf(val, size, "%s", strerror(lk->err));
	return lk->err != 0;
}

static int
t_replaced(struct look *lk, char *val, size_t size)
{
	return (lk->st.st_mode & S_IFMT) != (lk->was->st_mode & S_IFMT) ||
	    lk->st.st_ino != lk->was->st_ino;
}

static int
t_owner(struct look *lk, char *val, size_t size)
{
	return lk->st.st_uid != lk->was->st_uid ||
	    lk->st.st_gid != lk->was->st_gid;
}

static int
t_mode(struct look *lk, char *val, size_t size)
{
	snprintf(val, size, "%04o -> %04o",
	    (unsigned)(lk->was->st_mode & 07777),
	    (unsigned)(lk->st.st_mode & 07777));
	return lk->st.st_mode != lk->was->st_mode;
}

static int
t_mtime(struct look *lk, char *val, size_t size)
{
	return lk->st.st_mtim.tv_sec != lk->was->st_mtim.tv_sec ||
	    lk->st.st_mtim.tv_nsec != lk->was->st_mtim.tv_nsec;
}

static int
t_bytes(struct look *lk, char *val, size_t size)
{
	size_t want = strlen(CANARY_FILE_BYTES);
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(lk->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	n = fd == -1 ? -1 : read(fd, buf, sizeof(buf));
	if (fd != -1)
		close(fd);
	snprintf(val, size, "%lld -> %lld", (long long)lk->was->st_size,
	    (long long)lk->st.st_size);
	return n != (ssize_t)want || memcmp(buf, CANARY_FILE_BYTES, want) !=
	    0 || lk->st.st_size != lk->was->st_size;
}

/* Left behind: removed now. */
static int
t_left(struct look *lk, char *val, size_t size)
{
	if (lk->err != 0)
		return 0;
	(void)unlink(lk->path);
	return 1;
}

static int
t_priv_gone(struct look *lk, char *val, size_t size)
{
	snprintf(val, size, "%s", lk->err == ENOENT ? "gone" : "replaced");
	return lk->err != 0 || lk->st.st_ino != lk->was->st_ino;
}

/* The privileged file: changed when it still carries privilege and
 * its bytes changed (the payload's bytes would run with it). */
static int
t_priv_kept(struct look *lk, char *val, size_t size)
{
	char page[sizeof(canary_state.privpage)], capb[64];
	ssize_t n;
	int fd, capped, priv, same;

	capped = lgetxattr(lk->path, "security.capability", capb,
	    sizeof(capb)) >= 0 || errno == ERANGE;
	priv = (lk->st.st_mode & (S_ISUID | S_ISGID)) != 0 || capped;
	fd = open(lk->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	n = fd == -1 ? -1 : read(fd, page, sizeof(page));
	if (fd != -1)
		close(fd);
	same = n == canary_state.privlen && n >= 0 && memcmp(page,
	    canary_state.privpage, (size_t)n) == 0 &&
	    lk->st.st_size == lk->was->st_size;
	snprintf(val, size, "mode %04o%s, bytes %s",
	    (unsigned)(lk->st.st_mode & 07777), capped ?
	    " with a capability" : "", same ? "unchanged" : "rewritten");
	return priv && !same;
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

static int
t_tcp(struct look *lk, char *val, size_t size)
{
	return accepted(canary_state.tcpfd);
}

static int
t_abstract(struct look *lk, char *val, size_t size)
{
	return accepted(canary_state.absfd);
}

/* A field of the paused process's /proc/PID/status, as text. */
static int
status_field(const char *key, char *val, size_t size)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%ld/status",
	    (long)canary_state.target);
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
t_proc_gone(struct look *lk, char *val, size_t size)
{
	struct pollfd pf = {canary_state.targetfd, POLLIN, 0};

	return poll(&pf, 1, 0) != 0;
}

static int
t_traced(struct look *lk, char *val, size_t size)
{
	return status_field("TracerPid", val, size) && strcmp(val, "0") != 0;
}

static int
t_signalled(struct look *lk, char *val, size_t size)
{
	unsigned long long pend = 0;

	if (status_field("SigPnd", val, size))
		pend |= strtoull(val, NULL, 16);
	if (status_field("ShdPnd", val, size))
		pend |= strtoull(val, NULL, 16);
	return (pend & (1ull << (SIGUSR1 - 1))) != 0;
}

static int
t_queue_used(struct look *lk, char *val, size_t size)
{
	snprintf(val, size, "%lu", (unsigned long)lk->q.msg_qnum);
	return lk->q.msg_qnum != 0 || lk->q.msg_lspid != 0;
}

/* ---- the table ---- */

#define TESTS 5

static const struct host {
	void (*look)(struct look *lk);	/* the object (NULL: none) */
	struct {
		test_fn *changed;
		const char *said;	/* %s the test's val */
	} test[TESTS];
	const char *same;	/* %s the last test's val */
	int veto;		/* a change fails a grant too */
} host[H_N] = {
	[H_NONE] = {.same = "-"},
	[H_BYTES] = {.look = look_file, .test = {{t_gone, "file gone (%s)"},
	    {t_replaced, "file replaced"}, {t_owner, "owner changed"},
	    {t_bytes, "bytes changed (%s)"}}, .same = "file unchanged"},
	[H_MODE] = {.look = look_file, .test = {{t_gone, "file gone (%s)"},
	    {t_replaced, "file replaced"}, {t_owner, "owner changed"},
	    {t_mode, "mode %s"}}, .same = "file unchanged"},
	[H_TIMES] = {.look = look_file, .test = {{t_gone, "file gone (%s)"},
	    {t_replaced, "file replaced"}, {t_owner, "owner changed"},
	    {t_mtime, "mtime changed"}}, .same = "file unchanged"},
	[H_LEFT] = {.look = look_left,
	    .test = {{t_left, "left behind (removed)"}}, .same = "gone"},
	[H_PRIV] = {.look = look_priv, .test = {{t_priv_gone, "file %s"},
	    {t_priv_kept, "%s"}}, .same = "%s", .veto = 1},
	[H_TCP] = {.test = {{t_tcp, "listener accepted a connection"}},
	    .same = "listener saw nothing"},
	[H_ABSTRACT] = {.test = {{t_abstract,
	    "listener accepted a connection"}},
	    .same = "listener saw nothing"},
	[H_SIGNAL] = {.test = {{t_proc_gone, "process gone"},
	    {t_signalled, "process got SIGUSR1"}},
	    .same = "process alive, no signal"},
	[H_TRACE] = {.test = {{t_proc_gone, "process gone"},
	    {t_traced, "process traced (by %s)"}},
	    .same = "process alive, untraced"},
	[H_SYSV] = {.look = look_queue, .test = {{t_gone, "queue gone (%s)"},
	    {t_queue_used, "queue got %s message(s)"}},
	    .same = "queue unchanged"},
};

int
canary_host_check(struct probe_line *pl, int *veto)
{
	const struct host *h = &host[pl->h];
	struct look lk = {.pl = pl};
	char val[128] = "";
	size_t i;

	*veto = 0;
	if (h->look != NULL)
		h->look(&lk);
	for (i = 0; i < TESTS && h->test[i].changed != NULL; i++)
		if (h->test[i].changed(&lk, val, sizeof(val))) {
			snprintf(pl->hostsaw, sizeof(pl->hostsaw),
			    h->test[i].said, val);
			*veto = h->veto;
			return 1;
		}
	snprintf(pl->hostsaw, sizeof(pl->hostsaw), h->same, val);
	return 0;
}
