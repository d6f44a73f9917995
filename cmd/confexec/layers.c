/* SPDX-License-Identifier: ISC */
/* confexec: what the plan asks for, checked against the probe.  Verdicts
 * only: nothing here refuses, prints a refusal or journals; run() does,
 * after the dry-run branch. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "handoff.h"
#include "layers.h"
#include "plan.h"
#include "probe.h"
#include "run.h"

/* Hard layers are never dropped: without them there is no boundary (or
 * no way to end the run's tree).  Soft ones may be, in degrade mode, with
 * a warning.  The cgroup and the pid namespace are soft because each
 * ends the whole tree without the other, and without both confexec, a
 * child subreaper, kills and reaps every descendant left (end.c; what
 * escapes then is in confexec(1)).  A NULL mechanism is judged here, not
 * by the probe. */
static const struct layer template[L_NLAYERS] = {
	[L_CGROUP] = {"cgroup", "cgroup2", 1, 1, V_ENFORCE, ""},
	[L_KILL] = {"cgroup-kill", "cgroup-kill", 1, 1, V_ENFORCE, ""},
	[L_INTO] = {"clone-into-cgroup", "clone-into-cgroup", 1, 1, V_ENFORCE,
	    ""},
	[L_MEMORY] = {"memory", "memory", 1, 0, V_ENFORCE, ""},
	[L_PIDS] = {"pids", "pids", 1, 0, V_ENFORCE, ""},
	[L_CPU] = {"cpu", "cpu", 1, 0, V_ENFORCE, ""},
	[L_LANDLOCK] = {"landlock", "landlock", 0, 1, V_ENFORCE, ""},
	[L_TRUNCATE] = {"landlock-truncate", "landlock-truncate", 1, 1,
	    V_ENFORCE, ""},
	[L_TCP] = {"landlock-tcp", "landlock-tcp", 1, 0, V_ENFORCE, ""},
	[L_SCOPE] = {"landlock-scope", "landlock-scope", 1, 0, V_ENFORCE, ""},
	[L_SECCOMP] = {"seccomp", "seccomp", 0, 1, V_ENFORCE, ""},
	[L_KILLPROC] = {"seccomp-kill-process", "seccomp-kill-process", 0, 1,
	    V_ENFORCE, ""},
	[L_NNP] = {"no-new-privs", "no-new-privs", 0, 1, V_ENFORCE, ""},
	[L_EXECVEAT] = {"execveat", "execveat", 0, 1, V_ENFORCE, ""},
	[L_PIDFD] = {"pidfd", "pidfd", 0, 1, V_ENFORCE, ""},
	[L_PIDNS] = {"pid-namespace", "pid-namespace", 1, 1, V_ENFORCE, ""},
	[L_MOUNTNS] = {"mount-view", NULL, 1, 1, V_ENFORCE, ""},
	[L_IPCNS] = {"ipc-namespace", NULL, 1, 1, V_ENFORCE, ""},
	[L_NETNS] = {"net-namespace", NULL, 1, 0, V_ENFORCE, ""},
	[L_NPROC] = {"rlimit-nproc", NULL, 1, 0, V_ENFORCE, ""},
	/* Without a listener (a filter above ours refuses one: a nested
	 * run) the calls the supervisor would answer are refused EPERM:
	 * stricter, and said. */
	[L_LISTENER] = {"seccomp-listener", "seccomp-listener", 1, 1,
	    V_ENFORCE, ""},
};

void
layers_init(struct run *r)
{
	memcpy(r->layers, template, sizeof(template));
}

/* 1 when layer i is requested and enforced. */
int
layers_on(const struct run *r, int i)
{
	return r->layers[i].wanted && r->layers[i].v == V_ENFORCE;
}

/* Record a degrade-mode warning (printed and journaled by run()). */
void
layers_loud(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nwarnings >= MAX_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(r->warnings[r->nwarnings++], WARN_LEN, fmt, ap);
	va_end(ap);
}

/* Each degrade-mode warning on stderr as one line of at most
 * WARN_SHOWN bytes ("confexec: WARNING: ..."): a longer one is cut at a
 * word and says where it is in full: the start record's "warnings";
 * a layer's reason is whole in confexec --dry-run's "why" too. */
