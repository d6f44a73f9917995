/* SPDX-License-Identifier: ISC */
/* landlock-ro: enter a Landlock domain that handles every filesystem right
 * of the running ABI and grants only read and execute beneath "/", then
 * exec argv.  Anything the program tries to write fails with EACCES. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "llabi.h"
#include "uapi.h"

int
main(int argc, char *argv[])
{
	struct borne_landlock_ruleset_attr ra;
	struct landlock_path_beneath_attr pb;
	long abi;
	int rfd, root;

	if (argc < 2) {
		fprintf(stderr, "usage: landlock-ro program [arg...]\n");
		return 125;
	}
	abi = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		perror("landlock-ro: landlock version");
		return 125;
	}
	memset(&ra, 0, sizeof(ra));
	ra.handled_access_fs = ll_rights((int)abi)->fs;
	rfd = (int)syscall(__NR_landlock_create_ruleset, &ra,
	    sizeof(ra.handled_access_fs), 0);
	if (rfd == -1) {
		perror("landlock-ro: create ruleset");
		return 125;
	}
	root = open("/", O_PATH | O_CLOEXEC);
	pb.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE |
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	pb.parent_fd = root;
	if (root == -1 || syscall(__NR_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == -1) {
		perror("landlock-ro: add rule");
		return 125;
	}
	/* Root with CAP_SYS_ADMIN needs no no_new_privs; setting it only when
	 * needed keeps the program's view of itself unchanged. */
	if (syscall(__NR_landlock_restrict_self, rfd, 0) == -1) {
		if (errno != EPERM ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    syscall(__NR_landlock_restrict_self, rfd, 0) == -1) {
			perror("landlock-ro: restrict self");
			return 125;
		}
	}
	close(rfd);
	close(root);
	execvp(argv[1], argv + 1);
	perror("landlock-ro: exec");
	return errno == ENOENT ? 127 : 126;
}
