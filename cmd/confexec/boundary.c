/* SPDX-License-Identifier: ISC */
/* confexec: the payload's boundary, assembled in the parent before the
 * clone: the descriptors it inherits, the Landlock rules, the private
 * tmp, the seccomp program and whether it has a listener, the mount
 * view, the environment, the descriptors kept across the close.  run()
 * calls these in its order (a part needs what the one before it made:
 * the view needs the rules' resolved paths, the environment the tmp);
 * the egress source adds its one rule and its proxy variables here too;
 * the journal is checked out of the payload's reach.
 * The child (child.c, payload()) only applies what is in struct run.
 * Each returns 0, or -1 with err set (the caller refuses). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boundary.h"
#include "caps.h"
#include "child.h"
#include "denials.h"
#include "err.h"
#include "fd.h"
#include "imgcache.h"
#include "landlock.h"
#include "layers.h"
#include "mountview.h"
#include "observe.h"
#include "plan.h"
#include "run.h"
#include "sysfilter.h"
#include "tmp.h"
#include "uapi.h"

/* The descriptors the run inherits (stdout, stderr, the kept ones) stay
 * the host's, outside the run's namespaces: a kept one must be open; a
 * directory would let the payload change metadata beneath it past the
 * mount view (fchmodat and fchownat relative to it), refused; a socket
 * is of the host's network, so bind and listen stay the supervisor's
 * (r->host_sock). */
int
boundary_inherited(struct run *r, char *err, size_t len)
{
	struct stat st;
	size_t i;
	int fd;

	r->host_sock = 0;
	for (i = 0; i < r->p.nkeep + 2; i++) {
		fd = i < 2 ? (int)i + 1 : r->p.keep_fds[i - 2];
		if (fstat(fd, &st) == -1) {
			if (i < 2)
				continue;
			return err_set(err, len, "kept fd %d is not open", fd);
		}
		if (S_ISDIR(st.st_mode))
			return err_set(err, len, "%s fd %d is a directory of "
			    "the host's: the payload would change metadata "
			    "beneath it past the mount view (grant its path "
			    "with a rule instead)", i < 2 ? "inherited" :
			    "kept", fd);
		r->host_sock |= S_ISSOCK(st.st_mode);
	}
	return 0;
}

/* Whether the directory dfd is the directory top or beneath it, walking
 * up through "..". */
static int
dir_within(int dfd, const struct stat *top)
{
	struct stat st, up;
	int fd, nfd, depth, in = 0;

	fd = openat(dfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (depth = 0; fd != -1 && depth < 4096; depth++) {
		if (fstat(fd, &st) == -1)
			break;
		if (st.st_dev == top->st_dev && st.st_ino == top->st_ino) {
			in = 1;
			break;
		}
		nfd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (nfd == -1)
			break;
		if (fstat(nfd, &up) == 0 && up.st_dev == st.st_dev &&
		    up.st_ino == st.st_ino) {
			close(nfd);	/* "/": the top */
			break;
		}
		close(fd);
		fd = nfd;
	}
	if (fd != -1)
		close(fd);
	return in;
}

int
boundary_rw_over(const struct run *r, int dfd, const struct stat *file)
{
	const struct plan *p = &r->p;
	struct stat st;
	size_t i;
	int fd, in;

	for (i = 0; i < p->nfs; i++) {
		if (p->fs[i].intent != PLAN_RW && p->fs[i].intent != PLAN_RWX)
			continue;
		fd = open(p->fs[i].path, O_PATH | O_CLOEXEC);
		if (fd == -1)
			continue;
		in = fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) ?
		    dir_within(dfd, &st) : file != NULL &&
		    st.st_dev == file->st_dev && st.st_ino == file->st_ino);
		close(fd);
		if (in)
			return (int)i;
	}
	return -1;
}

/* The file a path names, a symbolic link at its end followed even when
 * it names no file yet (an open with O_CREAT makes that file): its
 * directory's real path in dir (the file's name dropped).  0, or -1. */
