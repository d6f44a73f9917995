/* SPDX-License-Identifier: ISC */
/* confexec: read one LaunchPlan on stdin, build the boundary it asks for,
 * exec the payload inside it, supervise it (confexec(1)).  run() below is
 * the whole run, step by step in the order of SPEC.md; the other files of
 * this directory are its parts (run.h lists them). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "admit.h"
#include "boundary.h"
#include "canary.h"
#include "caps.h"
#include "cgroup.h"
#include "child.h"
#include "clock.h"
#include "dry.h"
#include "end.h"
#include "err.h"
#include "events.h"
#include "explain.h"
#include "hash.h"
#include "image.h"
#include "imgcache.h"
#include "io.h"
#include "layers.h"
#include "options.h"
#include "loop.h"
#include "mountview.h"
#include "plan.h"
#include "privileged.h"
#include "probe.h"
#include "record.h"
#include "run.h"
#include "say.h"
#include "timings.h"
#include "uapi.h"

/* A refusal after the plan decoded: journaled, cgroup removed, 125. */
_Noreturn static void
refuse(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
refuse(struct run *r, const char *fmt, ...)
{
	char msg[REFUSAL_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	end_early(r, EXIT_FAIL, msg);
}

/* Step 1: the plan, read, decoded, validated.  Nothing created yet. */
static void
read_plan(struct run *r)
{
	char err[1024];

	if (plan_read_fd(0, &r->p, err, sizeof(err)) == -1)
		die(EXIT_FAIL, "refusing: plan: %s", err);
	if (plan_validate(&r->p, err, sizeof(err)) == -1)
		die(EXIT_FAIL, "refusing: plan: %s", err);
	sha256_hex(r->p.digest, r->plan_hex);
	/* The egress broker is reached over TCP (launchplan(5)). */
	if (r->p.negress > 0)
		r->p.sock |= PLAN_SOCK_TCP;
}

/* Step 2: what the host can enforce.  Only the probes whose answers are
 * used: subordinate ids for a uid/gid switch, the controller files for a
 * memory, pids or cpu limit, no clone3(CLONE_INTO_CGROUP) dry run (the
 * kernel release answers, and a failing clone3 refuses later); the
 * namespaces and clone3 itself by a throwaway child (probens.c), so that
 * strict mode names every missing layer before anything is made. */
static void
probe(struct run *r)
{
	const struct plan *p = &r->p;

	if (probe_host_mask(&r->pr, PROBE_CALLER | PROBE_CGROUP |
		PROBE_LANDLOCK | PROBE_SECCOMP | PROBE_NNP | PROBE_SYSCALLS |
		PROBE_NS |
		(p->has_uid || p->has_gid ? PROBE_SUBID : 0) |
		(p->mem_max || p->pids_max || p->cpu_quota_us ?
		    PROBE_CONTROLLERS : 0)) == -1)
		refuse(r, "probing the host: %s", strerror(errno));
	layers_init(r);
	layers_select(r);
}

/* Strict refuses before anything is created; degrade says what it
 * drops, on stderr now and in the start record. */
static void
decide(struct run *r)
{
	char msg[REFUSAL_LEN];

	if (layers_refused(r, msg, sizeof(msg)))
		refuse(r, "%s", msg);
	layers_warn_degraded(r);
	layers_say_warnings(r);
}

/* Step 3: the boundary's parts that need nothing made yet (boundary.c):
 * the inherited descriptors, the Landlock ruleset, the private tmp, the
 * seccomp program.  A path missing at run time refuses the whole ruleset
 * here, never a partial one. */
static void
prepare_layers(struct run *r)
{
	char err[1024];

	/* Not root: the pid namespace needs a user namespace, in which
	 * init and the payload hold capabilities until the payload drops
	 * them all, as for root. */
	r->userns = geteuid() != 0 && layers_on(r, L_PIDNS);
	/* clone3 refused (a filter: ENOSYS, as container runtimes answer,
	 * or another errno): clone, and the payload joins its cgroup. */
	if (!r->pr.clone3)
		child_clone3_off();
	r->root = caps_have_setpcap() || r->userns;
	r->abi = r->pr.landlock_abi;
	if (boundary_inherited(r, err, sizeof(err)) == -1 ||
	    boundary_journal(r, err, sizeof(err)) == -1 ||
	    boundary_rules(r, err, sizeof(err)) == -1 ||
	    boundary_tmp(r, err, sizeof(err)) == -1 ||
	    boundary_filter(r, err, sizeof(err)) == -1)
		refuse(r, "%s", err);
}

/* A stale run cgroup reaped: said on stderr (stdout with --reap) and
 * journaled. */
static void
reaped(void *arg, const struct cg_reaped *rp)
{
	struct run *r = arg;
	json_t *ev;

	if (r->reap_only)
		printf("%s %s%s\n", rp->removed ? "reaped" : "not reaped",
		    rp->path, rp->populated ? " (processes killed)" : "");
	else if (!rp->removed)
		warning("residue: stale cgroup %s: %s", rp->path,
		    strerror(rp->err));
	if (r->journal != NULL) {
		ev = events_reaped(rp);
		record_events(r, &ev, 1, "reaped record");
	}
}

/* Step 4: the run's cgroup, limits written before anyone is inside.
 * First, the stale run cgroups of supervisors that are gone (no wait:
 * one whose processes do not die at once stays for the next). */
static void
make_cgroup_reap(struct run *r)
{
	cg_reap(r->pr.cg2_dir, 0, reaped, r);
}

static void
make_cgroup(struct run *r)
{
	struct cg_limits lim;
	char err[1024];

	if (!layers_on(r, L_CGROUP))
		return;
	make_cgroup_reap(r);
	memset(&lim, 0, sizeof(lim));
	if (layers_on(r, L_MEMORY))
		lim.mem_max = r->p.mem_max;
	if (layers_on(r, L_PIDS))
		lim.pids_max = r->p.pids_max;
	if (layers_on(r, L_CPU)) {
		lim.cpu_quota_us = r->p.cpu_quota_us;
		lim.cpu_period_us = r->p.cpu_period_us;
	}
	if (cg_create(&r->cg, r->pr.cg2_dir, r->pr.cg2_self, &lim, err,
		sizeof(err)) == -1)
		refuse(r, "%s", err);
	r->have_cg = 1;
	/* Without clone3 the payload joins the cgroup itself, first
	 * (layers.c, judge_cgroup): the file opened now, with our
	 * credentials (the kernel checks a migration against the opener's). */
	if (!r->pr.clone3) {
		r->cgprocs = openat(r->cg.dirfd, "cgroup.procs",
		    O_WRONLY | O_CLOEXEC);
		if (r->cgprocs == -1)
			refuse(r, "%s/cgroup.procs: %s", r->cg.path,
			    strerror(errno));
	}
}

/* A seal's outcome: a program not found or not executable ends the run
 * as a shell would (127, 126), any other failure refuses it. */
static void
sealed(struct run *r, enum image_err ie, const char *err)
{
	if (ie == IMAGE_NOTFOUND)
		end_early(r, EXIT_NOTFOUND, err);
	if (ie == IMAGE_NOEXEC)
		end_early(r, EXIT_NOEXEC, err);
	if (ie != IMAGE_OK)
		refuse(r, "%s", err);
}

/* Step 5: the sealed image, checked against the pin: as root, from the
 * image cache (imgcache.h) when it can serve it. */
static void
seal_image(struct run *r)
{
	struct imgcache ic;
	enum image_err ie;
	char err[1024];

	if (r->imgcache != NULL)
		(void)imgcache_open(&ic, r->imgcache, 0);
	ie = image_seal_cached(r->imgcache != NULL ? &ic : NULL,
	    r->p.program, r->p.has_sha256 ? r->p.sha256 : NULL, &r->imgfd,
	    r->prog_digest, err, sizeof(err));
	if (r->imgcache != NULL && ic.note[0] != '\0')
		warning("%.120s; sealing a private copy", ic.note);
	if (r->imgcache != NULL)
		imgcache_close(&ic);
	sealed(r, ie, err);
	sha256_hex(r->prog_digest, r->prog_hex);
	explain_interp(r);
	if (boundary_image(r, err, sizeof(err)) == -1)
		refuse(r, "%s", err);
}

/* Step 5 too: a pinned script, sealed and checked like the image; the
 * interpreter reads the sealed copy by its /proc/self/fd path (the run's
 * own procfs shows the payload's descriptors). */
static void
seal_script(struct run *r)
{
	enum image_err ie;
	uint8_t digest[SHA256_LEN];
	char err[1024];
	size_t i;

	if (r->p.script_arg == 0)
		return;
	ie = script_seal(r->p.argv[r->p.script_arg], r->p.script_sha256,
	    &r->scriptfd, digest, err, sizeof(err));
	sealed(r, ie, err);
	sha256_hex(digest, r->script_hex);
	if ((r->argv = calloc(r->p.argc + 1, sizeof(char *))) == NULL)
		refuse(r, "argv: %s", strerror(errno));
	snprintf(r->scriptarg, sizeof(r->scriptarg), "/proc/self/fd/%d",
	    r->scriptfd);
	for (i = 0; i < r->p.argc; i++)
		r->argv[i] = i == r->p.script_arg ? r->scriptarg :
		    r->p.argv[i];
}

/* Step 6: the rest of what the child needs: stdin, the listener
 * channel, and the boundary's parts that need the image (boundary.c):
 * the mount view, the environment, the descriptors it keeps. */
static void
prepare_child(struct run *r)
{
	char err[1024];

	r->stdinfd = r->p.has_prompt ?
	    prompt_memfd(r->p.prompt, r->p.prompt_len) :
	    open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r->stdinfd == -1)
		refuse(r, "stdin for the payload: %s", strerror(errno));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
		r->sock) == -1)
		refuse(r, "listener channel: socketpair(AF_UNIX): %s%s",
		    strerror(errno), errno != EPERM ? "" :
		    " (a seccomp filter refuses AF_UNIX sockets, as a "
		    "confexec payload's does: a nested confexec needs the "
		    "outer plan to grant --unix)");
	if (boundary_view(r, err, sizeof(err)) == -1 ||
	    boundary_env(r, err, sizeof(err)) == -1 ||
	    boundary_kept(r, err, sizeof(err)) == -1)
		refuse(r, "%s", err);
}

