/* SPDX-License-Identifier: ISC */
/* selfhash: print the SHA-256 of the bytes this process executes (read
 * back through /proc/self/exe), where they are (the /proc/self/exe link:
 * a cached image's path, or "/memfd:borne-image (deleted)" with the
 * spaces as '_'), then any argument: one line. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "hash.h"

int
main(int argc, char *argv[])
{
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], where[4096];
	ssize_t n;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd == -1 || sha256_fd(fd, d, NULL) == -1) {
		perror("selfhash: /proc/self/exe");
		return 1;
	}
	sha256_hex(d, hex);
	n = readlink("/proc/self/exe", where, sizeof(where) - 1);
	where[n > 0 ? n : 0] = '\0';
	for (n = 0; where[n] != '\0'; n++)
		if (where[n] == ' ')
			where[n] = '_';
	printf("%s %s%s%s\n", hex, where, argc > 1 ? " " : "",
	    argc > 1 ? argv[1] : "");
	return 0;
}
