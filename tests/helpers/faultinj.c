/* SPDX-License-Identifier: ISC */
/* faultinj: make one system call of one process of a tree fail, for the
 * tests of confexec's child stages.  strace's -e inject counts calls per
 * process but cannot say which process: a stage of confexec's init or
 * payload shares its system call with the supervisor, which makes it
 * first.  This tracer aims by depth in the process tree.
 *
 *   faultinj DEPTH[.K] SYSCALL[:ARG0] N ERRNO -- PROGRAM [ARG...]
 *
 * runs PROGRAM under ptrace (depth 0; its children depth 1, theirs 2,
 * ...) and makes the Nth call of SYSCALL (a number, or one of the names
 * below; with :ARG0 only calls whose first argument equals ARG0) in each
 * process at DEPTH (with .K: only the Kth process created at that
 * depth; a thread counts as its process, never as a process created)
 * fail with ERRNO (a number): the call is skipped and returns
 * -ERRNO.  Exits with PROGRAM's status (128+N when killed). */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ptrace.h>

#define MAXP 64

static const struct {
	const char *name;
	long nr;
} calls[] = {
	{"prctl", SYS_prctl}, {"poll", SYS_poll}, {"openat", SYS_openat},
	{"clone3", 435}, {"close_range", 436}, {"setsid", SYS_setsid},
	{"rt_sigprocmask", SYS_rt_sigprocmask}, {"dup2", SYS_dup2},
	{"fstatfs", SYS_fstatfs}, {"prlimit64", SYS_prlimit64},
	{"capset", SYS_capset}, {"landlock_restrict_self", 446},
	{"seccomp", SYS_seccomp}, {"setgroups", SYS_setgroups},
	{"write", SYS_write}, {"sendto", SYS_sendto}, {"open", SYS_open},
	{"rt_sigaction", SYS_rt_sigaction}, {"bind", SYS_bind},
	{"setns", SYS_setns}, {"unshare", SYS_unshare},
};

static struct proc {
	pid_t pid;
	int depth;
	int ord;	/* Kth process created at its depth */
	int count;
	int inject;	/* at the exit stop of the skipped call */
	int waiting;	/* stopped before its parent's event said its depth */
} procs[MAXP];

/* The thread group of task pid (its process), from /proc; -1 unknown. */
static long
tgid_of(pid_t pid)
{
	char path[64], line[256];
	long t = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Tgid: %ld", &t) == 1)
			break;
	fclose(f);
	return t;
}

static struct proc *
find(pid_t pid, int add, int depth)
{
	int i;

	for (i = 0; i < MAXP; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	if (!add)
		return NULL;
	for (i = 0; i < MAXP; i++)
		if (procs[i].pid == 0) {
			procs[i].pid = pid;
			procs[i].depth = depth;
			return &procs[i];
		}
	fprintf(stderr, "faultinj: too many processes\n");
	exit(125);
}

static long
nr_of(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (strcmp(calls[i].name, s) == 0)
			return calls[i].nr;
	/* A number; a name not listed above is a mistake in the test. */
	if (*s < '0' || *s > '9') {
		fprintf(stderr, "faultinj: unknown system call %s\n", s);
		exit(2);
	}
	return strtol(s, NULL, 10);
}

int
main(int argc, char *argv[])
{
	long nr, arg0 = 0, n, e;
	int depth, ord = 0, has_arg0 = 0, st, sig, made[64] = {0};
	char *colon, *dot;
	pid_t root, pid;

	if (argc < 7 || strcmp(argv[5], "--") != 0) {
		fprintf(stderr, "usage: faultinj DEPTH SYSCALL[:ARG0] N ERRNO "
				"-- PROGRAM [ARG...]\n");
		return 125;
	}
	depth = atoi(argv[1]);
	dot = strchr(argv[1], '.');
	if (dot != NULL)
		ord = atoi(dot + 1);
	colon = strchr(argv[2], ':');
	if (colon != NULL) {
		*colon = '\0';
		arg0 = strtol(colon + 1, NULL, 0);
		has_arg0 = 1;
	}
	nr = nr_of(argv[2]);
	n = strtol(argv[3], NULL, 10);
	e = strtol(argv[4], NULL, 10);
	root = fork();
	if (root == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execvp(argv[6], argv + 6);
		_exit(127);
	}
	if (waitpid(root, &st, 0) == -1)
		return 125;
	ptrace(PTRACE_SETOPTIONS, root, NULL, (void *)(PTRACE_O_TRACESYSGOOD |
	    PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
	    PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
	find(root, 1, 0);
	ptrace(PTRACE_SYSCALL, root, NULL, NULL);
	for (;;) {
		struct ptrace_syscall_info si;
		struct proc *p;
		unsigned long msg;

		pid = waitpid(-1, &st, __WALL);
		if (pid == -1)
			return 125;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (pid == root)
				return WIFEXITED(st) ? WEXITSTATUS(st) :
				    128 + WTERMSIG(st);
			if ((p = find(pid, 0, 0)) != NULL)
				p->pid = 0;
			continue;
		}
		p = find(pid, 1, -1);	/* a child may stop before the event */
		sig = WSTOPSIG(st);
		if (p->depth == -1) {
			p->waiting = 1;	/* resumed when its depth is known */
			continue;
		}
		if (st >> 16 == PTRACE_EVENT_FORK ||
		    st >> 16 == PTRACE_EVENT_VFORK ||
		    st >> 16 == PTRACE_EVENT_CLONE) {
			if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg) == 0) {
				struct proc *c = find((pid_t)msg, 1, -1);

				/* A thread is its process's: same depth, same
				 * place (a worker thread of the supervisor's
				 * shifts no process). */
				if (st >> 16 == PTRACE_EVENT_CLONE &&
				    tgid_of((pid_t)msg) == tgid_of(pid)) {
					c->depth = p->depth;
					c->ord = p->ord;
				} else {
					c->depth = p->depth + 1;
					if (c->depth < 64)
						c->ord = ++made[c->depth];
				}
				if (c->waiting) {
					c->waiting = 0;
					ptrace(PTRACE_SYSCALL, c->pid, NULL,
					    NULL);
				}
			}
			sig = 0;
		} else if (st >> 16 != 0) {
			sig = 0;	/* exec, vfork-done */
		} else if (sig == (SIGTRAP | 0x80)) {
			sig = 0;
			if (ptrace(PTRACE_GET_SYSCALL_INFO, pid,
				(void *)sizeof(si), &si) <= 0)
				goto cont;
			if (si.op == PTRACE_SYSCALL_INFO_ENTRY &&
			    p->depth == depth && (ord == 0 || p->ord == ord) &&
			    (long)si.entry.nr == nr &&
			    (!has_arg0 || (long)si.entry.args[0] == arg0) &&
			    ++p->count == n) {
				struct user_regs_struct r;

				ptrace(PTRACE_GETREGS, pid, NULL, &r);
				r.orig_rax = (unsigned long long)-1;
				ptrace(PTRACE_SETREGS, pid, NULL, &r);
				p->inject = 1;
			} else if (si.op == PTRACE_SYSCALL_INFO_EXIT &&
			    p->inject) {
				struct user_regs_struct r;

				ptrace(PTRACE_GETREGS, pid, NULL, &r);
				r.rax = (unsigned long long)-e;
				ptrace(PTRACE_SETREGS, pid, NULL, &r);
				p->inject = 0;
			}
		} else if (sig == SIGSTOP) {
			sig = 0;	/* a new tracee's first stop */
		}
	cont:
		ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig);
	}
}
