/* SPDX-License-Identifier: ISC */
/* serve: journalchain serve, the local dashboard of runs and the AG-UI
 * adapter (journalchain(1), SERVE). */
#ifndef JC_SERVE_H
#define JC_SERVE_H

/* argv[0] is "serve".  Returns the exit status (or exits on a usage
 * error). */
int serve_main(int argc, char *argv[]);

#endif