/* Step 6 too, last before the start: no privileged file beneath a rw
 * rule (privileged.c), so that nothing the payload may write carries
 * setuid, setgid or a capability from its first instruction on. */
static void
check_privileged(struct run *r)
{
	char err[1024];

	int rc = privileged_check(r, err, sizeof(err));

	/* The start record lists what was found, a refusal's too. */
	r->ev_privileged = privileged_json();
	if (rc == -1)
		refuse(r, "%s", err);
}

/* Step 7: the supervisor's sources (signals blocked from here on), the
 * clock the timeout counts from, then the start record: strict mode
 * runs nothing it cannot journal. */
static void
start(struct run *r)
{
	char err[1024];
	json_t *ev;
	int failed;

	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	r->host_oom0 = end_host_oom_kills();
	r->start_real_ns = now_ns(CLOCK_REALTIME);
	r->state = ST_STARTING;
	say_open();	/* signals blocked: stderr never waited on */
	if (loop_open(r, err, sizeof(err)) == -1)
		refuse(r, "supervisor: %s", err);
	if (record_wanted(r)) {
		r->log.on = 1;
		ev = events_start(r);
		loop_report(r, ev, REPORT_START);
		/* The one wait on the journal before the payload runs:
		 * bounded (record.c). */
		record_hold(1);	/* a failure is said once, below */
		failed = record_events(r, &ev, 1, "start record") == -1 ||
		    record_wait(r, RECORD_WAIT_MS,
		    "before the payload runs") == -1;
		record_hold(0);
		if (failed) {
			r->jnone = 1;
			if (r->journal == NULL)
				refuse(r, "the control socket's log cannot be "
				    "kept");
			if (r->p.mode != PLAN_DEGRADE)
				refuse(r, "%s%s", record_held()[0] ?
				    record_held() :
				    "the journal cannot be written",
				    record_given_up() ? " (no record of this "
				    "run is written)" : "");
			if (record_held()[0])
				warning("%s", record_held());
			r->jfailed = 0;	/* degrade: said, the run goes on */
		} else
			r->started = 1;
	}
}

