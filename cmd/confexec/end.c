/* SPDX-License-Identifier: ISC */
/* confexec: ending a run.  Killing needs only what was opened before the
 * clone (cgroup.kill, cgroup.events, the pidfd): no new descriptor, no
 * allocation until the tree is gone.  Then the exit code, the messages
 * and the end record (one builder, events.c). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "canary.h"
#include "cgroup.h"
#include "child.h"
#include "children.h"
#include "clock.h"
#include "denials.h"
#include "end.h"
#include "err.h"
#include "events.h"
#include "explain.h"
#include "layers.h"
#include "loop.h"
#include "mountview.h"
#include "record.h"
#include "run.h"
#include "scan.h"
#include "tmp.h"
#include "uapi.h"

/* How long the end of a run may take: cgroup.kill to "populated 0". */
#define DRAIN_MS 5000

/* Without a pid namespace (confexec a child subreaper, spawn_flat): how
 * long the tree may take to end, and how many of our children are
 * signalled a round. */
#define TREE_MS DRAIN_MS
#define TREE_BATCH 256

/* SIGKILL to one child of ours (the payload, or an orphan of its tree
 * reparented to us), through a pidfd: an unreaped child's pid is its
 * own, so the signal cannot reach a reused pid (a pid that is not ours
 * any more fails pidfd_open, or is a zombie of ours).  At most
 * TREE_BATCH a round. */
struct killed {
	const struct run *r;
	int n;
};

static int
kill_child(pid_t pid, void *arg)
{
	struct killed *k = arg;
	int pfd;

	if (pid == k->r->pid && k->r->pidfd >= 0) {
		if (syscall(__NR_pidfd_send_signal, k->r->pidfd, SIGKILL, NULL,
		    0) == 0)
			k->n++;
		return k->n >= TREE_BATCH;
	}
	pfd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (pfd < 0)
		return 0;
	if (syscall(__NR_pidfd_send_signal, pfd, SIGKILL, NULL, 0) == 0)
		k->n++;
	close(pfd);
	return k->n >= TREE_BATCH;
}

/* Every child of ours killed: how many were signalled, -1 when none
 * could be listed.  Reading /proc is allowed here: the run is ending
 * and the supervisor owns nothing the payload could hold it with. */
static int
kill_children(struct run *r)
{
	struct killed k = {r, 0};

	return children_each(kill_child, &k) == -1 ? -1 : k.n;
}

/* After the payload is reaped: kill and reap every child left until
 * none remains (ECHILD), TREE_MS at most; a tree still there then is a
 * residue, said.  A round that reaped nothing waits 5 ms (one killed
 * dies at once) before it lists and signals again. */
static void
end_tree(struct run *r, struct outcome *o)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	struct pollfd pfd;
	siginfo_t si;
	int n, reaped;

	if (!r->subreaper)
		return;
	for (;;) {
		n = kill_children(r);
		for (reaped = 0;; reaped++) {
			memset(&si, 0, sizeof(si));
			if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | __WALL) ==
			    -1) {
				if (errno == EINTR)
					continue;
				if (errno == ECHILD)
					return;	/* none left */
				warning_sys("waitid");
				o->residue = 1;
				return;
			}
			if (si.si_pid == 0)
				break;
		}
		if (now_ns(CLOCK_MONOTONIC) - t0 > TREE_MS * 1000000ull) {
			warning("residue: processes of the run still alive "
				"after %d ms", TREE_MS);
			o->residue = 1;
			return;
		}
		if (reaped == 0 && n != 0) {
			/* Killed, not yet dead: a short wait, bounded. */
			pfd.fd = -1;
			pfd.events = 0;
			(void)poll(&pfd, 0, 5);
		}
	}
}

/* SIGKILL to the whole tree: cgroup.kill, and init's pidfd as well: its
 * death ends its pid namespace, which reaches every process of the run
 * even where the cgroup cannot (no cgroup, or moved out of it).
 * Without a pid namespace, every child of ours (end_tree goes on once
 * the payload is reaped). */
void
end_kill(struct run *r)
{
	if (r->subreaper)
		(void)kill_children(r);
	if (r->have_cg && cg_kill(&r->cg) == -1) {
		warning_sys("cgroup.kill %s", r->cg.path);
		r->failed = 1;
	}
	if (r->initfd >= 0 && syscall(__NR_pidfd_send_signal, r->initfd,
		SIGKILL, NULL, 0) == -1 && errno != ESRCH) {
		warning_sys("pidfd_send_signal");
		r->failed = 1;
	}
}

/* Reap the payload (our child: its own status). */
static void
reap(struct run *r, struct outcome *o)
{
	memset(&o->si, 0, sizeof(o->si));
	while (waitid(P_PIDFD, (id_t)r->pidfd, &o->si, WEXITED) == -1)
		if (errno != EINTR) {
			warning_sys("waitid");
			r->failed = 1;
			return;
		}
	o->have_status = 1;
}

