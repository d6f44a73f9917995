/* SPDX-License-Identifier: ISC */
/* confexec --dry-run: what the real run would find before it creates
 * anything, with the same verdict and exit status: the layers (layers.c),
 * then, in the run's order, the kept descriptors, the rule paths, the
 * program and its pin, its ELF interpreter under the rules, and the
 * journal.  Nothing is created anywhere: the ruleset and the sealed copy
 * are descriptors of this process only, closed before it exits, and the
 * image cache is not used. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boundary.h"
#include "dry.h"
#include "err.h"
#include "explain.h"
#include "hash.h"
#include "image.h"
#include "landlock.h"
#include "layers.h"
#include "plan.h"
#include "run.h"

/* The journal as journal_append would open it (O_APPEND, created when
 * missing): an existing file must open for writing, a missing one needs
 * a writable directory.  0, or -1 with errno. */
static int
journal_writable(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (fd != -1)
		return close(fd), 0;
	if (errno != ENOENT || strlen(path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, strlen(path) + 1);
	return access(dirname(dir), W_OK | X_OK);
}

/* The image's interpreter, when it has one, must be executable under the
 * plan's rules.  0, or 126 with why said. */
static int
interp_check(struct run *r, char *why, size_t len)
{
	char real[PATH_MAX], hint[PATH_MAX + 64];

	explain_interp(r);
	if (r->interp[0] == '\0' || r->abi < 1)
		return 0;
	if (realpath(r->interp, real) == NULL) {
		explain_why(r, ENOENT, why, len);
		return EXIT_NOEXEC;
	}
	if (ll_grant_hint(&r->p, r->real, real, PLAN_ROX, hint,
		sizeof(hint)) == 1)
		return 0;
	explain_why(r, EACCES, why, len);
	return EXIT_NOEXEC;
}

int
dry_checks(struct run *r, char *why, size_t len)
{
	enum image_err ie;
	char err[1024];
	int code = 0;

	r->abi = r->pr.landlock_abi;
	if (boundary_inherited(r, why, len) == -1 ||
	    boundary_journal(r, why, len) == -1 ||
	    (r->abi >= 1 && boundary_rules(r, why, len) == -1))
		return EXIT_FAIL;
	ie = image_seal(r->p.program, r->p.has_sha256 ? r->p.sha256 : NULL,
	    &r->imgfd, r->prog_digest, err, sizeof(err));
	if (ie != IMAGE_OK) {
		snprintf(why, len, "%s", err);
		code = ie == IMAGE_NOTFOUND ? EXIT_NOTFOUND :
		    ie == IMAGE_NOEXEC ? EXIT_NOEXEC : EXIT_FAIL;
	} else
		code = interp_check(r, why, len);
	if (code == 0 && r->p.script_arg != 0) {
		int sfd;
		uint8_t d[SHA256_LEN];

		ie = script_seal(r->p.argv[r->p.script_arg],
		    r->p.script_sha256, &sfd, d, err, sizeof(err));
		if (ie != IMAGE_OK) {
			snprintf(why, len, "%s", err);
			code = ie == IMAGE_NOTFOUND ? EXIT_NOTFOUND :
			    ie == IMAGE_NOEXEC ? EXIT_NOEXEC : EXIT_FAIL;
		} else
			close(sfd);
	}
	if (code == 0 && r->journal != NULL &&
	    journal_writable(r->journal) == -1) {
		snprintf(why, len, "the journal %s cannot be written: %s",
		    r->journal, strerror(errno));
		code = EXIT_FAIL;
	}
	if (r->imgfd != -1)
		close(r->imgfd);
	if (r->rulesetfd != -1)
		close(r->rulesetfd);
	r->imgfd = r->rulesetfd = -1;
	return code;
}

/* Each wanted layer, its verdict, and why when not enforced. */
static json_t *
layers_json(const struct run *r)
{
	const char *vs[] = {"enforce", "degrade", "refuse"};
	json_t *a = json_array(), *l;
	size_t i;

	for (i = 0; i < L_NLAYERS; i++) {
		if (!r->layers[i].wanted)
			continue;
		l = json_object();
		json_object_set_new(l, "layer",
		    json_string(r->layers[i].name));
		json_object_set_new(l, "verdict",
		    json_string(vs[r->layers[i].v]));
		if (r->layers[i].v != V_ENFORCE)
			json_object_set_new(l, "why",
			    json_string(r->layers[i].why));
		json_array_append_new(a, l);
	}
	return a;
}

/* Step 6: the plan and the verdicts on stdout; nothing created, nothing
 * journaled.  125 when strict mode would refuse. */
int
dry_run(struct run *r)
{
	json_t *o;
	char msg[REFUSAL_LEN];
	size_t i;
	int refused, code;

	o = json_object();
	json_object_set_new(o, "plan", plan_to_json(&r->p));
	json_object_set_new(o, "layers", layers_json(r));
	refused = layers_refused(r, msg, sizeof(msg));
	/* Past the layers, what the run would meet before it creates
	 * anything (dry.c): the same verdict, the same status. */
	code = refused ? EXIT_FAIL : dry_checks(r, msg, sizeof(msg));
	json_object_set_new(o, "would_run", json_boolean(code == 0));
	if (code != 0)
		json_object_set_new(o, "exit", json_integer(code));
	if (code != 0 && !refused)
		json_object_set_new(o, "why", json_string(msg));
	if (json_dumpf(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS) == -1 ||
	    putchar('\n') == EOF || fflush(stdout) == EOF)
		die_sys(EXIT_FAIL, "writing the dry run");
	json_decref(o);
	for (i = 0; i < r->nwarnings; i++)
		warning("WARNING: %s", r->warnings[i]);
	if (refused)
		for (char *line = msg, *nl; line != NULL; line = nl) {
			nl = strchr(line, '\n');
			if (nl != NULL)
				*nl++ = '\0';
			warning("strict mode would refuse: %s", line);
		}
	else if (code != 0)
		warning("the run would %s: %s", code == EXIT_FAIL ? "refuse" :
		    code == EXIT_NOTFOUND ? "not find the program" :
		    "not execute the program", msg);
	return code;
}
