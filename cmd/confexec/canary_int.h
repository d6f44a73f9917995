/* SPDX-License-Identifier: ISC */
/* The canary's files' shared state (canary.h lists them): the probes'
 * lines, what the host side holds for them, and the prototypes each file
 * exports to the others, with its own prefix.  Not for the rest of
 * confexec: canary.h is the module's interface. */
#ifndef CANARY_INT_H
#define CANARY_INT_H

#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <jansson.h>


struct daemon_hit;
struct run;

#define CANARY_PROG "confexec-canary"
#define CANARY_MAX_PROBES 160
#define CANARY_FILE_BYTES "borne canary\n"

/* What the plan should give a probe. */
enum canary_x {
	X_DENY,		/* an errno */
	X_GRANT,	/* "ok" */
	X_KILL,		/* SIGKILL (a memory limit) */
	X_HTTP403,	/* the broker refuses */
	X_HTTPOK,	/* the broker takes it (any other answer) */
	X_NOTRUN,	/* not tried: why in expected */
};

/* How the host's side of a probe is read: a row of canary_host.c's
 * table. */
enum canary_hostid {
	H_NONE, H_BYTES, H_MODE, H_TIMES, H_LEFT, H_TCP, H_ABSTRACT,
	H_SIGNAL, H_TRACE, H_SYSV, H_PRIV, H_N
};

/* The files of the outside directory: one per probe. */
enum { F_WRITE, F_CHMOD, F_UTIMES, F_READ, F_EXEC, F_N };

/* One line: a probe as tried on one argument. */
struct probe_line {
	const char *name;
	char tried[1024];	/* paths escaped (esc.h), cut at 1 KiB */
	char op[12];
	char arg[PATH_MAX];
	enum canary_x x;
	int want;		/* X_DENY: this errno only (0: any) */
	char expected[512];
	enum canary_hostid h;
	int file;		/* H_BYTES, H_MODE, H_TIMES: the F_ index */
	char got[160];
	char hostsaw[160];
	int match;
};

/* The module's state, one run's. */
struct canary {
	int on, json;
	struct probe_line *pl;
	size_t n;
	char prog[PATH_MAX];
	const char *fname[F_N];	/* the outside directory's files */
	char dir[PATH_MAX];	/* "" none */
	char nodir[256];	/* why none */
	struct stat st[F_N];
	int rfd, wfd;		/* the answers' pipe */
	int tcpfd, absfd;	/* the host's listeners */
	uint16_t tcpport;
	char tcparg[8];		/* its port, as text */
	char absname[64];
	pid_t target;		/* the paused host process */
	char targetarg[24];	/* its pid, as text */
	int targetfd, lifefd;
	int msqid;
	char queuearg[24];	/* its id, as text */
	/* The privileged file beneath the first rw directory rule (the
	 * rw-privileged probe): its path, as made, and its first page. */
	char priv[PATH_MAX];
	struct stat privst;
	char privpage[4096];
	ssize_t privlen;
	int started, ended;	/* its "start" and "end" lines were read */
	int judged, code;	/* canary_finish: a verdict, the exit */
	size_t matched, bad, skipped, missing;
};

/* What stands in a probe's way, by name in a row (canary_expect.c has
 * how each is found on or off for a run). */
enum canary_guard {
	G_END,		/* the list's end */
	G_LANDLOCK, G_MOUNTNS, G_PIDNS, G_NETNS, G_TCP, G_IPCNS, G_MEMORY,
	G_PIDS, G_SECCOMP, G_SCOPE, G_NOEXEC, G_UID, G_BROKER, G_N
};

/* Seccomp refuses a probe's call unless the plan (or the run) gives it
 * this; given, the row's guards stand in its way instead. */
enum canary_unless { U_NONE, U_TCP, U_UNIX, U_IPCNS };

/* One instance of a probe that has several (a rw rule, a granted port,
 * an egress destination, a daemon); zero for one of its own. */
struct canary_at {
	const char *arg;		/* the instance's argument */
	const char *path;		/* rw: the rule */
	struct stat st;			/* rw: the rule's path */
	int dir, first;			/* rw: a directory; the first one */
	const struct daemon_hit *hit;	/* the daemon found */
};

