/* SPDX-License-Identifier: ISC */
/* confexec's internal contract: the run (everything prepared in the
 * parent), the layers, the child's report, and the modules that share
 * them.  Not a common/ module: only cmd/confexec/ includes it.  Each
 * file exports names with its own prefix (src_NAME.c: src_NAME only).
 *
 *   confexec.c     main(), options, run(): the narrowing steps in SPEC order
 *   layers.c       what the plan asks for against what the host can enforce
 *   dry.c          --dry-run: the layers and what a real run would meet
 *   boundary.c     the boundary's contents, assembled before the clone
 *   child.c        init and the payload between clone3 and execveat
 *   explain.c      an execveat failure said in full
 *   tmp.c          the run's private temporary directory (plan tmp)
 *   events.c       the start, end and reaped records' builders
 *   record.c       the records' append: the journal's writer, the run's log
 *   end.c          ending the run: kill, reap, drain, remove, end record
 *   children.c     confexec's children, as /proc lists them
 *   say.c          lines on stderr from the loop, never blocking on it
 *   denials.c      denials named: path calls the rules deny
 *   canary.c       --canary: the probe program (canary/canary.c) in the
 *                  plan's boundary, its answers judged against the plan
 *   privileged.c   no privileged file beneath a rw rule: the rw trees
 *                  walked before the run (common/privfile.h)
 *   admit.c        --registry: the programs admitted by their SHA-256
 *   loop.c         the event loop and its table of sources (loop.h)
 *   src_pidfd.c    source: the payload's exit
 *   src_signal.c   source: signals to confexec
 *   src_orphans.c  source: the run's orphans without a pid namespace
 *   src_timer.c    source: the plan's timeout
 *   src_parent.c   source: the caller's death
 *   src_control.c  source: the control socket, its peers (confexec-control(5))
 *   ctl.c          the control socket's clients: requests, answers (ctl.h)
 *   src_notify.c   source: seccomp user notifications (common/notify.c)
 *   handoffs.c     the trust handoff records of the payload's connects
 *                  (handoffs.h)
 *   src_egress.c   source: the egress broker's network and listener
 *   broker.c       the broker's connections and their events (broker.h)
 *   resolver.c     the broker's names, resolved by a helper process
 *   hostroute.c    the broker's check that an address is not this host's
 *   src_journal.c  source: the journal's writer's eventfd (record.c)
 *   src_canary.c   source: the probe program's answers (canary.c)
 */
#ifndef CONFEXEC_H
#define CONFEXEC_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "caps.h"
#include "cgroup.h"
#include "clock.h"
#include "fd.h"
#include "hash.h"
#include "journal.h"
#include "mountview.h"
#include "timings.h"
#include "notify.h"
#include "plan.h"
#include "probe.h"
#include "sysfilter.h"
#include "uapi.h"

/* ---- layers ---- */

enum verdict { V_ENFORCE, V_DEGRADE, V_REFUSE };

struct layer {
	const char *name;	/* as printed and journaled */
	const char *mech;	/* probe_can() mechanism */
	int soft;		/* may be dropped in degrade mode */
	int wanted;		/* requested by this plan */
	enum verdict v;
	char why[1024];
};

enum {
	L_CGROUP, L_KILL, L_INTO, L_MEMORY, L_PIDS, L_CPU, L_LANDLOCK,
	L_TRUNCATE, L_TCP, L_SCOPE, L_SECCOMP, L_KILLPROC, L_NNP, L_EXECVEAT,
	L_PIDFD, L_PIDNS, L_MOUNTNS, L_IPCNS, L_NETNS, L_NPROC, L_LISTENER,
	L_NLAYERS
};

/* Degrade-mode warnings, printed and journaled with the start record. */
#define MAX_WARN 24
#define WARN_LEN 1100
/* The longest warning line on stderr, "confexec: " and newline included
 * (layers_say_warnings). */
#define WARN_SHOWN 160
/* A refusal: one line per refused layer. */
#define REFUSAL_LEN (L_NLAYERS * 1100)

/* ---- the child's report ---- */

/* The stages of the two processes between clone3 and execveat (child.c):
 * the run's init (pid 1 of its pid namespace), then the payload.  Each
 * can fail once, reported by name. */