/* init's and the payload's stacks (the sanitizers' frames are large;
 * untouched pages cost nothing). */
static void
prepare_stacks(struct run *r)
{
	r->stacks = mmap(NULL, 2 * CHILD_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (r->stacks == MAP_FAILED)
		refuse(r, "child stacks: %s", strerror(errno));
}

/* Not root: confexec itself enters a user namespace that maps only its
 * own uid and gid, where it may create the pid namespace (and join it
 * for the payload); files, cgroups and signals still see the same ids. */
static void
enter_userns(struct run *r)
{
	char m[64];

	if (unshare(CLONE_NEWUSER) == -1)
		refuse(r, "user namespace: %s", strerror(errno));
	snprintf(m, sizeof(m), "%lu %lu 1\n", (unsigned long)r->final_uid,
	    (unsigned long)r->final_uid);
	if (write_small(AT_FDCWD, "/proc/self/setgroups", "deny") == -1 ||
	    write_small(AT_FDCWD, "/proc/self/uid_map", m) == -1)
		refuse(r, "user namespace: uid map: %s", strerror(errno));
	snprintf(m, sizeof(m), "%lu %lu 1\n", (unsigned long)r->final_gid,
	    (unsigned long)r->final_gid);
	if (write_small(AT_FDCWD, "/proc/self/gid_map", m) == -1)
		refuse(r, "user namespace: gid map: %s", strerror(errno));
}

/* The init's failure, when it reported one. */
static int
init_failed(struct run *r, struct report *rep)
{
	if (r->init_stage == 0)
		return 0;
	rep->kind = MSG_FAIL;
	rep->stage = r->init_stage - 1;
	rep->err = r->init_err;
	rep->fd = -1;
	return 1;
}

/* After the payload's clone (e: its errno): refused when it failed;
 * else the payload's end of the channel closed. */
static void
spawned(struct run *r, int e)
{
	if (r->pid == -1) {
		if (r->have_cg)
			refuse(r, "%s into %s: %s", child_clone_name(), r->cg.path,
			    strerror(e));
		refuse(r, "%s: %s", child_clone_name(), strerror(e));
	}
	timings_mark(r->stamp, TM_EXEC);
	close(r->sock[1]);
	r->sock[1] = -1;
	/* The payload has its view (or failed): the clones are its. */
	mv_spawned(&r->mv);
}

/* The payload cloned with flags besides these: into the run's cgroup
 * where it is not joined by the payload itself, its pidfd in r->pidfd,
 * on the bottom half of the stacks.  CLONE_VFORK: we resume once it has
 * executed or failed.  Returns its pid, or -1 with errno. */
static pid_t
clone_payload(struct run *r, uint64_t flags)
{
	struct borne_clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | flags;
	if (r->have_cg && r->cgprocs == -1) {
		ca.flags |= CLONE_INTO_CGROUP;
		ca.cgroup = (uint64_t)r->cg.dirfd;
	}
	ca.pidfd = (uint64_t)(uintptr_t)&r->pidfd;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uint64_t)(uintptr_t)r->stacks;
	ca.stack_size = CHILD_STACK;
	return (pid_t)child_clone(&ca, child_payload, r);
}

