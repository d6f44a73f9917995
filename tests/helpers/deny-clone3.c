/* SPDX-License-Identifier: ISC */
/* deny-clone3: run a command with clone3(2) failing ENOSYS (a seccomp
 * filter, no_new_privs set), as on a kernel or sandbox without it.
 *   deny-clone3 CMD [ARG...]
 * Exits 125 when the filter cannot be loaded, 127 when CMD cannot run. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	scmp_filter_ctx ctx;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: deny-clone3 CMD [ARG...]\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL) {
		fprintf(stderr, "deny-clone3: seccomp_init failed\n");
		return 125;
	}
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
	    SCMP_SYS(clone3), 0);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		fprintf(stderr, "deny-clone3: loading the filter: %s\n",
		    strerror(-rc));
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "deny-clone3: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