/* Reap init if it is gone already.  end_kill killed it (it never exits
 * on its own) and its namespace is empty by now: it is not waited for,
 * its exit can end after ours (our parent, or the reaper above it, reaps
 * it then).  Until every process of its namespace is reaped, the
 * payload included, it could not end anyway. */
static void
reap_init(struct run *r)
{
	siginfo_t si;

	if (r->initfd < 0)
		return;
	while (waitid(P_PIDFD, (id_t)r->initfd, &si, WEXITED | WNOHANG) ==
	    -1 && errno == EINTR)
		;
	close(r->initfd);
	r->initfd = -1;
}

/* Whatever is left in the cgroup (killed by end_kill) waited for; the
 * cgroup removed, or o->residue set. */
static void
drain(struct run *r, struct outcome *o)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	if (!r->have_cg)
		return;
	for (;;) {
		if (cg_wait_empty(&r->cg, 20) == 0)
			break;
		if (now_ns(CLOCK_MONOTONIC) - t0 > DRAIN_MS * 1000000ull) {
			warning("residue: cgroup %s still populated after "
				"%d ms", r->cg.path, DRAIN_MS);
			o->residue = 1;
			return;
		}
	}
	/* cpu.stat: only the journal's end record reports it.  OOM kills
	 * are read before the cgroup goes (unreadable without the memory
	 * controller). */
	if (record_wanted(r) && cg_cpu_usec(&r->cg, &o->cpu_usec) == -1)
		o->cpu_usec = 0;
	o->have_oom = cg_oom_kills(&r->cg, &o->oom) == 0;
	if (cg_remove(&r->cg) == -1) {
		warning_sys("residue: cgroup %s", r->cg.path);
		o->residue = 1;
	}
	r->have_cg = 0;
}

/* The end record, when a start was journaled.  A failed write is an
 * error: a run that succeeded then exits 125 (confexec(1), EXIT
 * STATUS); a failing payload keeps its code. */
static int
journal_end(struct run *r, struct outcome *o)
{
	json_t *ev;

	tmp_end(r);	/* the payload's tree is gone */
	mv_end(&r->mv);
	loop_finish(r);	/* the sources' last events */
	denials_say(r, o);
	/* --canary: the probes' verdict is the run's exit (canary.c). */
	if (canary_on())
		o->code = canary_exit(o->code, o->have_status ? &o->si : NULL);
	if (!record_wanted(r) || !r->started)
		return o->code;
	/* A record of the run that failed already fails its exit. */
	record_collect(r);
	if (r->jfailed && o->code == EXIT_OK)
		o->code = EXIT_FAIL;
	ev = events_end(r, o);
	loop_report(r, ev, REPORT_END);
	if (record_events(r, &ev, 1, "end record") == 0 &&
	    record_wait(r, RECORD_WAIT_MS, "of the run's end") == 0 &&
	    !r->jfailed)
		return o->code;
	return o->code == EXIT_OK ? EXIT_FAIL : o->code;
}

static int
status_code(const struct outcome *o)
{
	if (!o->have_status)
		return EXIT_FAIL;
	switch (o->si.si_code) {
	case CLD_EXITED:
		return o->si.si_status;
	case CLD_KILLED:
	case CLD_DUMPED:
		return 128 + o->si.si_status;
	default:
		return EXIT_FAIL;
	}
}

static void
say_oom(const struct run *r, const struct outcome *o)
{
	if (!o->have_oom || o->oom == 0)
		return;
	if (layers_on(r, L_MEMORY))
		warning("the OOM killer killed %llu process%s of the run "
			"(memory.max %llu)", (unsigned long long)o->oom,
		    o->oom > 1 ? "es" : "", (unsigned long long)r->p.mem_max);
	else
		warning("the OOM killer killed %llu process%s of the run",
		    (unsigned long long)o->oom, o->oom > 1 ? "es" : "");
}