/* Step 8 without a pid namespace (degrade mode, layers.c): the payload
 * is our child, cloned into the cgroup if there is one, and we become a
 * child subreaper, so that every orphan of its tree (a setsid daemon
 * included) is reparented to us and killed and reaped at the end
 * (end.c, end_tree).  CLONE_VFORK: we resume once it has executed or
 * failed. */
static void
spawn_flat(struct run *r)
{
	int e;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		refuse(r, "PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	r->subreaper = 1;
	r->own_ipc = 0;
	r->newnet = 0;
	r->parent = getpid();
	fflush(NULL);
	r->pid = clone_payload(r, 0);
	e = errno;
	spawned(r, e);
}

/* Step 8: init, pid 1 of a new pid namespace, sharing our memory on its
 * own stack (child.c); then the payload, our own child, into that
 * namespace (setns on init's pidfd) and into the cgroup at creation,
 * never a moment outside either.  CLONE_VFORK: we resume once it has
 * executed or failed.  Where clone3 answers ENOSYS, clone (child.c):
 * the payload then joins the cgroup itself, before any other step.
 * clone_init: init, and we join its namespace; our own pid namespace
 * returned, for after the payload's clone. */
static int
clone_init(struct run *r)
{
	struct borne_clone_args ca;
	struct report rep;
	int ownns, e;
	pid_t ipid;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_PIDFD | CLONE_NEWPID;
	/* init makes the run's IPC namespace while we go on (child.c). */
	r->own_ipc = layers_on(r, L_IPCNS);
	ca.pidfd = (uint64_t)(uintptr_t)&r->initfd;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uint64_t)(uintptr_t)r->stacks + CHILD_STACK;
	ca.stack_size = CHILD_STACK;
	r->parent = getpid();
	fflush(NULL);
	ownns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (ownns == -1)
		refuse(r, "pid namespace: %s", strerror(errno));
	ipid = (pid_t)child_clone(&ca, child_init, r);
	if (ipid == -1)
		refuse(r, "%s (pid namespace): %s", child_clone_name(),
		    strerror(errno));
	if (setns(r->initfd, CLONE_NEWPID) == -1) {
		e = errno;
		/* init may have failed, and ended, already (it wrote its
		 * stage before its exit). */
		if (init_failed(r, &rep))
			exit(end_child_failed(r, &rep));
		end_kill(r);
		refuse(r, "setns (pid namespace): %s", strerror(e));
	}
	return ownns;
}

