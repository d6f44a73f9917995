/* SPDX-License-Identifier: ISC */
/* canary: confexec --canary's steps in the run (canary.h): the host's
 * side made and the probes derived before the clone, the plan's program
 * replaced by the probe program and its probes; once the run's tree is
 * gone, the answers judged and said. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/stat.h>

#include "canary_int.h"
#include "run.h"
#include "err.h"

#define ANSWERS_MAX (64u << 10)


/* The answers so far, read as they come (the source): bounded; past
 * ANSWERS_MAX they are read and dropped (the program answers far less:
 * one short line a probe). */
static char abuf[ANSWERS_MAX + 1];
static size_t alen;

int
canary_on(void)
{
	return canary_state.on;
}

void
canary_want(int json)
{
	canary_state.on = 1;
	canary_state.json = json;
}

int
canary_own(const struct statx *stx)
{
	return canary_state.priv[0] != '\0' &&
	    stx->stx_ino == canary_state.privst.st_ino &&
	    makedev(stx->stx_dev_major, stx->stx_dev_minor) ==
	    canary_state.privst.st_dev;
}

/* The probe program's argv: its answers' descriptor, then OP ARG for
 * each probe that runs. */
static char **
probe_argv(size_t *argc)
{
	char fd[16], **argv;
	size_t i, a = 0;

	argv = calloc(2 + 2 * canary_state.n + 1, sizeof(char *));
	if (argv == NULL)
		return NULL;
	snprintf(fd, sizeof(fd), "%d", canary_state.wfd);
	argv[a++] = strdup(CANARY_PROG);
	argv[a++] = strdup(fd);
	for (i = 0; i < canary_state.n; i++) {
		if (canary_state.pl[i].x == X_NOTRUN)
			continue;
		argv[a++] = strdup(canary_state.pl[i].op);
		argv[a++] = strdup(canary_state.pl[i].arg);
	}
	*argc = a;
	for (i = 0; i < a; i++)
		if (argv[i] == NULL)
			return NULL;
	return argv;
}

/* The plan's program replaced by the probe program and its probes (the
 * rest of the plan as it came). */
static int
replace_program(struct run *r, char *err, size_t len)
{
	struct plan *p = &r->p;
	char **argv;
	size_t i, argc;

	if ((argv = probe_argv(&argc)) == NULL)
		return err_set_sys(err, len, "canary: argv");
	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	free(p->program);
	p->argv = NULL;
	p->argc = 0;
	p->program = strdup(canary_state.prog);
	if (p->program == NULL)
		return err_set_sys(err, len, "canary: program");
	p->argv = argv;
	p->argc = argc;
	p->has_sha256 = 0;	/* the pin was the plan's program's */
	p->script_arg = 0;
	return 0;
}

int
canary_prepare(struct run *r, char *err, size_t len)
{
	if (atexit(canary_setup_clean) != 0)
		return err_set(err, len, "canary: atexit");
	canary_state.pl = calloc(CANARY_MAX_PROBES, sizeof(*canary_state.pl));
	if (canary_state.pl == NULL)
		return err_set_sys(err, len, "canary: probes");
	if (canary_setup_prog(err, len) == -1 ||
	    canary_setup_pipe(r, err, len) == -1 ||
	    canary_setup_dir(r, err, len) == -1 ||
	    canary_setup_listeners(r, err, len) == -1 ||
	    canary_setup_target(err, len) == -1)
		return -1;
	canary_probes_derive(r);
	return replace_program(r, err, len);
}

const int *
canary_answers_fd(void)
{
	return &canary_state.rfd;
}

void
canary_read(void)
{
	char drop[512];
	ssize_t n;

	for (;;) {
		if (alen < ANSWERS_MAX)
			n = read(canary_state.rfd, abuf + alen,
			    ANSWERS_MAX - alen);
		else
			n = read(canary_state.rfd, drop, sizeof(drop));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (alen < ANSWERS_MAX)
			alen += (size_t)n;
	}
}

void
canary_finish(struct run *r)
{
	canary_read();
	abuf[alen] = '\0';
	canary_judge_answers(abuf);
	if (!canary_state.started)
		return;
	canary_judge_all(r);
	canary_setup_clean();
	canary_out_print(r);
}

json_t *
canary_summary(void)
{
	return canary_out_summary();
}

int
canary_exit(int code, const siginfo_t *si)
{
	canary_setup_clean();
	if (canary_state.judged)
		return canary_state.code;
	if (si == NULL)
		return code;	/* it never ran: the run said why */
	warning("canary: the probe program ended (%s %d) before its first "
	    "probe: the plan is not judged", si->si_code == CLD_EXITED ?
	    "exit" : "signal", si->si_status);
	return EXIT_FAIL;
}