enum stage {
	/* init */
	S_PDEATHSIG, S_INITIPC, S_INITFDS, S_INITSIG,
	/* the payload */
	S_CGROUP, S_SETSID, S_SIGNALS, S_IPC, S_NETNS, S_LOOPBACK, S_MOUNT,
	S_SECUREBITS, S_BOUNDING, S_CREDS, S_PDEATH,
	S_STDIN, S_FDCLOSE, S_FDVERIFY, S_RLIMIT, S_CAPS, S_NNP, S_LANDLOCK,
	S_SECCOMP, S_LISTENER, S_EXEC, S_NSTAGES
};
extern const char *const stage_name[S_NSTAGES];

/* A failure of the payload (written in confexec's memory), or the
 * message that carries the seccomp listener (SCM_RIGHTS) on the
 * channel r->sock. */
enum { MSG_FAIL = 1, MSG_LISTENER };
struct report {
	int kind;	/* MSG_* */
	int stage;	/* MSG_FAIL: enum stage */
	int err;	/* MSG_FAIL: errno */
	int fd;		/* S_FDVERIFY: the fd found open */
};

/* ---- the run ---- */

/* The environment entries confexec may add to the plan's: TMPDIR and
 * the five proxy variables of an egress run (and all_proxy). */
#define ENV_EXTRA 8

/* What netns_child made (child.c): -1 / NULL until made. */
struct netns_made {
	int listenfd, nsfd;
	uint16_t port;
	const char *what;	/* the step that failed, NULL: none */
	int err;
};

#define CANCEL_LEN 32

/* What the control socket reports (inspect, heartbeat). */
enum run_state { ST_STARTING, ST_RUNNING, ST_ENDING, ST_ENDED };

/* The run's event log, with --control: the exact bytes of its journal
 * records from its start record on (the journal's, or without --journal
 * those of a journal of its own, built in memory from seq 1).  Sized from
 * the bounds on what a run records, so that it holds every record through
 * the end record: the start record (JOURNAL_RECORD_MAX at most), at most
 * EGRESS_EVENTS_LOGGED egress records (broker.h) and CTL_REFUSALS_LOGGED
 * refusals (ctl.h) of their largest size, and LOG_END_RESERVE, kept
 * for the end record (checked in record.c). */
#define LOG_EGRESS_RECORD_MAX 3072	/* an egress record's line */
#define LOG_REFUSED_RECORD_MAX 512	/* a control_refused record's */
#define LOG_END_RESERVE (128u << 10)	/* the end record's */
#define LOG_MAX (16u << 20)
/* Each source's share of LOG_MAX for the records it adds while the run
 * runs, asserted in its file against its own bound (record.c asserts
 * the shares' sum). */
#define LOG_EGRESS_SHARE (12u << 20)
#define LOG_CONTROL_SHARE (32u << 10)
#define LOG_HANDOFF_SHARE (2u << 20)
#define LOG_CANARY_SHARE (512u << 10)
struct runlog {
	char *buf;
	size_t len, cap;
	size_t committed;	/* bytes admitted (envelopes at their largest) */
	int on;			/* from the start record on */
	struct journal_head head;	/* without --journal */
};

/* Everything prepared in the parent for the child: the child only does
 * syscalls (and libcap calls that do not allocate) on these. */