static void
spawn(struct run *r)
{
	struct report rep;
	int ownns, e;

	if (!layers_on(r, L_PIDNS)) {
		spawn_flat(r);
		return;
	}
	ownns = clone_init(r);
	/* The run's own mounts (its IPC is init's); its own network unless
	 * it joins the egress broker's (made by now, boundary_egress). */
	r->newnet = layers_on(r, L_NETNS) && r->netnsfd == -1;
	r->pid = clone_payload(r, (layers_on(r, L_MOUNTNS) ? CLONE_NEWNS : 0) |
	    (r->newnet ? CLONE_NEWNET : 0));
	e = errno;
	/* Back to our own namespace for any later child (none here; the
	 * sanitizers' leak checker makes one at exit).  Inside our own user
	 * namespace (not root) the host's is out of reach: children stay
	 * in the run's. */
	if (!r->userns && setns(ownns, CLONE_NEWPID) == -1) {
		warning_sys("setns (own pid namespace)");
		r->failed = 1;
	}
	close(ownns);
	if (r->pid == -1) {
		/* A namespace whose init already died takes no process. */
		if (init_failed(r, &rep))
			exit(end_child_failed(r, &rep));
		end_kill(r);
	}
	spawned(r, e);
}

/* One message of the listener channel: 1 read (a listener kept in
 * r->notifyfd), 0 at the end, -1 with errno (EAGAIN with MSG_DONTWAIT
 * when none is there). */
static int
recv_report(struct run *r, struct report *rep, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {rep, sizeof(*rep)};
	struct msghdr mh;
	struct cmsghdr *c;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(r->sock[0], &mh, MSG_CMSG_CLOEXEC | flags);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		return (int)n;
	c = CMSG_FIRSTHDR(&mh);
	if (c != NULL && c->cmsg_level == SOL_SOCKET &&
	    c->cmsg_type == SCM_RIGHTS && rep->kind == MSG_LISTENER &&
	    r->notifyfd == -1)
		memcpy(&r->notifyfd, CMSG_DATA(c), sizeof(int));
	else if (c != NULL) {
		errno = EPROTO;	/* a descriptor where none is expected */
		return -1;
	}
	if (n != (ssize_t)sizeof(*rep) || (mh.msg_flags & MSG_CTRUNC)) {
		errno = EPROTO;
		return -1;
	}
	return 1;
}

/* Step 9: the payload's report (in our memory), the listener it sent,
 * and init's failure if it had one by now (later, its death kills the
 * payload, which ends the run, and it is named then).  Returns 0 when
 * the payload runs, else confexec's exit status. */
static int
child_report(struct run *r)
{
	struct report rep;
	int n;

	/* init's failure first: the payload may have failed of it (waiting
	 * for the IPC namespace init could not make). */
	if (init_failed(r, &rep))
		return end_child_failed(r, &rep);
	if (r->rep.kind == MSG_FAIL)
		return end_child_failed(r, &r->rep);
	while ((n = recv_report(r, &rep, MSG_DONTWAIT)) == 1)
		;
	if (n == -1 && errno != EAGAIN) {
		rep.stage = -1;
		rep.err = errno;
		return end_child_failed(r, &rep);
	}
	if (r->want_notify && r->notifyfd == -1) {
		rep.stage = -1;
		rep.err = EPROTO;
		return end_child_failed(r, &rep);
	}
	return 0;
}

