/* SPDX-License-Identifier: ISC */
/* sigign: run PROGRAM with every signal that can be ignored ignored and
 * every one that can be blocked blocked, libc's own (32 to 34) included,
 * which signal(3) and sigprocmask(3) refuse: the caller a confexec must
 * not pass any of that on from.
 *   sigign PROGRAM [ARG...] */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi.h"

int
main(int argc, char *argv[])
{
	struct borne_ksigaction ign = { SIG_IGN, 0, NULL, 0 };
	uint64_t all = ~(uint64_t)0;
	int s;

	if (argc < 2) {
		fputs("usage: sigign program [arg...]\n", stderr);
		return 2;
	}
	for (s = 1; s <= 64; s++) {
		if (s == SIGKILL || s == SIGSTOP)
			continue;
		if (syscall(SYS_rt_sigaction, s, &ign, NULL, 8) == -1) {
			perror("sigign: rt_sigaction");
			return 2;
		}
	}
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, 8) == -1) {
		perror("sigign: rt_sigprocmask");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("sigign: exec");
	return 127;
}