static int
journal_dir(const char *path, char *dir, size_t len)
{
	char p[PATH_MAX], link[PATH_MAX], real[PATH_MAX], *slash;
	struct stat st;
	size_t at;
	ssize_t n;
	int hops;

	snprintf(p, sizeof(p), "%s", path);
	for (hops = 0; lstat(p, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
		n = readlink(p, link, sizeof(link) - 1);
		if (hops == 40 || n <= 0)
			return -1;
		link[n] = '\0';
		/* Relative: in place of the link's name.  Absolute: all of
		 * it. */
		slash = strrchr(p, '/');
		at = link[0] == '/' || slash == NULL ? 0 :
		    (size_t)(slash + 1 - p);
		if (snprintf(p + at, sizeof(p) - at, "%s", link) >=
		    (int)(sizeof(p) - at))
			return -1;
	}
	slash = strrchr(p, '/');
	if (slash == NULL)
		snprintf(p, sizeof(p), ".");
	else if (slash == p)
		p[1] = '\0';
	else
		*slash = '\0';
	if (realpath(p, real) == NULL)
		return -1;
	snprintf(dir, len, "%s", real);
	return 0;
}

/* The journal's chain has no key (journalchain(5)): a payload that may
 * write the journal, or a directory it is in (rename, replace), could
 * forge records (a handoff, an end) or cut them, and the chain would
 * still verify.  The file the journal's open reaches is looked at (a
 * symbolic link followed, as the open follows it). */
int
boundary_journal(struct run *r, char *err, size_t len)
{
	char dir[PATH_MAX];
	struct stat st, *file = NULL;
	int dfd, i;

	if (r->journal == NULL)
		return 0;
	if (journal_dir(r->journal, dir, sizeof(dir)) == -1)
		return 0;	/* its open fails and says why */
	if (stat(r->journal, &st) == 0)
		file = &st;
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd == -1)
		return 0;	/* its open fails and says why */
	i = boundary_rw_over(r, dfd, file);
	close(dfd);
	if (i >= 0)
		return err_set(err, len, "journal %s: the payload may write "
		    "%s (rule %s %s) and could forge or cut its records; keep "
		    "the journal where no rw or rwx rule reaches", r->journal,
		    stat(r->p.fs[i].path, &st) == 0 && S_ISDIR(st.st_mode) ?
		    "a directory it is in" : "it",
		    plan_intent_name(r->p.fs[i].intent), r->p.fs[i].path);
	return 0;
}

/* The Landlock ruleset, every rule path resolved (r->real). */
int
boundary_rules(struct run *r, char *err, size_t len)
{
	return ll_build_real(&r->p, r->abi, &r->rulesetfd, &r->real,
	    layers_on(r, L_MOUNTNS) ? &r->rulefd : NULL, err, len);
}

/* The private tmp and TMPDIR.  With the mount view its rule is added by
 * the payload, on the tmpfs (mountview.h); without, on the directory. */
int
boundary_tmp(struct run *r, char *err, size_t len)
{
	if (tmp_make(r, err, len) == -1)
		return -1;
	if (!r->have_tmp || layers_on(r, L_MOUNTNS))
		return 0;
	return ll_add_fd(r->rulesetfd, r->tmpfd, PLAN_RW, r->abi, err, len);
}

/* The seccomp program: the plan's socket shapes, the run's IPC
 * namespace, and bind and listen notified in the host's network (no
 * network of the run's own, or a socket of the host's inherited).  Every
 * variant notifies some call: the filter is loaded with a listener. */