void
layers_say_warnings(const struct run *r)
{
	static const char more[] = " ... (in full: start record, --dry-run)";
	char line[WARN_LEN];
	size_t i, room, cut;
	char *p;

	room = WARN_SHOWN - strlen(prog_name()) - strlen(": WARNING: \n");
	for (i = 0; i < r->nwarnings; i++) {
		snprintf(line, sizeof(line), "%s", r->warnings[i]);
		for (p = line; *p != '\0'; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		if (strlen(line) <= room) {
			warning("WARNING: %s", line);
			continue;
		}
		cut = room - (sizeof(more) - 1);
		while (cut > room / 2 && line[cut] != ' ')
			cut--;
		while (cut > 0 && strchr(" ;:,(", line[cut - 1]) != NULL)
			cut--;
		warning("WARNING: %.*s%s", (int)cut, line, more);
	}
}

/* A plan-level refusal (the first one wins), kept for run(). */
static void
refusal(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
refusal(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->refusal[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(r->refusal, sizeof(r->refusal), fmt, ap);
	va_end(ap);
}

static void
probe_layers(struct run *r)
{
	const struct plan *p = &r->p;
	size_t i;
	int c;

	/* probe() in confexec.c reads the controller files exactly when
	 * one of these three is wanted. */
	r->layers[L_MEMORY].wanted = p->mem_max != 0;
	r->layers[L_PIDS].wanted = p->pids_max != 0;
	r->layers[L_CPU].wanted = p->cpu_quota_us != 0;
	r->layers[L_TCP].wanted = (p->sock & PLAN_SOCK_TCP) != 0;
	r->layers[L_SCOPE].wanted = (p->sock & PLAN_SOCK_UNIX) != 0;
	for (i = 0; i < L_NLAYERS; i++) {
		struct layer *l = &r->layers[i];

		if (!l->wanted || l->mech == NULL)
			continue;
		c = probe_can(&r->pr, l->mech, l->why, sizeof(l->why));
		if (c == 1)
			l->v = V_ENFORCE;
		else if (l->soft && p->mode == PLAN_DEGRADE)
			l->v = V_DEGRADE;
		else
			l->v = V_REFUSE;
		if (c == -1)
			snprintf(l->why, sizeof(l->why),
			    "the probe does not know %s", l->mech);
	}
	/* Below Landlock ABI 3 the seccomp program stands in for the
	 * truncate right (sf_variant: truncate(2), O_TRUNC opens without
	 * write access, openat2), so the layer is enforced, by seccomp. */
	if (r->layers[L_TRUNCATE].v != V_ENFORCE && r->pr.landlock_abi >= 1) {
		r->layers[L_TRUNCATE].name = "seccomp-truncate";
		r->layers[L_TRUNCATE].v = V_ENFORCE;
	}
}

/* The pid namespace: the probe made one in a throwaway child the way
 * confexec will (not root: inside a user namespace), so a container's
 * seccomp profile or missing CAP_SYS_ADMIN is known before anything is
 * created (probens.c). */
static void
judge_pidns(struct run *r)
{
	struct layer *l = &r->layers[L_PIDNS];

	if (access("/proc/self/ns/pid", F_OK) == -1) {
		snprintf(l->why, sizeof(l->why), "no pid namespaces (%s)",
		    strerror(errno));
		l->v = r->p.mode == PLAN_DEGRADE ? V_DEGRADE : V_REFUSE;
	}
}

/* The run's mount, IPC and network namespaces need what its pid
 * namespace needs (root, or a user namespace of confexec's own); without
 * them the kernel no longer bounds what the reason names.  A network of
 * its own for a plan that may make unix sockets but has no host TCP
 * right (an egress plan joins its broker's): a plan with no socket right
 * makes no socket, and one it inherits is the host's whatever the run's
 * network (bind and listen stay checked), so it is spared the cost of a
 * network namespace (about 1.4 ms a launch here). */
static void
judge_views(struct run *r)
{
	static const struct {
		int layer;
		const char *lost;
	} v[] = {
		{L_MOUNTNS, "what no rule names is then there (host daemons' "
		    "sockets, /run, the host's mounts and /etc's secrets), "
		    "the mode, owner, times, xattrs and flags of host files "
		    "outside the rw rules, the host's /proc and a tmpfs for "
		    "the private tmp are not bounded"},
		{L_IPCNS, "SysV IPC stays refused (the host's objects)"},
		{L_NETNS, "abstract unix names and binds are then the host's, "
		    "checked by the supervisor"},
	};
	const struct plan *p = &r->p;
	struct layer *pid = &r->layers[L_PIDNS], *l;
	const char *fix;
	size_t i;

	r->layers[L_NETNS].wanted = p->negress > 0 ||
	    (p->sock & (PLAN_SOCK_UNIX | PLAN_SOCK_TCP)) == PLAN_SOCK_UNIX;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		l = &r->layers[v[i].layer];
		if (!l->wanted)
			continue;
		if (pid->v == V_ENFORCE) {
			l->v = V_ENFORCE;
			continue;
		}
		l->v = p->mode == PLAN_DEGRADE ? V_DEGRADE : V_REFUSE;
		/* The pid namespace's reason names the fix: its part in
		 * parentheses, when it has one. */
		fix = strstr(pid->why, " (");
		snprintf(l->why, sizeof(l->why), "made with the pid namespace, "
		    "refused as it is%.700s; without it %s", fix != NULL ?
		    fix : pid->why[0] ? pid->why : " (no namespaces for this "
		    "caller)", v[i].lost);
	}
}

/* The cgroup's placement without clone3 (a seccomp filter answering
 * ENOSYS, as container runtimes' default profiles do): the payload
 * writes itself into the run's cgroup.procs first, before any other
 * step, and confirms it (child.c); nothing of the payload runs outside.
 * Its own name in the records, so they say how it was placed. */
static void
judge_cgroup(struct run *r)
{
	struct layer *l = &r->layers[L_INTO];

	if (layers_on(r, L_CGROUP) && l->v == V_ENFORCE && !r->pr.clone3)
		l->name = "cgroup-join-before-exec";
}

/* RLIMIT_NPROC binds nothing for a uid-0 payload (the kernel exempts
 * INIT_USER in copy_process), and without a pids controller nothing
 * else bounds the process count. */
static void
judge_nproc(struct run *r)
{
	struct layer *l = &r->layers[L_NPROC];
	size_t i;

	for (i = 0; i < r->p.nrlim; i++)
		if (r->p.rlim[i].resource == RLIMIT_NPROC)
			l->wanted = 1;
	if (!l->wanted || r->final_uid != 0)
		return;
	snprintf(l->why, sizeof(l->why), "the kernel does not enforce "
	    "RLIMIT_NPROC for a uid-0 payload (switch uid, or bound the run "
	    "with a pids limit where the pids controller exists)");
	l->v = r->p.mode == PLAN_DEGRADE ? V_DEGRADE : V_REFUSE;
}

/* The caller's cgroup, where the run's is made: another uid that can
 * write it (or its cgroup.procs) can move the payload out of the run's
 * cgroup, away from its limits and cgroup.kill. */
static void
judge_cgroup_owner(struct run *r)
{
	static const char *const what[] = {"", "/cgroup.procs"};
	char path[PATH_MAX + 16];
	struct stat st;
	size_t i;

	if (!layers_on(r, L_CGROUP))
		return;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s%s", r->pr.cg2_dir, what[i]);
		if (stat(path, &st) == -1)
			continue;
		if (st.st_uid != 0 && st.st_uid != geteuid())
			break;
		if (st.st_mode & (S_IWGRP | S_IWOTH))
			break;
	}
	if (i == 2)
		return;
	if (r->p.mode == PLAN_DEGRADE)
		layers_loud(r, "uid %lu%s can write %s: that user can move "
			"the payload out of the run's cgroup",
		    (unsigned long)st.st_uid,
		    st.st_mode & (S_IWGRP | S_IWOTH) ? " (and others)" : "",
		    path);
	else
		refusal(r, "%s is writable by uid %lu%s: that user could move "
			   "the payload out of the run's cgroup (fix the "
			   "owner, or use --degrade)", path,
		    (unsigned long)st.st_uid,
		    st.st_mode & (S_IWGRP | S_IWOTH) ? " (and others)" : "");
}

int
layers_handoff(const struct run *r)
{
	return (r->p.sock & PLAN_SOCK_UNIX) != 0 && layers_on(r, L_LISTENER);
}

/* Trust handoff (seeds/003): Landlock up to ABI 7 cannot stop connect()
 * to a pathname unix socket. */
static void
check_daemons(struct run *r)
{
	const struct plan *p = &r->p;
	struct daemon_hit hits[16];
	size_t i, j, n;
	int acked;

	/* Strict mode refuses a run without its listener (a soft layer);
	 * degraded, the handoff records are missing, and said. */
	if (r->layers[L_LISTENER].v == V_DEGRADE)
		layers_loud(r, "no seccomp listener: the payload's "
		    "connections to privileged daemons' sockets are not "
		    "recorded (no handoff records)");
	if (probe_daemons(r->final_uid, r->final_gid, hits, 16, &n) == -1) {
		refusal(r, "daemon inventory: %s", strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		if (!hits[i].connectable)
			continue;
		for (acked = 0, j = 0; j < p->nack; j++)
			if (strcmp(p->ack_daemons[j], hits[i].name) == 0)
				acked = 1;
		if (acked)
			continue;
		if (p->mode != PLAN_DEGRADE)
			refusal(r, "plan grants AF_UNIX and the %s socket %s "
				   "is connectable for uid %lu (acknowledge "
				   "with --ack-daemon %s, or use --degrade)",
			    hits[i].name, hits[i].path,
			    (unsigned long)r->final_uid, hits[i].name);
		else
			layers_loud(r, "plan grants AF_UNIX and the %s socket "
				"%s is connectable: the payload can talk to "
				"that privileged daemon",
			    hits[i].name, hits[i].path);
	}
}

/* A descriptor the run inherits (standard output or error, a kept one)
 * connected to a privileged daemon's socket already: the payload talks
 * to that daemon with no connect of its own, so no handoff record; it
 * needs the daemon acknowledged as a connectable socket does, and the
 * start record's warnings name the daemon as the kernel reports it. */
static void
check_kept_daemons(struct run *r)
{
	static struct handoff_inv inv;
	const struct plan *p = &r->p;
	struct handoff_peer pe;
	struct stat st;
	size_t i, j;
	int fd, dom, loaded = 0, acked;
	socklen_t dl;

	for (i = 0; i < p->nkeep + 2; i++) {
		fd = i < 2 ? (int)i + 1 : p->keep_fds[i - 2];
		dl = sizeof(dom);
		if (fstat(fd, &st) == -1 || !S_ISSOCK(st.st_mode) ||
		    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == -1 ||
		    dom != AF_UNIX)
			continue;
		if (!loaded++ && handoff_inventory(&inv, r->final_uid,
		    r->final_gid) == -1) {
			refusal(r, "daemon inventory: %s", strerror(errno));
			return;
		}
		if (handoff_peer(fd, &inv, &pe) != 1 || pe.daemon == NULL)
			continue;
		for (acked = 0, j = 0; j < p->nack; j++)
			acked |= strcmp(p->ack_daemons[j], pe.daemon) == 0;
		if (!acked && p->mode != PLAN_DEGRADE) {
			refusal(r, "%s fd %d is connected to the %s socket %s "
			    "(pid %ld, uid %lu): the payload can talk to that "
			    "privileged daemon (acknowledge with --ack-daemon "
			    "%s, or use --degrade)", i < 2 ? "inherited" :
			    "kept", fd, pe.daemon, pe.socket, (long)pe.pid,
			    (unsigned long)pe.uid, pe.daemon);
			return;
		}
		layers_loud(r, "%s fd %d is connected to the %s socket %s "
		    "(pid %ld, uid %lu, %.512s)%s: the payload's requests on "
		    "it are not recorded", i < 2 ? "inherited" : "kept", fd,
		    pe.daemon, pe.socket, (long)pe.pid, (unsigned long)pe.uid,
		    pe.exe[0] ? pe.exe : "executable unknown",
		    acked ? "" : ", not acknowledged");
	}
}

/* Step 2: every layer's verdict, the final credentials, and r->refusal
 * for a refusal that is not a missing layer. */
void
layers_select(struct run *r)
{
	const struct plan *p = &r->p;

	probe_layers(r);
	judge_pidns(r);
	judge_views(r);
	judge_cgroup(r);
	r->final_uid = p->has_uid ? p->uid : geteuid();
	r->final_gid = p->has_gid ? p->gid : getegid();
	judge_nproc(r);
	judge_cgroup_owner(r);
	/* A uid switch is an authorisation, not a host feature: outside
	 * the caller's subordinate ranges it is refused in both modes. */
	if (p->has_uid && !probe_subuid_ok(&r->pr, p->uid))
		refusal(r, "uid %lu is not in the caller's subordinate uid "
			   "ranges (/etc/subuid)", (unsigned long)p->uid);
	if (p->has_gid && !probe_subgid_ok(&r->pr, p->gid))
		refusal(r, "gid %lu is not in the caller's subordinate gid "
			   "ranges (/etc/subgid)", (unsigned long)p->gid);
	if (p->sock & PLAN_SOCK_UNIX)
		check_daemons(r);
	check_kept_daemons(r);
}

/* What a layer is, for the refusal line ("memory limit requested"). */
static const char *
layer_what(size_t i)
{
	switch (i) {
	case L_MEMORY:
	case L_PIDS:
	case L_CPU:
		return " limit";
	case L_TCP:
		return " (TCP port rules)";
	case L_SCOPE:
		return " (abstract unix and signal scoping)";
	case L_TRUNCATE:
		return " (truncate right)";
	default:
		return "";
	}
}

/* Every refusal, one line each: the plan-level one, else every refused
 * layer ("name: why", the last line saying whether --degrade would run
 * without them).  Returns how many. */
int
layers_refused(const struct run *r, char *msg, size_t len)
{
	size_t i, o = 0;
	int n = 0, hard = 0;

	msg[0] = '\0';
	if (r->refusal[0] != '\0') {
		snprintf(msg, len, "%s", r->refusal);
		return 1;
	}
	for (i = 0; i < L_NLAYERS; i++) {
		const struct layer *l = &r->layers[i];

		if (!l->wanted || l->v != V_REFUSE)
			continue;
		/* Without the cgroup, its kill and placement say nothing
		 * more. */
		if ((i == L_KILL || i == L_INTO) &&
		    r->layers[L_CGROUP].v == V_REFUSE)
			continue;
		if (o < len)
			o += (size_t)snprintf(msg + o, len - o,
			    "%s%s%s: %s", n ? "\n" : "", l->name,
			    layer_what(i), l->why[0] ? l->why : "unavailable");
		hard |= !l->soft;
		n++;
	}
	if (n && o < len)
		snprintf(msg + o, len - o, hard ? " (--degrade does not run "
		    "without %s)" : " (use --degrade to run without %s)",
		    hard ? "a hard layer" : n > 1 ? "them" : "it");
	return n;
}

/* One warning per degraded layer, after the plan-level ones. */
void
layers_warn_degraded(struct run *r)
{
	size_t i;

	for (i = 0; i < L_NLAYERS; i++) {
		if (!r->layers[i].wanted || r->layers[i].v != V_DEGRADE)
			continue;
		if ((i == L_KILL || i == L_INTO) &&
		    r->layers[L_CGROUP].v == V_DEGRADE)
			continue;	/* said with the cgroup */
		layers_loud(r, "running without %s: %s", r->layers[i].name,
		    r->layers[i].why);
	}
	if (r->layers[L_CGROUP].v == V_DEGRADE &&
	    r->layers[L_PIDNS].v == V_ENFORCE)
		layers_loud(r, "no cgroup: the run's tree ends with its pid "
			"namespace; no memory, pids or cpu limit applies");
	else if (r->layers[L_CGROUP].v == V_DEGRADE)
		layers_loud(r, "no cgroup and no pid namespace: confexec, a "
			"child subreaper, kills and reaps every descendant at "
			"the end; a descendant that outlives a SIGKILLed "
			"confexec escapes (confexec(1)); no memory, pids or "
			"cpu limit applies");
}
