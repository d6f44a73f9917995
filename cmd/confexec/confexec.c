/* SPDX-License-Identifier: ISC */
/* confexec: read one LaunchPlan on stdin, build the boundary it asks for,
 * exec the payload inside it, supervise it (confexec(1)). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "caps.h"
#include "cgroup.h"
#include "err.h"
#include "fd.h"
#include "hash.h"
#include "image.h"
#include "imgcache.h"
#include "journal.h"
#include "landlock.h"
#include "plan.h"
#include "probe.h"
#include "sysfilter.h"
#include "uapi.h"

static const char USAGE[] = "confexec [--journal FILE] [--dry-run] "
    "[--image-cache DIR | --no-image-cache] < PLAN";

/* The child's stack between clone3 and execveat (the sanitizers' frames
 * are large; untouched pages cost nothing). */
#define CHILD_STACK (1u << 20)

/* How long the end of a run may take: cgroup.kill to "populated 0". */
#define DRAIN_MS 5000

/* ---- layers: what the plan asks for, checked against the probe ---- */

enum verdict { V_ENFORCE, V_DEGRADE, V_REFUSE };

struct layer {
	const char *name;	/* as printed and journaled */
	const char *mech;	/* probe_can() mechanism */
	int soft;		/* may be dropped in degrade mode */
	int wanted;		/* requested by this plan */
	enum verdict v;
	char why[256];
};

enum {
	L_CGROUP, L_KILL, L_INTO, L_MEMORY, L_PIDS, L_CPU, L_LANDLOCK,
	L_TRUNCATE, L_TCP, L_SCOPE, L_SECCOMP, L_KILLPROC, L_NNP, L_EXECVEAT,
	L_PIDFD, L_NLAYERS
};

/* Hard layers are never dropped: without them there is no boundary (or
 * no way to end the run's tree).  Soft ones may be, in degrade mode, with
 * a warning. */