struct run {
	struct plan p;
	struct probe pr;
	const char *journal;
	const char *imgcache;	/* the image cache, or NULL */
	char plan_hex[SHA256_HEX_LEN + 1];
	char prog_hex[SHA256_HEX_LEN + 1];
	uint8_t prog_digest[SHA256_LEN];
	struct layer layers[L_NLAYERS];
	char warnings[MAX_WARN][WARN_LEN];
	size_t nwarnings;
	char refusal[1024];	/* a plan-level refusal (not a layer) */
	struct cg cg;
	int have_cg;
	int cgprocs;		/* without clone3: the run's cgroup.procs,
				 * which the payload writes itself into */
	int subreaper;		/* no pid namespace: confexec is a child
				 * subreaper and ends the tree (end.c) */
	int imgfd;
	/* A pinned script (plan "script"): its sealed copy, kept across
	 * execveat, and argv with the script's path replaced by the copy's
	 * /proc/self/fd path; -1 and NULL without. */
	int scriptfd;
	char scriptarg[32];
	char script_hex[SHA256_HEX_LEN + 1];
	char **argv;
	int stdinfd;
	int rulesetfd;
	int abi;
	char **real;		/* each rule path as resolved (ll_build_real) */
	int *rulefd;		/* each as opened, for the view (or NULL) */
	uint64_t stamp[TM_N];	/* where the launch's time went (timings.h) */
	json_t *ev_registry;	/* the start record's registry and privileged
				 * keys, made by admit.c and privileged.c
				 * (events.c names neither) */
	json_t *ev_privileged;
	int timings;		/* --timings: said after the run */
	char cwd[PATH_MAX];	/* the payload's working directory ("" unknown) */
	char interp[PATH_MAX];	/* the image's ELF interpreter, or "" */
	int tmpfd;		/* the private tmp (plan tmp), or -1 */
	int have_tmp;		/* it exists and is ours to remove */
	int tmp_residue;	/* it could not be removed */
	char tmpdir[PATH_MAX];
	char tmpenv[PATH_MAX + 8];	/* "TMPDIR=..." for the payload */
	struct sock_fprog filter;
	cap_t caps_empty;	/* every set clear, for caps_clear() */
	struct fdset keep;
	char **envp;
	size_t nenvp;		/* entries in envp (room for ENV_EXTRA more) */
	int root;		/* holds CAP_SETPCAP: lock and drop */
	sigset_t oldmask;
	int sock[2];		/* listener channel: [0] parent, [1] payload */
	int userns;		/* not root: confexec enters a user namespace
				 * mapping only its ids, then as for root */
	void *stacks;		/* init's and the payload's, CHILD_STACK each */
	struct report rep;	/* the payload's failure, if any */
	volatile int init_stage;	/* init's failed stage + 1 (0: none) */
	/* The run's IPC namespace is made by init, beside confexec's own
	 * work, and joined by the payload: 0 not yet, 1 made, -errno. */
	int own_ipc;
	int ipc_ready;
	volatile int init_err;
	int want_notify;	/* load the filter with a notify listener */
	int explain;		/* --explain-denials: path calls observed */
	int no_denials;		/* --no-denials: no default observer */
	int observing;		/* OBSERVE_WRITES (the default) or
				 * OBSERVE_ALL (--explain-denials), 0 none */
	int host_sock;		/* the run inherits a socket (the host's) */
	int notifyfd;		/* the listener, received from the payload */
	uid_t final_uid;
	gid_t final_gid;
	pid_t parent;
	pid_t pid;		/* the payload */
	int pidfd;		/* the payload's */
	int initfd;		/* init's pidfd */
	int outlive_caller;	/* --outlive-caller: no parent source */
	int reap_only;		/* --reap */
	struct timespec t0;
	int started;		/* the start record was journaled */
	/* How the supervision ended (set by the sources). */
	int exited;		/* the payload exited */
	int timed_out;
	int64_t host_oom0;	/* /proc/vmstat oom_kill at start; -1 unknown */
	char cancel[CANCEL_LEN];	/* "signal 15", "parent", ... or "" */
	int failed;		/* the supervisor itself failed */
	int jfailed;		/* a record was not written (said): the
				 * run's exit fails */
	int jnone;		/* the start record failed (said): no
				 * record is tried again */
	/* --control (src_control.c) */
	const char *control;	/* the socket's path, or NULL */
	enum run_state state;
	uint64_t start_real_ns;	/* CLOCK_REALTIME at r->t0 */
	struct runlog log;
	/* egress (src_egress.c): the run's network namespace, which the
	 * payload joins, or -1. */
	int netnsfd;
	/* The run's namespaces besides the pid namespace (layers.c decides,
	 * the payload's clone3 makes them): its mount view (mountview.h),
	 * IPC, and a network with only loopback (no host TCP right, no
	 * egress broker: the broker's network is joined instead). */
	struct mountview mv;
	int newnet;		/* CLONE_NEWNET for the payload */
};

/* What the end record says. */
struct outcome {
	int code;		/* confexec's exit status */
	int have_status;	/* the payload was waited for */
	siginfo_t si;
	const char *refused;	/* why the run ended before execveat */
	uint64_t wall_ns;
	uint64_t cpu_usec;
	int residue;
	int have_oom;
	uint64_t oom;
	const char *signal_by;	/* who killed the payload: "confexec",
				 * "oom", "outside", "outside-init" (its
				 * init was killed), or NULL (no signal) */
	int init_killed;	/* init was killed by SIGKILL first */
};

/* end.c: the host's OOM kills so far (/proc/vmstat oom_kill), -1 when
 * unknown. */
int64_t end_host_oom_kills(void);