int
boundary_filter(struct run *r, char *err, size_t len)
{
	unsigned v = sf_variant(r->p.sock, r->abi, layers_on(r, L_IPCNS),
	    !layers_on(r, L_NETNS) || r->host_sock);

	if (!layers_on(r, L_LISTENER))
		v |= SF_NO_NOTIFY;

	if (sf_build(v, &r->filter, err, len) == -1)
		return -1;
	r->want_notify = sf_notifies(v);
	/* The observer (observe.h, denials.c): with --explain-denials
	 * every path call the program allows is notified too, observed and
	 * continued; by default only those that can meet a write or
	 * execute denial (obs_writes: read-only opens and lookups stay in
	 * the filter), and only where the filter has a listener anyway
	 * (no listener, no default observer, nothing said); none with
	 * --no-denials.  Without the Landlock layer (degraded) no rule
	 * denies anything: nothing is observed, and with the option that
	 * is said.  The arguments are checked here, in the parent. */
	if (r->explain && !layers_on(r, L_LANDLOCK)) {
		warning("--explain-denials: no Landlock layer in this run: "
		    "no path is denied by the rules, none is named");
		r->explain = 0;
	}
	r->observing = r->explain ? OBSERVE_ALL : !r->no_denials &&
	    layers_on(r, L_LANDLOCK) && r->want_notify ? OBSERVE_WRITES : 0;
	denials_argv(r);
	/* Outside every rule the view has nothing (ENOENT): the observer
	 * names such a path as the host has it. */
	obs_host_names(r->observing && layers_on(r, L_MOUNTNS));
	if (r->observing || layers_handoff(r)) {
		struct sf_watch w[64];
		size_t n = 0, i;

		if (obs_ncalls >= sizeof(w) / sizeof(w[0]))
			return err_set(err, len, "seccomp: %zu observed calls",
			    obs_ncalls);
		for (i = 0; r->observing == OBSERVE_ALL && i < obs_ncalls; i++)
			w[n++] = (struct sf_watch){obs_calls[i], -1, 0};
		for (i = 0; r->observing == OBSERVE_WRITES && i < obs_nwrites;
		    i++)
			w[n++] = obs_writes[i];
		if (layers_handoff(r))	/* the trust handoff (handoffs.h) */
			w[n++] = (struct sf_watch){__NR_connect, -1, 0};
		if (sf_observe_watch(&r->filter, w, n) == -1)
			return err_set_sys(err, len, "seccomp: notifying %s",
			    r->observing ? "path calls" : "connect");
		r->want_notify = 1;
	}
	r->caps_empty = caps_empty();
	if (r->caps_empty == NULL)
		return err_set_sys(err, len, "capability sets");
	return 0;
}

/* A cached image is a file: Landlock sees its execveat. */
int
boundary_image(struct run *r, char *err, size_t len)
{
	if (r->rulesetfd != -1 && imgcache_is_file(r->imgfd) == 1 &&
	    imgcache_grant(r->rulesetfd, r->imgfd) == -1)
		return err_set_sys(err, len, "landlock: rule for the cached "
		    "image");
	return 0;
}

/* The private tmp's size in the view: the plan's memory limit, else
 * half the machine's memory (tmpfs's own default); its pages are charged
 * to the run's memory cgroup either way. */
static uint64_t
tmp_bytes(const struct run *r)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (r->p.mem_max != 0)
		return r->p.mem_max;
	if (pages <= 0 || size <= 0)
		return 1ull << 30;
	return (uint64_t)pages * (uint64_t)size / 2;
}

/* The payload's working directory (entered again inside the view), the
 * mount view (mountview.h), and, as root, the files and devices handed
 * in reopened off the host's mounts (a payload of a caller that is not
 * root has the caller's uid: what it owns there, the caller owns). */
int
boundary_view(struct run *r, char *err, size_t len)
{
	int fds[MV_HAND_MAX];
	size_t i, n = 0;
	struct mv_args a = { &r->p, r->real, r->rulefd, r->userns,
		r->rulesetfd, r->abi, r->have_tmp ? r->tmpdir : NULL,
		r->final_uid, r->final_gid, tmp_bytes(r), r->cwd };

	if (getcwd(r->cwd, sizeof(r->cwd)) == NULL)
		r->cwd[0] = '\0';
	if (!layers_on(r, L_MOUNTNS))
		return 0;
	if (mv_prepare(&r->mv, &a, err, len) == -1)
		return -1;
	/* The walk's descriptors are the clones now (as root); in a user
	 * namespace the payload's walk is checked against their identity. */
	ll_fds_free(r->rulefd, r->p.nfs);
	r->rulefd = NULL;
	if (r->userns)
		return 0;
	/* stdin too when it is the host's /dev/null (a prompt is a memfd
	 * of confexec's own: no file system of the host's). */
	if (!r->p.has_prompt)
		fds[n++] = r->stdinfd;
	fds[n++] = 1;
	fds[n++] = 2;
	for (i = 0; i < r->p.nkeep && n < MV_HAND_MAX; i++)
		fds[n++] = r->p.keep_fds[i];
	if (mv_handed(&r->mv, fds, n, r->final_uid, err, len) == 0)
		return 0;
	if (r->p.mode != PLAN_DEGRADE)
		return -1;
	layers_loud(r, "running with a descriptor of the host's mount: %s",
	    err);
	return 0;
}

/* The environment: the plan's, then TMPDIR (the plan has none of its
 * own then), room for the egress variables. */