static struct layer layers[L_NLAYERS] = {
	[L_CGROUP] = {"cgroup", "cgroup2", 0, 1, V_ENFORCE, ""},
	[L_KILL] = {"cgroup-kill", "cgroup-kill", 0, 1, V_ENFORCE, ""},
	[L_INTO] = {"clone-into-cgroup", "clone-into-cgroup", 0, 1, V_ENFORCE,
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
};

/* Degrade-mode warnings, printed and journaled with the start record. */
#define MAX_WARN 24
static char warnings[MAX_WARN][320];
static size_t nwarnings;

static void
loud(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
loud(const char *fmt, ...)
{
	char buf[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	warning("WARNING: %s", buf);
	if (nwarnings < MAX_WARN)
		memcpy(warnings[nwarnings++], buf, sizeof(buf));
}

/* ---- the child's report: stage + errno over a close-on-exec pipe ---- */

enum stage {
	S_CGROUP, S_SETSID, S_SIGNALS, S_SECUREBITS, S_BOUNDING, S_CREDS,
	S_PDEATHSIG, S_STDIN, S_FDCLOSE, S_FDVERIFY, S_RLIMIT, S_CAPS, S_NNP,
	S_LANDLOCK, S_SECCOMP, S_EXEC
};
static const char *const stage_name[] = {
	"cgroup membership", "setsid", "signals", "securebits",
	"bounding set", "uid/gid switch", "parent-death signal", "stdin",
	"closing descriptors", "verifying descriptors", "rlimits",
	"dropping capabilities", "no_new_privs", "landlock", "seccomp",
	"execveat",
};

struct report {
	int stage;
	int err;
	int fd;		/* S_FDVERIFY: the fd found open */
};

/* Everything prepared in the parent for the child: the child only does
 * syscalls (and libcap calls on these). */
struct run {
	struct plan p;
	struct probe pr;
	const char *journal;
	const char *imgcache;	/* NULL: no image cache */
	char plan_hex[SHA256_HEX_LEN + 1];
	char prog_hex[SHA256_HEX_LEN + 1];
	uint8_t prog_digest[SHA256_LEN];
	struct cg cg;
	int have_cg;
	int imgfd;
	int stdinfd;
	int rulesetfd;
	int abi;
	struct sock_fprog filter;
	struct fdset keep;
	char **envp;
	int root;		/* holds CAP_SETPCAP: lock and drop */
	sigset_t oldmask;
	int errpipe[2];
	uid_t final_uid;
	gid_t final_gid;
	pid_t parent;
	struct timespec t0;
	int started;		/* the start record is journaled */
};

/* clone3 with the child running fn(arg) on its own stack and exiting
 * from there (it never returns): the register dance a libc's clone()
 * does, so that CLONE_VM|CLONE_VFORK works without sharing the parent's
 * stack frames.  Returns the child's pid (or -1 with errno) in the
 * parent, which CLONE_VFORK resumes only once the child has called
 * execve or exited. */
static long
clone3_run(struct borne_clone_args *ca, void (*fn)(void *),
    void *arg)
{
	register void (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "ud2\n"
			 "1:\n\t"
			 : "=a"(ret)
			 : "0"((long)__NR_clone3), "D"(ca), "S"(sizeof(*ca)),
			 "r"(r12), "r"(r13)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

static uint64_t
now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- journal events ---- */

static json_t *
layers_json(enum verdict v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < L_NLAYERS; i++)
		if (layers[i].wanted && layers[i].v == v)
			json_array_append_new(a, json_string(layers[i].name));
	return a;
}

static json_t *
event_start(const struct run *r)
{
	char buf[32];
	json_t *o = json_object(), *w;
	size_t i;

	json_object_set_new(o, "event", json_string("start"));
	json_object_set_new(o, "plan", json_string(r->plan_hex));
	json_object_set_new(o, "program", json_string(r->p.program));
	json_object_set_new(o, "program_sha256",
	    r->prog_hex[0] ? json_string(r->prog_hex) : json_null());
	snprintf(buf, sizeof(buf), "%lu", (unsigned long)r->final_uid);
	json_object_set_new(o, "uid", json_string(buf));
	snprintf(buf, sizeof(buf), "%lu", (unsigned long)r->final_gid);
	json_object_set_new(o, "gid", json_string(buf));
	json_object_set_new(o, "mode", json_string(r->p.mode == PLAN_DEGRADE ?
		"degrade" : "strict"));
	json_object_set_new(o, "layers", layers_json(V_ENFORCE));
	json_object_set_new(o, "degraded", layers_json(V_DEGRADE));
	w = json_array();
	for (i = 0; i < nwarnings; i++)
		json_array_append_new(w, json_string(warnings[i]));
	json_object_set_new(o, "warnings", w);
	json_object_set_new(o, "cgroup",
	    r->have_cg ? json_string(r->cg.path) : json_null());
	snprintf(buf, sizeof(buf), "%llu",
	    (unsigned long long)now_ns(CLOCK_REALTIME));
	json_object_set_new(o, "time_ns", json_string(buf));
	return o;
}

/* Append events (consumed); returns 0 or -1 with a warning printed. */
static int
journal_events(const struct run *r, json_t **ev, size_t n)
{
	char *txt[2] = {NULL, NULL}, err[256];
	size_t i;
	int rc = -1;

	if (r->journal == NULL) {
		for (i = 0; i < n; i++)
			json_decref(ev[i]);
		return 0;
	}
	for (i = 0; i < n && i < 2; i++) {
		txt[i] = json_dumps(ev[i], JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(ev[i]);
		if (txt[i] == NULL)
			goto out;
	}
	if (journal_append(r->journal, (const char *const *)txt, n, err,
		sizeof(err)) == 0)
		rc = 0;
	else
		warning("journal %s: %s", r->journal, err);
out:
	free(txt[0]);
	free(txt[1]);
	return rc;
}

/* An end record for a run that never reached execveat (exit code, why). */
static json_t *
event_end_early(const struct run *r, int code, const char *why)
{
	json_t *o = json_object();

	json_object_set_new(o, "event", json_string("end"));
	json_object_set_new(o, "plan", json_string(r->plan_hex));
	json_object_set_new(o, "exit", json_integer(code));
	json_object_set_new(o, "refused", json_string(why));
	return o;
}

/* A run that ends before execveat, after the plan decoded: the cgroup
 * removed, one line on stderr, a start/end pair in the journal (unless
 * the start is already there), exit code. */
_Noreturn static void
end_early(struct run *r, int started, int code, const char *msg)
{
	json_t *ev[2];
	size_t n = 0;

	if (r->have_cg) {
		if (cg_remove(&r->cg) == -1)
			warning_sys("residue: cgroup %s", r->cg.path);
		r->have_cg = 0;
	}
	if (r->journal != NULL) {
		if (!started)
			ev[n++] = event_start(r);
		ev[n++] = event_end_early(r, code, msg);
		journal_events(r, ev, n);
	}
	if (code == EXIT_FAIL)
		die(code, "refusing: %s", msg);
	die(code, "%s", msg);
}

/* A refusal after the plan decoded (a start record only when none was
 * journaled yet). */
_Noreturn static void
refuse(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
refuse(struct run *r, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	end_early(r, r->started, EXIT_FAIL, msg);
}

/* ---- step 2: mode selection ---- */

static void
select_layers(struct run *r)
{
	const struct plan *p = &r->p;
	struct daemon_hit hits[16];
	size_t i, j, n;
	int c, acked;

	layers[L_MEMORY].wanted = p->mem_max != 0;
	layers[L_PIDS].wanted = p->pids_max != 0;
	layers[L_CPU].wanted = p->cpu_quota_us != 0;
	layers[L_TCP].wanted = (p->sock & PLAN_SOCK_TCP) != 0;
	layers[L_SCOPE].wanted = (p->sock & PLAN_SOCK_UNIX) != 0;
	for (i = 0; i < L_NLAYERS; i++) {
		struct layer *l = &layers[i];

		if (!l->wanted)
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
	if (layers[L_TRUNCATE].v != V_ENFORCE && r->pr.landlock_abi >= 1) {
		layers[L_TRUNCATE].name = "seccomp-truncate";
		layers[L_TRUNCATE].v = V_ENFORCE;
	}

	r->final_uid = p->has_uid ? p->uid : geteuid();
	r->final_gid = p->has_gid ? p->gid : getegid();
	/* A uid switch is an authorisation, not a host feature: outside
	 * the caller's subordinate ranges it is refused in both modes. */
	if (p->has_uid && !probe_subuid_ok(&r->pr, p->uid))
		refuse(r, "uid %lu is not in the caller's subordinate uid "
			  "ranges (/etc/subuid)", (unsigned long)p->uid);
	if (p->has_gid && !probe_subgid_ok(&r->pr, p->gid))
		refuse(r, "gid %lu is not in the caller's subordinate gid "
			  "ranges (/etc/subgid)", (unsigned long)p->gid);

	/* Trust handoff (seeds/003): Landlock up to ABI 7 cannot stop
	 * connect() to a pathname unix socket. */
	if (p->sock & PLAN_SOCK_UNIX) {
		if (probe_daemons(r->final_uid, r->final_gid, hits, 16, &n) ==
		    -1)
			refuse(r, "daemon inventory: %s", strerror(errno));
		for (i = 0; i < n; i++) {
			if (!hits[i].connectable)
				continue;
			for (acked = 0, j = 0; j < p->nack; j++)
				if (strcmp(p->ack_daemons[j], hits[i].name) ==
				    0)
					acked = 1;
			if (acked)
				continue;
			if (p->mode != PLAN_DEGRADE)
				refuse(r, "plan grants AF_UNIX and the %s "
					  "socket %s is connectable for uid "
					  "%lu (acknowledge with --ack-daemon "
					  "%s, or use --degrade)",
				    hits[i].name, hits[i].path,
				    (unsigned long)r->final_uid,
				    hits[i].name);
			loud("plan grants AF_UNIX and the %s socket %s is "
			     "connectable: the payload can talk to that "
			     "privileged daemon",
			    hits[i].name, hits[i].path);
		}
	}
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

/* Every refused layer in one line ("a requested but why; b requested
 * but why (use --degrade ...)"); returns how many. */
static int
any_refused(char *msg, size_t len)
{
	size_t i, o = 0;
	int n = 0, hard = 0;

	msg[0] = '\0';
	for (i = 0; i < L_NLAYERS; i++) {
		if (!layers[i].wanted || layers[i].v != V_REFUSE)
			continue;
		if (o < len)
			o += (size_t)snprintf(msg + o, len - o,
			    "%s%s%s requested but %s", n ? "; " : "",
			    layers[i].name, layer_what(i),
			    layers[i].why[0] ? layers[i].why : "unavailable");
		hard |= !layers[i].soft;
		n++;
	}
	if (n && !hard && o < len)
		snprintf(msg + o, len - o, " (use --degrade to run without %s)",
		    n > 1 ? "them" : "it");
	return n;
}

static void
warn_degraded(void)
{
	size_t i;

	for (i = 0; i < L_NLAYERS; i++)
		if (layers[i].wanted && layers[i].v == V_DEGRADE)
			loud("running without %s: %s", layers[i].name,
			    layers[i].why);
}

/* ---- step 6: dry run ---- */

static int
dry_run(struct run *r)
{
	const char *vs[] = {"enforce", "degrade", "refuse"};
	json_t *o, *a, *l;
	char msg[1024];
	size_t i;
	int refused;

	o = json_object();
	json_object_set_new(o, "plan", plan_to_json(&r->p));
	a = json_array();
	for (i = 0; i < L_NLAYERS; i++) {
		if (!layers[i].wanted)
			continue;
		l = json_object();
		json_object_set_new(l, "layer", json_string(layers[i].name));
		json_object_set_new(l, "verdict",
		    json_string(vs[layers[i].v]));
		if (layers[i].v != V_ENFORCE)
			json_object_set_new(l, "why",
			    json_string(layers[i].why));
		json_array_append_new(a, l);
	}
	json_object_set_new(o, "layers", a);
	refused = any_refused(msg, sizeof(msg));
	json_object_set_new(o, "would_run", json_boolean(!refused));
	if (json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS) == -1 ||
	    putchar('\n') == EOF || fflush(stdout) == EOF)
		die_sys(EXIT_FAIL, "writing the dry run");
	json_decref(o);
	if (refused)
		warning("strict mode would refuse: %s", msg);
	return refused ? EXIT_FAIL : EXIT_OK;
}

/* ---- step 4 (child side): between clone3 and execveat ---- */

_Noreturn static void
child_fail(const struct run *r, enum stage s, int e, int fd)
{
	struct report rep = {s, e, fd};

	(void)!write(r->errpipe[1], &rep, sizeof(rep));
	_exit(EXIT_FAIL);
}

/* The order of SPEC.md, "confexec": membership, session, credentials,
 * stdin, descriptors, rlimits, capabilities, no_new_privs, Landlock,
 * seccomp last, execveat.  Only syscalls and libcap on prepared data. */
_Noreturn static void
child(void *arg)
{
	const struct run *r = arg;
	const struct plan *p = &r->p;
	pid_t parent = r->parent;
	struct fd_leak leak;
	struct rlimit rl;
	size_t i;
	int s;

	if (cg_is_member(&r->cg) == -1)
		child_fail(r, S_CGROUP, errno, -1);
	/* A new session: no controlling terminal to inject input into
	 * (TIOCSTI) or to be signalled through. */
	if (setsid() == -1)
		child_fail(r, S_SETSID, errno, -1);
	for (s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);	/* EINVAL for KILL/STOP: harmless */
	if (sigprocmask(SIG_SETMASK, &r->oldmask, NULL) == -1)
		child_fail(r, S_SIGNALS, errno, -1);
	if (r->root) {
		if (caps_lock_securebits() == -1)
			child_fail(r, S_SECUREBITS, errno, -1);
		if (caps_drop_bounding() == -1)
			child_fail(r, S_BOUNDING, errno, -1);
	}
	if (creds_switch(p->has_uid, p->uid, p->has_gid, p->gid) == -1)
		child_fail(r, S_CREDS, errno, -1);
	/* Cleared by the credential change; re-armed after it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(r, S_PDEATHSIG, errno, -1);
	if (getppid() != parent)
		child_fail(r, S_PDEATHSIG, ESRCH, -1);
	if (dup2(r->stdinfd, 0) == -1)
		child_fail(r, S_STDIN, errno, -1);
	if (fd_close_except(&r->keep) == -1)
		child_fail(r, S_FDCLOSE, errno, -1);
	switch (fd_verify(&r->keep, &leak)) {
	case 0:
		break;
	case 1:
		child_fail(r, S_FDVERIFY, EBADF, leak.fd);
	default:
		child_fail(r, S_FDVERIFY, errno, -1);
	}
	for (i = 0; i < p->nrlim; i++) {
		rl.rlim_cur = p->rlim[i].soft == PLAN_RLIM_INF ?
		    RLIM_INFINITY : (rlim_t)p->rlim[i].soft;
		rl.rlim_max = p->rlim[i].hard == PLAN_RLIM_INF ?
		    RLIM_INFINITY : (rlim_t)p->rlim[i].hard;
		if (setrlimit(p->rlim[i].resource, &rl) == -1)
			child_fail(r, S_RLIMIT, errno, -1);
	}
	if (caps_clear() == -1 || caps_verify_empty(r->root) == -1)
		child_fail(r, S_CAPS, errno, -1);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		child_fail(r, S_NNP, errno, -1);
	if (ll_enforce(r->rulesetfd, r->abi) == -1)
		child_fail(r, S_LANDLOCK, errno, -1);
	if (sf_load(&r->filter) == -1)
		child_fail(r, S_SECCOMP, errno, -1);
	syscall(SYS_execveat, r->imgfd, "", p->argv, r->envp, AT_EMPTY_PATH);
	child_fail(r, S_EXEC, errno, -1);
}

/* ---- step 5: supervision ---- */

static int
status_code(const siginfo_t *si)
{
	switch (si->si_code) {
	case CLD_EXITED:
		return si->si_status;
	case CLD_KILLED:
	case CLD_DUMPED:
		return 128 + si->si_status;
	default:
		return EXIT_FAIL;
	}
}

/* End the run's tree and remove its cgroup; *residue set when it stays. */
static void
drain(struct run *r, int *residue)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);

	*residue = 0;
	if (cg_kill(&r->cg) == -1)
		warning_sys("cgroup.kill %s", r->cg.path);
	for (;;) {
		/* Subreaper: reap what the kill reparented to us. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (cg_wait_empty(&r->cg, 20) == 0)
			break;
		if (now_ns(CLOCK_MONOTONIC) - t0 > DRAIN_MS * 1000000ull) {
			warning("residue: cgroup %s still populated after "
				"%d ms", r->cg.path, DRAIN_MS);
			*residue = 1;
			return;
		}
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static int
supervise(struct run *r, int pidfd, int sigfd)
{
	struct signalfd_siginfo ssi;
	struct pollfd pf[2];
	siginfo_t si;
	uint64_t cpu = 0, wall, oom = 0;
	json_t *ev;
	int timed_out = 0, cancel = 0, failed = 0, code, residue, left, pr;
	int have_oom;
	char buf[32];

	for (;;) {
		left = -1;
		if (r->p.timeout_ms) {
			uint64_t el = (now_ns(CLOCK_MONOTONIC) -
			    ((uint64_t)r->t0.tv_sec * 1000000000u +
				(uint64_t)r->t0.tv_nsec)) / 1000000u;
			if (el >= r->p.timeout_ms) {
				timed_out = 1;
				break;
			}
			left = (int)(r->p.timeout_ms - el > 60000 ? 60000 :
			    r->p.timeout_ms - el);
		}
		pf[0].fd = pidfd;
		pf[0].events = POLLIN;
		pf[1].fd = sigfd;
		pf[1].events = POLLIN;
		pr = poll(pf, 2, left);
		if (pr == -1 && errno != EINTR) {
			/* Cannot supervise: end the run rather than leave
			 * it unwatched. */
			warning_sys("poll");
			failed = 1;
			break;
		}
		if (pr > 0 && (pf[1].revents & POLLIN) &&
		    read(sigfd, &ssi, sizeof(ssi)) == sizeof(ssi)) {
			cancel = (int)ssi.ssi_signo;
			break;
		}
		if (pr > 0 && (pf[0].revents & POLLIN))
			break;
	}
	if (timed_out || cancel || failed)
		cg_kill(&r->cg);
	memset(&si, 0, sizeof(si));
	while (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) == -1)
		if (errno != EINTR)
			die_sys(EXIT_FAIL, "waitid");
	code = status_code(&si);
	drain(r, &residue);
	wall = now_ns(CLOCK_MONOTONIC) - ((uint64_t)r->t0.tv_sec *
	    1000000000u + (uint64_t)r->t0.tv_nsec);
	/* cpu.stat: only the journal's end record reports it. */
	if (r->journal != NULL && cg_cpu_usec(&r->cg, &cpu) == -1)
		cpu = 0;
	/* Read before the cgroup goes: an OOM kill otherwise shows only as
	 * a SIGKILL.  Unreadable without the memory controller. */
	have_oom = cg_oom_kills(&r->cg, &oom) == 0;
	if (!residue && cg_remove(&r->cg) == -1) {
		warning_sys("residue: cgroup %s", r->cg.path);
		residue = 1;
	}
	if (have_oom && oom > 0) {
		if (layers[L_MEMORY].wanted && layers[L_MEMORY].v == V_ENFORCE)
			warning("the OOM killer killed %llu process%s of the "
				"run (memory.max %llu)",
			    (unsigned long long)oom, oom > 1 ? "es" : "",
			    (unsigned long long)r->p.mem_max);
		else
			warning("the OOM killer killed %llu process%s of the "
				"run", (unsigned long long)oom,
			    oom > 1 ? "es" : "");
	}
	if (timed_out) {
		warning("timed out after %llu ms; the run's tree was killed",
		    (unsigned long long)r->p.timeout_ms);
		code = EXIT_TIMEOUT;
	} else if (cancel) {
		warning("cancelled by signal %d; the run's tree was killed",
		    cancel);
		code = 128 + cancel;
	} else if (failed)
		code = EXIT_FAIL;
	if (r->journal == NULL)
		return code;

	ev = json_object();
	json_object_set_new(ev, "event", json_string("end"));
	json_object_set_new(ev, "plan", json_string(r->plan_hex));
	json_object_set_new(ev, "exit", json_integer(code));
	if (si.si_code == CLD_EXITED)
		json_object_set_new(ev, "status", json_integer(si.si_status));
	else
		json_object_set_new(ev, "signal", json_integer(si.si_status));
	json_object_set_new(ev, "timeout", json_boolean(timed_out));
	json_object_set_new(ev, "cancel",
	    cancel ? json_integer(cancel) : json_null());
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)wall);
	json_object_set_new(ev, "wall_ns", json_string(buf));
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)cpu);
	json_object_set_new(ev, "cpu_usec", json_string(buf));
	json_object_set_new(ev, "residue",
	    residue ? json_string(r->cg.path) : json_null());
	json_object_set_new(ev, "oom_kill",
	    have_oom ? json_integer((json_int_t)oom) : json_null());
	snprintf(buf, sizeof(buf), "%llu",
	    (unsigned long long)now_ns(CLOCK_REALTIME));
	json_object_set_new(ev, "time_ns", json_string(buf));
	journal_events(r, &ev, 1);
	return code;
}