int64_t
end_host_oom_kills(void)
{
	char buf[8192], *p;
	uint64_t n;
	ssize_t k;
	int fd;

	fd = open("/proc/vmstat", O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	k = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (k <= 0)
		return -1;
	buf[k] = '\0';
	p = strstr(buf, "\noom_kill ");
	if (p == NULL)
		return -1;
	p += 10;
	p[strspn(p, "0123456789")] = '\0';
	if (scan_u64(p, 0, INT64_MAX, &n) == -1)
		return -1;
	return (int64_t)n;
}

/* After a payload killed by SIGKILL, before confexec kills anything:
 * whether the run's init had been killed by SIGKILL (by someone else:
 * its namespace's end then killed the payload).  init cannot end before
 * the payload is reaped (the namespace waits for every pid of it), and
 * then ends at once: at most 200 ms are waited, only in this case. */
static int
init_killed(const struct run *r, const struct outcome *o)
{
	struct pollfd pfd = {r->initfd, POLLIN, 0};
	siginfo_t si;

	if (r->initfd < 0 || !o->have_status || o->si.si_code != CLD_KILLED ||
	    o->si.si_status != SIGKILL)
		return 0;
	if (poll(&pfd, 1, 200) <= 0)
		return 0;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, (id_t)r->initfd, &si, WEXITED | WNOHANG |
	    WNOWAIT) == -1)
		return 0;
	return si.si_pid != 0 && si.si_code == CLD_KILLED &&
	    si.si_status == SIGKILL;
}

/* Who killed the payload, when a signal did (o->signal_by), and, for a
 * SIGKILL that confexec did not send (the code confexec itself kills
 * with: its 137 alone would not tell them apart), one line saying so. */
static void
say_signal(const struct run *r, struct outcome *o)
{
	const char *init;
	int64_t host;

	if (!o->have_status || (o->si.si_code != CLD_KILLED &&
	    o->si.si_code != CLD_DUMPED))
		return;
	/* Killed before the loop ended: by confexec's end (end_kill)
	 * otherwise, after a timeout, a cancel or a failure. */
	if (!r->exited) {
		o->signal_by = "confexec";
		return;
	}
	if (o->have_oom && o->oom > 0) {
		o->signal_by = "oom";
		return;
	}
	o->signal_by = o->init_killed ? "outside-init" : "outside";
	if (o->si.si_status != SIGKILL || r->timed_out ||
	    r->cancel[0] != '\0' || r->failed)
		return;
	init = o->init_killed ? " (its init, pid 1 of the run's namespace, "
	    "was killed first)" : "";
	host = r->host_oom0 < 0 ? -1 : end_host_oom_kills();
	if (o->have_oom || host == r->host_oom0)
		warning("killed by SIGKILL from outside confexec: not a "
			"timeout, cancel or OOM kill%s", init);
	else if (host > r->host_oom0)
		warning("killed by SIGKILL from outside confexec: not a "
			"timeout or cancel (the host's OOM killer killed %lld "
			"process%s during the run)%s", (long long)(host -
			r->host_oom0), host - r->host_oom0 > 1 ? "es" : "",
		    init);
	else
		warning("killed by SIGKILL from outside confexec: not a "
			"timeout or cancel (OOM kills cannot be counted "
			"here)%s", init);
}

/* After the loop: the payload exited, timed out, was cancelled, or the
 * supervisor failed.  Returns confexec's exit status. */
int
end_run(struct run *r)
{
	struct outcome o;
	int sig;

	/* init failed after the payload started: its end ended the run. */
	if (r->init_stage != 0) {
		struct report rep = {MSG_FAIL, r->init_stage - 1, r->init_err,
			-1};

		return end_child_failed(r, &rep);
	}
	memset(&o, 0, sizeof(o));
	/* init alive and the cgroup empty: someone moved the run out of
	 * it; the pid namespace still ends it (the kill below is real). */
	if (!r->exited && r->have_cg && cg_wait_empty(&r->cg, 0) == 0)
		warning("the run had left its cgroup %s (moved by a user who "
			"can write its parent); ending it through its pid "
			"namespace", r->cg.path);
	/* Exited on its own: reaped first (it does not wait), so that a
	 * kill of init from outside can be told (init_killed). */
	if (r->exited) {
		reap(r, &o);
		o.init_killed = init_killed(r, &o);
	}
	end_kill(r);
	if (!r->exited)
		reap(r, &o);
	end_tree(r, &o);
	drain(r, &o);
	reap_init(r);
	o.wall_ns = now_ns(CLOCK_MONOTONIC) - ((uint64_t)r->t0.tv_sec *
	    1000000000u + (uint64_t)r->t0.tv_nsec);
	say_oom(r, &o);
	say_signal(r, &o);
	o.code = status_code(&o);
	if (r->failed)		/* said already, in one line */
		o.code = EXIT_FAIL;
	else if (r->timed_out) {
		warning("timed out after %llu ms; the run's tree was killed",
		    (unsigned long long)r->p.timeout_ms);
		o.code = EXIT_TIMEOUT;
	} else if (r->cancel[0] != '\0') {
		warning("cancelled by %s; the run's tree was killed",
		    r->cancel);
		o.code = sscanf(r->cancel, "signal %d", &sig) == 1 ?
		    128 + sig : 128 + SIGHUP;
	}
	return journal_end(r, &o);
}

