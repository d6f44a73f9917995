/* SPDX-License-Identifier: ISC */
/* unix-listen PATH MODE [program [arg...]]: bind a listening unix stream
 * socket at PATH, chmod it to MODE (octal), then exec program if given
 * (the socket file stays after the process ends). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	if (argc < 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: unix-listen PATH MODE [program...]\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s == -1 || bind(s, (void *)&sa, sizeof(sa)) == -1 ||
	    listen(s, 8) == -1 ||
	    chmod(argv[1], (mode_t)strtol(argv[2], NULL, 8)) == -1) {
		perror("unix-listen");
		return 1;
	}
	if (argc > 3) {
		execvp(argv[3], argv + 3);
		perror("unix-listen: exec");
		return 127;
	}
	return 0;
}