/* After a child report: reap it, end its cgroup, map the stage, and
 * journal the end (the start is already there). */
static int
child_failed(struct run *r, const struct report *rep, int pidfd)
{
	char why[256];
	siginfo_t si;
	json_t *ev;
	int residue, code = EXIT_FAIL;

	while (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) == -1 &&
	    errno == EINTR)
		;
	drain(r, &residue);
	if (!residue && cg_remove(&r->cg) == -1)
		warning_sys("residue: cgroup %s", r->cg.path);
	if (rep->stage < 0 || rep->stage > S_EXEC)
		snprintf(why, sizeof(why), "child: no report");
	else if (rep->stage == S_FDVERIFY && rep->fd >= 0)
		snprintf(why, sizeof(why), "child: %s: fd %d is still open",
		    stage_name[rep->stage], rep->fd);
	else
		snprintf(why, sizeof(why), "child: %s: %s",
		    stage_name[rep->stage], strerror(rep->err));
	warning("%s", why);
	if (rep->stage == S_EXEC)
		code = rep->err == ENOENT ? EXIT_NOTFOUND :
		    (rep->err == EACCES || rep->err == ENOEXEC) ?
		    EXIT_NOEXEC : EXIT_FAIL;
	if (r->journal != NULL) {
		ev = event_end_early(r, code, why);
		journal_events(r, &ev, 1);
	}
	return code;
}

