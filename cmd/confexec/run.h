/* SPDX-License-Identifier: ISC */
/* The run: everything prepared in the parent for the payload, the
 * layers it is decided by, the stages of the child between clone3 and
 * execveat and its report, the run's states and its event log.  The
 * contract every file of confexec shares; each module's own names are in
 * its header beside it (boundary.h, record.h, ...), each with the
 * module's prefix (src_NAME.c: src_NAME only, loop.h).
 *
 *   confexec.c     main(), run(): the narrowing steps in SPEC order
 *   options.c      the command line into the run
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
 *   timings.c      --timings: where a launch's time goes
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
 *   relay.c        one direction of a broker's relay, its memory bounded
 *   resolver.c     the broker's names, resolved by a helper process
 *   hostroute.c    the broker's check that an address is not this host's
 *   src_journal.c  source: the journal's writer's eventfd (record.c)
 *   src_canary.c   source: the probe program's answers (canary.c)
 *
 * Not a common/ module: only cmd/confexec/ includes it. */
#ifndef CONFEXEC_RUN_H
#define CONFEXEC_RUN_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "caps.h"
#include "cgroup.h"
#include "fd.h"
#include "hash.h"
#include "journal.h"
#include "mountview.h"
#include "plan.h"
#include "probe.h"
#include "sysfilter.h"
#include "timings.h"

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
	/* egress (boundary_egress): the run's network namespace, which the
	 * payload joins, and the broker's listener in it (its port), which
	 * src_egress.c takes; -1 without. */
	int netnsfd;
	int egressfd;
	uint16_t egress_port;
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

#endif