/* layers.c */
void layers_init(struct run *r);
void layers_select(struct run *r);
int layers_refused(const struct run *r, char *msg, size_t len);
void layers_loud(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void layers_say_warnings(const struct run *r);
void layers_warn_degraded(struct run *r);
int layer_on(const struct run *r, int i);
/* The run records the payload's connections to privileged daemons'
 * sockets (confexec(1), Handoff records): it grants AF_UNIX and has a
 * seccomp listener. */
int layers_handoff(const struct run *r);

/* boundary.c: the boundary's contents, in run()'s order; each 0, or -1
 * with err set.  boundary_egress: the broker's port, from its source. */
int boundary_inherited(struct run *r, char *err, size_t len);
int boundary_journal(struct run *r, char *err, size_t len);
/* The first rw or rwx rule that holds the directory dfd (names it or a
 * directory above it) or names the file (NULL: none): its index, or -1. */
int boundary_rw_over(const struct run *r, int dfd, const struct stat *file);
int boundary_rules(struct run *r, char *err, size_t len);
int boundary_tmp(struct run *r, char *err, size_t len);
int boundary_filter(struct run *r, char *err, size_t len);
int boundary_image(struct run *r, char *err, size_t len);
int boundary_view(struct run *r, char *err, size_t len);
int boundary_env(struct run *r, char *err, size_t len);
int boundary_kept(struct run *r, char *err, size_t len);
int boundary_egress(struct run *r, uint16_t port, char *err, size_t len);

/* dry.c: --dry-run, the layers' verdicts and what a real run would
 * meet, said; its exit status.  dry_checks: past the layers, what a real
 * run would meet before it creates anything; 0, or its exit status (125,
 * 126, 127) with why said. */
int dry_run(struct run *r);
int dry_checks(struct run *r, char *why, size_t len);

/* events.c: the records' builders.  Each source adds its keys to the
 * start and end records (loop_report, loop.h): the callers do. */
json_t *ev_start(const struct run *r);
json_t *ev_start_refused(const struct run *r);
json_t *ev_end(const struct run *r, const struct outcome *o);
json_t *ev_reaped(const struct cg_reaped *rp);
json_t *ev_layers(const struct run *r, enum verdict v);
/* v as a decimal string (a journal's 64-bit counts). */
json_t *ev_u64(uint64_t v);
/* A string that may not be UTF-8 (a path): itself, or {"escaped": ...}
 * in common/esc's lossless form. */
json_t *ev_str(const char *s);

/* record.c: the run's records.  record_wanted: records are built for
 * this run (--journal or --control).  record_events appends n events
 * (consumed, at most 2) in one write: to the journal, and with --control
 * to the run's log (the exact bytes written, or without --journal
 * records built in memory); with --journal they are queued for the
 * journal's writer, a thread of its own, never written on the caller's
 * thread: a caller that must know they are written waits
 * (record_wait).  Returns 0, or -1 with the reason said (one line,
 * naming what: "end record").
 * record_wait waits until every record queued is written, ms at most
 * (when says from what, in the message: "before the payload runs"); past
 * it what waits is given up, said in one line, and nothing more is
 * written; returns 0, or -1 when a record was not written (said;
 * r->jfailed).  record_collect: what was written so far, to the run's
 * log, without waiting.  record_given_up: the records were given up.
 * record_eventfd: what src_journal.c polls (records written), or NULL. */
#define JOURNAL_WAIT_MS 5000
int record_wanted(const struct run *r);
int record_events(struct run *r, json_t **ev, size_t n, const char *what);
int record_wait(struct run *r, unsigned ms, const char *when);
void record_collect(struct run *r);
int record_given_up(void);
const int *record_eventfd(struct run *r);
/* record_hold(1): a failure is kept, not said, until record_hold(0);
 * record_held: the first one kept ("journal FILE: start record: cannot
 * open ..."), or "" (run() says it in its one line). */
void record_hold(int on);
const char *record_held(void);

/* child.c */
#define CHILD_STACK (1u << 20)
/* clone3 (ca: struct borne_clone_args), or clone where clone3 answers
 * ENOSYS (then for good: clone_name() says which), without the flags
 * only clone3 has (CLONE_INTO_CGROUP: EINVAL). */
long clone3_run(void *ca, void (*fn)(void *), void *arg);
const char *clone_name(void);
/* clone from now on: the probe found clone3 refused (any errno). */
void clone3_off(void);
_Noreturn void init(void *arg);
_Noreturn void payload(void *arg);
_Noreturn void netns_child(void *arg);

/* children.c: fn(pid, arg) for every child of ours until fn returns
 * nonzero, without allocation; how many were given to fn, -1 when /proc
 * lists none. */
int children_each(int (*fn)(pid_t, void *), void *arg);

/* tmp.c: make the private tmp and TMPDIR; remove it once the payload's
 * tree is gone (any end). */
int tmp_make(struct run *r, char *err, size_t errlen);
void tmp_end(struct run *r);

/* say.c: lines on stderr from the loop, never waiting on it.
 * say_open before the clone (where stderr is reopened non-blocking);
 * say_line: one line as warning() prints it, written at once or dropped:
 * 0, or -1 dropped (counted, say_dropped); say_close after the run. */
void say_open(void);
int say_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t say_dropped(void);
void say_close(void);

/* denials.c: the observer of the payload's path calls (notify.h; by
 * default the writes and execs, every one with --explain-denials),
 * judged against the plan's rules; at most
 * DENIALS_LISTED distinct (path, access) pairs are kept, each path shown
 * (stderr, end record) cut at DENIAL_SHOWN bytes.  denials_count: the
 * pairs kept, the denied calls seen and those on pairs past the bound;
 * denials_get: pair i (its path in full); denials_ignored: the payload
 * exited 0 (went on without them); denials_argv (in the parent, before
 * the clone; not with --explain-denials, whose observer sees the reads):
 * the payload's arguments that name an existing host path no rule lets
 * it read, kept for denials_say; denials_say: after the run, one line
 * per pair on stderr (by default only when the payload failed), one for
 * the rest, one per argument kept (when the payload failed), and on a failure not fully observed the line saying how to
 * rerun with every denial named. */
#define OBSERVE_WRITES 1
#define OBSERVE_ALL 2
#define DENIALS_LISTED 32
#define DENIAL_SHOWN 256
struct obs_seen;
void denials_seen(void *run, const struct obs_seen *s);
size_t denials_count(uint64_t *calls, uint64_t *unlisted);
int denials_get(size_t i, const char **path, const char **access,
    const char **grant, uint64_t *count);
struct outcome;
int denials_ignored(const struct outcome *o);
void denials_argv(const struct run *r);
void denials_say(const struct run *r, const struct outcome *o);

/* canary.c (--canary): canary_want before the run; canary_prepare
 * once the layers are decided (the host's side of the probes made, the
 * plan's program replaced by the probe program and its probes, a pipe
 * kept for its answers).  Its source (src_canary.c) polls
 * canary_answers_fd and calls canary_read when it is readable (bounded,
 * never blocking), canary_finish when the run has ended (before the end
 * record: the lines or JSON on stdout, the canary record) and
 * canary_summary for the end record's "canary" key (null without a
 * verdict).  canary_exit, in end.c, the run's exit status: 0 every probe
 * matched, 1 one did not, 125 the probe program did not answer them all
 * (or ended before its first: si, how it ended), or the run failed;
 * code as it was when the program never ran (si NULL).  What
 * canary_prepare made is removed at exit, whatever the end. */
void canary_want(int json);
int canary_on(void);
int canary_prepare(struct run *r, char *err, size_t len);
const int *canary_answers_fd(void);
void canary_read(void);
void canary_finish(struct run *r);
json_t *canary_summary(void);
int canary_exit(int code, const siginfo_t *si);

/* privileged.c: before the payload starts, every rw and rwx tree walked
 * for setuid, setgid and file-capability files (confexec(1), PRIVILEGED
 * FILES): one stderr line each; strict mode refuses (-1, err set), degrade
 * mode strips them (a file with several links, or past 64, refused too).
 * privileged_json: the start record's "privileged" (null when no tree was
 * walked). */
int privileged_check(struct run *r, char *err, size_t len);
json_t *privileged_json(void);

/* canary.c: the file is the canary's own privileged file (its probe). */
struct statx;
int canary_own(const struct statx *stx);

/* admit.c (--registry FILE, confexec(1) REGISTRY): admit_want before
 * the run; admit_open once the plan is decoded, before anything is made:
 * the registry read once (bounded), refused (0, or -1 with err) when
 * someone besides root and the caller may write or replace it or a rw
 * rule of the plan reaches it; admit_check once the program (and a
 * pinned script) is sealed: the run ends (126) naming each file whose
 * SHA-256 is not listed and the line that would admit it; admit_json:
 * the start record's "registry" (null without). */
void admit_want(const char *path);
int admit_open(struct run *r, char *err, size_t len);
void admit_check(struct run *r);
json_t *admit_json(void);

/* explain.c: read the image's interpreter (in the parent, before the
 * clone); the reason of an execveat failure with errno e. */
void explain_interp(struct run *r);
void explain_why(const struct run *r, int e, char *why, size_t size);

/* end.c */
void end_kill(struct run *r);
int end_run(struct run *r);
int end_child_failed(struct run *r, const struct report *rep);
_Noreturn void end_early(struct run *r, int code, const char *msg);

#endif