/* After a child report (or none): reap it, end its cgroup, name the
 * stage, journal the end.  Returns confexec's exit status. */
int
end_child_failed(struct run *r, const struct report *rep)
{
	struct outcome o;
	char why[PATH_MAX * 2 + 256];

	memset(&o, 0, sizeof(o));
	end_kill(r);
	if (r->pid > 0)
		reap(r, &o);
	end_tree(r, &o);
	drain(r, &o);
	reap_init(r);
	o.have_status = 0;
	if ((rep->stage < 0 || rep->stage >= S_NSTAGES) && rep->err != 0)
		snprintf(why, sizeof(why), "child: reading its report: %s",
		    strerror(rep->err));
	else if (rep->stage < 0 || rep->stage >= S_NSTAGES)
		snprintf(why, sizeof(why), "child: init ended without a "
		    "report");
	else if (rep->stage == S_EXEC)
		explain_why(r, rep->err, why, sizeof(why));
	else if (rep->stage == S_MOUNT && r->mv.failed != NULL)
		snprintf(why, sizeof(why), "child: mount view: %s %s: %s",
		    r->mv.failed, r->mv.failed_path != NULL ?
		    r->mv.failed_path : "", strerror(rep->err));
	else if (rep->stage == S_FDVERIFY && rep->fd >= 0)
		snprintf(why, sizeof(why), "child: %s: fd %d is still open",
		    child_stage_name[rep->stage], rep->fd);
	else if (rep->stage == S_FDVERIFY && rep->err == EACCES)
		snprintf(why, sizeof(why), "child: %s: /proc/self/fd: %s "
		    "(a Landlock domain above confexec refuses /proc, as a "
		    "confexec payload's does unless its plan grants it: a "
		    "nested confexec needs the outer plan to grant --ro "
		    "/proc)", child_stage_name[rep->stage], strerror(rep->err));
	else
		snprintf(why, sizeof(why), "child: %s: %s",
		    child_stage_name[rep->stage], strerror(rep->err));
	warning("%s", why);
	o.code = EXIT_FAIL;
	/* An interpreter the host has but no rule names is not in the
	 * view (ENOENT): not executable under the rules, as EACCES. */
	if (rep->stage == S_EXEC && rep->err == ENOENT &&
	    r->interp[0] != '\0' && access(r->interp, F_OK) == 0)
		o.code = EXIT_NOEXEC;
	else if (rep->stage == S_EXEC)
		o.code = rep->err == ENOENT ? EXIT_NOTFOUND :
		    (rep->err == EACCES || rep->err == ENOEXEC) ?
		    EXIT_NOEXEC : EXIT_FAIL;
	o.refused = why;
	return journal_end(r, &o);
}

/* An early end's records: the start record (unless written) and the
 * end record, waited for. */
static void
journal_early(struct run *r, const struct outcome *o)
{
	json_t *ev[2];
	size_t n = 0;

	if (!r->started)
		ev[n++] = events_start_refused(r);
	ev[n++] = events_end(r, o);
	loop_report(r, ev[0], n == 2 ? REPORT_START : REPORT_END);
	if (n == 2)
		loop_report(r, ev[1], REPORT_END);
	if (!record_given_up())
		(void)record_events(r, ev, n, n == 2 ?
		    "start and end records" : "end record");
	else
		while (n > 0)
			json_decref(ev[--n]);
	(void)record_wait(r, RECORD_WAIT_MS, "of the run's end");
}

/* A run that ends before execveat, after the plan decoded: the cgroup
 * removed, one line on stderr, a start/end pair in the journal (unless
 * the start is already there), exit code. */
_Noreturn void
end_early(struct run *r, int code, const char *msg)
{
	struct outcome o;

	memset(&o, 0, sizeof(o));
	if (r->initfd >= 0) {
		end_kill(r);
		reap_init(r);
	}
	tmp_end(r);
	mv_end(&r->mv);
	if (r->have_cg) {
		if (cg_remove(&r->cg) == -1)
			warning_sys("residue: cgroup %s", r->cg.path);
		r->have_cg = 0;
	}
	o.code = code;
	o.refused = msg;
	if (record_wanted(r) && !r->jnone)
		journal_early(r, &o);
	/* The control socket (if made) serves its last answers and goes. */
	r->state = ST_ENDED;
	loop_close(r);
	if (code == EXIT_FAIL) {
		/* One line per refused layer (any_refused). */
		char line[REFUSAL_LEN];
		const char *nl;

		while ((nl = strchr(msg, '\n')) != NULL) {
			snprintf(line, sizeof(line), "%.*s", (int)(nl - msg),
			    msg);
			warning("refusing: %s", line);
			msg = nl + 1;
		}
		die(code, "refusing: %s", msg);
	}
	die(code, "%s", msg);
}
