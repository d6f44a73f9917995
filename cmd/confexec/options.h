/* SPDX-License-Identifier: ISC */
/* options: confexec's command line read into the run (the journal, the
 * control socket, the image cache, the flags), --registry given to
 * admit.c and --canary to canary.c; a usage error exits 2 (or as
 * usage.h says for --help and --version).  Returns 1 for --dry-run. */
#ifndef CONFEXEC_OPTIONS_H
#define CONFEXEC_OPTIONS_H

#include "run.h"

int options_read(struct run *r, int argc, char *argv[]);

#endif