/* A probe's argument for one line, from its row's arg function. */
struct canary_arg {
	char arg[PATH_MAX + 16];
	char shown[PATH_MAX + 64];	/* tried's %s ("": arg escaped) */
	char tried[PATH_MAX];		/* not run: what ("": the op) */
	char why[512];			/* not run: the expected field */
};

/* Where a probe's lines come from: one each, or one per instance of a
 * family (canary_probes.c iterates it, instances outermost). */
enum canary_each { E_ONE, E_RW, E_PORT, E_EGRESS, E_DAEMON };

/* A probe: one row of canary/probes.def (confexec's fields). */
struct canary_probe {
	const char *name;	/* its lines' first field */
	const char *op;		/* what the probe program does (canary/) */
	const char *tried;	/* its lines' second field, %s the argument
				 * shown (NULL: "OP ARG") */
	enum canary_each each;
	/* Its argument: fixed (a host object's name, made before the
	 * probes are derived), or by arg for the instance at: 1 a line, 0
	 * none, -1 not run (a->why says why). */
	const char *fixed;
	int (*arg)(const struct run *r, const struct canary_probe *p,
	    const struct canary_at *at, struct canary_arg *a);
	/* What the plan says it should get: a function, or a fixed answer
	 * (says, %s the argument), or denied while a guard is on. */
	void (*expect)(const struct run *r, const struct canary_probe *p,
	    const struct canary_at *at, struct probe_line *pl);
	const char *says;
	enum canary_guard guards[4];
	enum canary_unless unless;
	enum canary_x x;	/* when the guards are on (X_DENY, X_KILL)
				 * or with says */
	int want;		/* X_DENY: this errno only */
	unsigned dac;		/* rw: the modes the run's uid needs there */
	/* How the host side is read after the run. */
	enum canary_hostid host;
	int file;		/* the outside directory's file (F_) */
};

extern struct canary canary_state;	/* canary_state.c */

/* canary_setup.c: what the probes aim at on the host.  Each 0, or -1
 * with err set. */
int canary_setup_prog(char *err, size_t len);
int canary_setup_pipe(struct run *r, char *err, size_t len);
int canary_setup_dir(const struct run *r, char *err, size_t len);
int canary_setup_listeners(const struct run *r, char *err, size_t len);
int canary_setup_target(char *err, size_t len);
/* The privileged file in dir: 0, or -1 with why ("not run: ..."). */
int canary_setup_priv(const struct run *r, const char *dir, char *why,
    size_t len);
/* Whether a TCP listener is on 127.0.0.1 or 0.0.0.0 at port. */
int canary_setup_listens(uint16_t port);
/* Everything removed (atexit, and once the probes are judged). */
void canary_setup_clean(void);

/* canary_probes.c: every probe's lines, from the plan and the run
 * (its table's rows in order). */
void canary_probes_derive(const struct run *r);

/* canary_expect.c: what the plan says pl should get, by its row.  The
 * row's expect functions: the view's root (granted when a rule names
 * /), a rw rule (the file modes of its path), the privileged file
 * beneath one, a daemon's socket. */
void canary_expect(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl);
void canary_expect_root(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl);
void canary_expect_rw(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl);
void canary_expect_priv(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl);
void canary_expect_daemon(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl);

/* canary_host.c: the host's side of pl in pl->hostsaw; 1 when it
 * changed; *veto set when the change fails a grant as well. */
int canary_host_check(struct probe_line *pl, int *veto);

/* canary_judge.c: the answers parsed into the lines; every line judged
 * and counted, the exit decided (r: the run's end). */
void canary_judge_answers(char *buf);
void canary_judge_all(const struct run *r);
int canary_judge_unanswered(const struct probe_line *pl);
const char *canary_judge_verdict(const struct probe_line *pl);
/* errno e as its name ("EACCES") or "errno N". */
void canary_judge_errno(int e, char *buf, size_t size);

/* canary_out.c: the lines or the object on stdout, the mismatches on
 * stderr, the canary record; the end record's summary. */
void canary_out_print(struct run *r);
json_t *canary_out_summary(void);

#endif