/* The layers decided, then steps 3 to 6: everything made and checked
 * before the run starts. */
static void
prepare(struct run *r)
{
	char err[1024];

	decide(r);
	if (canary_on() && canary_prepare(r, err, sizeof(err)) == -1)
		refuse(r, "%s", err);
	timings_mark(r->stamp, TM_PLAN);
	prepare_layers(r);
	if (admit_open(r, err, sizeof(err)) == -1)
		refuse(r, "%s", err);
	r->ev_registry = admit_json();	/* the start record's, a refusal's too */
	timings_mark(r->stamp, TM_RULES);
	make_cgroup(r);
	timings_mark(r->stamp, TM_CGROUP);
	seal_image(r);
	seal_script(r);
	/* The probe program is confexec's own, as it is free of the pin. */
	if (!canary_on())
		admit_check(r);
	timings_mark(r->stamp, TM_SEAL);
	prepare_child(r);
	prepare_stacks(r);
	timings_mark(r->stamp, TM_VIEW);
	check_privileged(r);
	timings_mark(r->stamp, TM_PRIV);
}

static int
run(struct run *r, int dry)
{
	char err[1024];
	int code;

	read_plan(r);
	probe(r);
	if (dry)
		return dry_run(r);
	prepare(r);
	/* The user namespace first: the run's network is made inside it. */
	if (r->userns)
		enter_userns(r);
	if (boundary_egress(r, err, sizeof(err)) == -1)
		refuse(r, "%s", err);
	start(r);
	timings_mark(r->stamp, TM_START);
	spawn(r);
	code = child_report(r);
	if (code != 0) {
		r->state = ST_ENDED;
		loop_close(r);
		return code;
	}
	/* Step 10: supervision, until a source ends the run. */
	r->state = ST_RUNNING;
	if (loop_run(r) == -1)
		r->failed = 1;
	timings_mark(r->stamp, TM_RUN);
	r->state = ST_ENDING;
	code = end_run(r);
	r->state = ST_ENDED;
	loop_close(r);
	timings_mark(r->stamp, TM_END);
	if (r->timings)
		timings_say(r->stamp);
	return code;
}

/* confexec --reap: the stale run cgroups under the caller's cgroup,
 * each killed, waited for (1 s) and removed. */
static int
reap(struct run *r)
{
	int n;

	if (probe_host_mask(&r->pr, PROBE_CALLER | PROBE_CGROUP) == -1)
		die_sys(EXIT_FAIL, "probing the host");
	if (r->pr.cg2_dir[0] == '\0')
		die(EXIT_FAIL, "reap: no cgroup2 directory for the caller");
	n = cg_reap(r->pr.cg2_dir, 1000, reaped, r);
	if (fflush(stdout) == EOF)
		die_sys(EXIT_FAIL, "writing the list");
	if (n == -1)
		die_sys(EXIT_FAIL, "reap: %s", r->pr.cg2_dir);
	return record_wait(r, RECORD_WAIT_MS, "of the reaping") == 0 ?
	    EXIT_OK : EXIT_FAIL;
}

int
main(int argc, char *argv[])
{
	static struct run r;
	int dry;

	prog_set("confexec");
	timings_mark(r.stamp, TM_BEGIN);
	/* A caller that ignored SIGCHLD would have the kernel reap the
	 * run's init and the resolver before waitid could say how they
	 * ended. */
	if (signal(SIGCHLD, SIG_DFL) == SIG_ERR)
		die_sys(EXIT_FAIL, "SIGCHLD");
	/* A peer that hangs up (a control client, the payload's end of an
	 * egress connection) costs a write EPIPE, never the supervisor's
	 * life and the run's end record.  The payload gets every
	 * disposition back to its default before execveat. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		die_sys(EXIT_FAIL, "SIGPIPE");
	dry = options_read(&r, argc, argv);
	r.imgfd = r.scriptfd = r.stdinfd = r.rulesetfd = r.pidfd =
	    r.notifyfd = -1;
	r.netnsfd = -1;
	r.egressfd = -1;
	r.tmpfd = -1;
	r.initfd = -1;
	r.cgprocs = -1;
	r.sock[0] = r.sock[1] = -1;
	r.cg.dirfd = r.cg.killfd = r.cg.eventsfd = -1;
	if (r.reap_only)
		return reap(&r);
	return run(&r, dry);
}
