/* SPDX-License-Identifier: ISC */
/* floor: vfork, exec argv, wait, exit with the child's status.  Built
 * static by `make bench` (not a product binary): the least any supervisor
 * that is its own binary costs, the floor confexec is measured against. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	pid_t pid;
	int st;

	if (argc < 2) {
		fputs("usage: floor program [arg...]\n", stderr);
		return 125;
	}
	pid = vfork();
	if (pid == -1)
		return 125;
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) == -1)
		return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