/* ---- the whole run, in order ---- */

static int
run(struct run *r, int dry)
{
	struct borne_clone_args ca;
	struct cg_limits lim;
	struct report rep;
	sigset_t mask;
	char err[1024], msg[1024];
	int pidfd = -1, sigfd, e;
	enum image_err ie;
	struct imgcache ic;
	json_t *ev;
	ssize_t n;
	void *stack;
	pid_t pid;
	size_t i;

	/* 1. The plan: read, decoded, validated.  Nothing created yet. */
	if (plan_read_fd(0, &r->p, err, sizeof(err)) == -1)
		die(EXIT_FAIL, "refusing: plan: %s", err);
	if (plan_validate(&r->p, err, sizeof(err)) == -1)
		die(EXIT_FAIL, "refusing: plan: %s", err);
	sha256_hex(r->p.digest, r->plan_hex);

	/* 2. What the host can enforce; strict refuses before anything.
	 * Only the probes whose answers are used: subordinate ids for a
	 * uid/gid switch, no clone3 dry run (the kernel release answers,
	 * and a failing clone3 below refuses and removes the cgroup). */
	if (probe_host_mask(&r->pr, PROBE_CALLER | PROBE_CGROUP |
		PROBE_LANDLOCK | PROBE_SECCOMP | PROBE_NNP | PROBE_SYSCALLS |
		(r->p.has_uid || r->p.has_gid ? PROBE_SUBID : 0)) == -1)
		refuse(r, "probing the host: %s", strerror(errno));
	select_layers(r);
	if (dry)
		return dry_run(r);
	if (any_refused(msg, sizeof(msg)))
		refuse(r, "%s", msg);
	warn_degraded();
	r->root = caps_have_setpcap();
	r->abi = r->pr.landlock_abi;
	for (i = 0; i < r->p.nkeep; i++)
		if (fcntl(r->p.keep_fds[i], F_GETFD) == -1)
			refuse(r, "kept fd %d is not open", r->p.keep_fds[i]);
	/* The Landlock ruleset and the seccomp program are built before
	 * anything is created: a path missing at run time refuses the
	 * whole ruleset here, never a partial one later. */
	if (ll_build(&r->p, r->abi, &r->rulesetfd, err, sizeof(err)) == -1)
		refuse(r, "%s", err);
	if (sf_build(sf_variant(r->p.sock, r->abi), &r->filter, err,
		sizeof(err)) == -1)
		refuse(r, "%s", err);

	/* 3. The run's cgroup, limits written before anyone is inside. */
	memset(&lim, 0, sizeof(lim));
	if (layers[L_MEMORY].wanted && layers[L_MEMORY].v == V_ENFORCE)
		lim.mem_max = r->p.mem_max;
	if (layers[L_PIDS].wanted && layers[L_PIDS].v == V_ENFORCE)
		lim.pids_max = r->p.pids_max;
	if (layers[L_CPU].wanted && layers[L_CPU].v == V_ENFORCE) {
		lim.cpu_quota_us = r->p.cpu_quota_us;
		lim.cpu_period_us = r->p.cpu_period_us;
	}
	if (cg_create(&r->cg, r->pr.cg2_dir, r->pr.cg2_self, &lim, err,
		sizeof(err)) == -1)
		refuse(r, "%s", err);
	r->have_cg = 1;

	/* 4. The sealed image, checked against the pin. */
	if (r->imgcache != NULL)
		(void)imgcache_open(&ic, r->imgcache, 0);
	ie = image_seal_cached(r->imgcache != NULL ? &ic : NULL,
	    r->p.program, r->p.has_sha256 ? r->p.sha256 : NULL, &r->imgfd,
	    r->prog_digest, err, sizeof(err));
	if (r->imgcache != NULL && ic.note[0] != '\0')
		warning("%s; sealing a private copy", ic.note);
	if (r->imgcache != NULL)
		imgcache_close(&ic);
	if (ie != IMAGE_OK) {
		if (ie == IMAGE_NOTFOUND || ie == IMAGE_NOEXEC)
			end_early(r, 0, ie == IMAGE_NOTFOUND ? EXIT_NOTFOUND :
			    EXIT_NOEXEC, err);
		refuse(r, "%s", err);
	}
	sha256_hex(r->prog_digest, r->prog_hex);
	/* A cached image is a file: Landlock sees its execveat. */
	if (r->rulesetfd != -1 && imgcache_is_file(r->imgfd) == 1 &&
	    imgcache_grant(r->rulesetfd, r->imgfd) == -1)
		refuse(r, "landlock: rule for the cached image: %s",
		    strerror(errno));

	/* The rest of what the child needs, prepared here. */
	r->stdinfd = r->p.has_prompt ?
	    prompt_memfd(r->p.prompt, r->p.prompt_len) :
	    open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r->stdinfd == -1)
		refuse(r, "stdin for the payload: %s", strerror(errno));
	r->envp = calloc(r->p.nenv + 1, sizeof(char *));
	if (r->envp == NULL)
		refuse(r, "environment: %s", strerror(errno));
	for (i = 0; i < r->p.nenv; i++)
		r->envp[i] = r->p.env[i];
	if (pipe2(r->errpipe, O_CLOEXEC) == -1)
		refuse(r, "pipe: %s", strerror(errno));
	/* Kept across the close: 0-2, the plan's list, and (close-on-exec,
	 * gone at execveat) the image, the ruleset and the report pipe. */
	fdset_add(&r->keep, 0);
	fdset_add(&r->keep, 1);
	fdset_add(&r->keep, 2);
	for (i = 0; i < r->p.nkeep; i++)
		if (fdset_add(&r->keep, r->p.keep_fds[i]) == -1)
			refuse(r, "kept fd %d: %s", r->p.keep_fds[i],
			    strerror(errno));
	if (fdset_add(&r->keep, r->imgfd) == -1 ||
	    fdset_add(&r->keep, r->rulesetfd) == -1 ||
	    fdset_add(&r->keep, r->errpipe[1]) == -1)
		refuse(r, "descriptor list: %s", strerror(errno));

	/* Signals that cancel the run arrive on a signalfd. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, &r->oldmask) == -1 ||
	    (sigfd = signalfd(-1, &mask, SFD_CLOEXEC)) == -1)
		refuse(r, "signalfd: %s", strerror(errno));
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		refuse(r, "subreaper: %s", strerror(errno));

	/* Strict: no journal, no run.  (No records are built without
	 * --journal.) */
	if (r->journal != NULL) {
		ev = event_start(r);
		if (journal_events(r, &ev, 1) == -1 &&
		    r->p.mode != PLAN_DEGRADE)
			refuse(r, "the journal %s cannot be written",
			    r->journal);
	}
	r->started = 1;

	/* Into the cgroup at creation: never a moment outside it.  The
	 * child shares our memory until execveat (CLONE_VM|CLONE_VFORK: no
	 * page-table copy, no copy-on-write faults) and runs on its own
	 * stack; we are suspended meanwhile, so nothing races it. */
	stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		refuse(r, "child stack: %s", strerror(errno));
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | CLONE_INTO_CGROUP;
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uint64_t)(uintptr_t)stack;
	ca.stack_size = CHILD_STACK;
	ca.cgroup = (uint64_t)r->cg.dirfd;
	r->parent = getpid();
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	fflush(NULL);
	pid = (pid_t)clone3_run(&ca, child, r);
	if (pid == -1)
		refuse(r, "clone3 into %s: %s", r->cg.path, strerror(errno));
	munmap(stack, CHILD_STACK);
	close(r->errpipe[1]);

	/* EOF: execveat succeeded; a record: the stage that failed. */
	do
		n = read(r->errpipe[0], &rep, sizeof(rep));
	while (n == -1 && errno == EINTR);
	e = errno;
	if (n == (ssize_t)sizeof(rep))
		return child_failed(r, &rep, pidfd);
	if (n != 0) {
		errno = n == -1 ? e : EPROTO;
		warning_sys("reading the child's report");
		cg_kill(&r->cg);
		rep.stage = -1;
		return child_failed(r, &rep, pidfd);
	}
	return supervise(r, pidfd, sigfd);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{"journal", required_argument, NULL, 'j'},
		{"dry-run", no_argument, NULL, 'n'},
		{"image-cache", required_argument, NULL, 'C'},
		{"no-image-cache", no_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct run r;
	const char *journal = NULL, *imgcache = IMGCACHE_DIR;
	int c, dry = 0;

	prog_set("confexec");
	usage_code_set(EXIT_FAIL);
	while ((c = getopt_long(argc, argv, "+hj:n", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			journal = optarg;
			break;
		case 'n':
			dry = 1;
			break;
		case 'C':
			imgcache = optarg;
			break;
		case 'N':
			imgcache = NULL;
			break;
		case 'h':
			printf("usage: %s\n", USAGE);
			return EXIT_OK;
		default:
			die_usage(USAGE);
		}
	}
	/* Validation: everything else comes from the plan. */
	if (optind != argc)
		die_usage(USAGE);
	if (journal != NULL && journal[0] == '\0')
		die(EXIT_FAIL, "--journal: empty path");

	if (imgcache != NULL && imgcache[0] != '/')
		die(EXIT_FAIL, "--image-cache: not an absolute path");
	r.journal = journal;
	r.imgcache = imgcache;
	r.imgfd = r.stdinfd = r.rulesetfd = -1;
	r.cg.dirfd = -1;
	return run(&r, dry);
}