int
boundary_env(struct run *r, char *err, size_t len)
{
	size_t i;

	r->envp = calloc(r->p.nenv + ENV_EXTRA + 1, sizeof(char *));
	if (r->envp == NULL)
		return err_set_sys(err, len, "environment");
	for (i = 0; i < r->p.nenv; i++)
		r->envp[i] = r->p.env[i];
	if (r->have_tmp)
		r->envp[i++] = r->tmpenv;
	r->nenvp = i;
	return 0;
}

/* Kept across the close: 0-2, the plan's list, and (close-on-exec, gone
 * at execveat) the image, the ruleset and the listener channel. */
int
boundary_kept(struct run *r, char *err, size_t len)
{
	size_t i;

	fdset_add(&r->keep, 0);
	fdset_add(&r->keep, 1);
	fdset_add(&r->keep, 2);
	for (i = 0; i < r->p.nkeep; i++)
		if (fdset_add(&r->keep, r->p.keep_fds[i]) == -1)
			return err_set_sys(err, len, "kept fd %d",
			    r->p.keep_fds[i]);
	/* The sealed script: the one descriptor of confexec's own the
	 * payload keeps (the child clears its close-on-exec flag). */
	if (r->scriptfd != -1 && fdset_add(&r->keep, r->scriptfd) == -1)
		return err_set_sys(err, len, "descriptor list");
	if (fdset_add(&r->keep, r->imgfd) == -1 ||
	    fdset_add(&r->keep, r->rulesetfd) == -1 ||
	    fdset_add(&r->keep, r->sock[1]) == -1)
		return err_set_sys(err, len, "descriptor list");
	return 0;
}

/* "HTTP_PROXY=http://127.0.0.1:65535" and the others. */
static const char *const proxy_vars[] = { "HTTP_PROXY", "HTTPS_PROXY",
	"http_proxy", "https_proxy", "ALL_PROXY", "all_proxy" };
#define NPROXY (sizeof(proxy_vars) / sizeof(proxy_vars[0]))
_Static_assert(NPROXY + 1 <= ENV_EXTRA, "ENV_EXTRA: TMPDIR and the proxies");
static char proxy_env[NPROXY][48];

/* The run's network, for a plan with egress: made by a child sharing
 * our memory and descriptor table, inside a new network namespace (we
 * stay in ours), loopback up and the broker's listener on 127.0.0.1 at a
 * port the kernel assigns (child_netns).  The payload joins it and has
 * nothing else there; its boundary gets TCP connect to that one port and
 * the proxy variables naming it.  The egress source serves the listener
 * (src_egress.c). */
static int
make_network(struct run *r, char *err, size_t len)
{
	struct borne_clone_args ca;
	struct netns_made m = {-1, -1, 0, "clone3", 0};
	pid_t pid;
	int st;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_VFORK | CLONE_FILES | CLONE_NEWNET;
	ca.exit_signal = 0;
	ca.stack = (uint64_t)(uintptr_t)r->stacks;
	ca.stack_size = CHILD_STACK;
	pid = (pid_t)child_clone(&ca, child_netns, &m);
	if (pid == -1)
		return err_set_sys(err, len, "egress: network namespace");
	while (waitpid(pid, &st, __WALL) == -1 && errno == EINTR)
		;
	if (m.what != NULL) {
		if (m.listenfd != -1)
			close(m.listenfd);
		snprintf(err, len, "egress: network namespace: %s: %s",
		    m.what, strerror(m.err));
		errno = m.err;
		return -1;
	}
	r->egressfd = m.listenfd;
	r->egress_port = m.port;
	r->netnsfd = m.nsfd;
	return 0;
}

int
boundary_egress(struct run *r, char *err, size_t len)
{
	size_t i;

	if (r->p.negress == 0)
		return 0;
	if (make_network(r, err, len) == -1)
		return -1;
	if (r->rulesetfd != -1 && ll_add_connect(r->rulesetfd, r->abi,
		r->egress_port, err, len) == -1)
		return -1;
	for (i = 0; i < NPROXY; i++) {
		snprintf(proxy_env[i], sizeof(proxy_env[i]),
		    "%s=http://127.0.0.1:%u", proxy_vars[i],
		    (unsigned)r->egress_port);
		r->envp[r->nenvp++] = proxy_env[i];
	}
	return 0;
}
