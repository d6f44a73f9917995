/* SPDX-License-Identifier: ISC */
/* variants: N programs of their own bytes, fast (one process, not one
 * per file): DIR/v00000 ... each SRC's bytes then "borne-race-%08d" (a
 * trailer an ELF program ignores), mode 0755.
 *   variants SRC DIR N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

int
main(int argc, char *argv[])
{
	char path[4096], tail[32], *buf;
	struct stat st;
	ssize_t n;
	long i, count;
	int fd, len;

	if (argc != 4 || (count = strtol(argv[3], NULL, 10)) < 0 ||
	    count > 99999) {
		fprintf(stderr, "usage: variants SRC DIR N\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	buf = fd == -1 || fstat(fd, &st) == -1 ? NULL : malloc((size_t)st.st_size);
	n = buf == NULL ? -1 : read(fd, buf, (size_t)st.st_size);
	if (n != st.st_size) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/v%05ld", argv[2], i);
		len = snprintf(tail, sizeof(tail), "borne-race-%08ld", i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
		if (fd == -1 || write_all(fd, buf, (size_t)n) == -1 ||
		    write_all(fd, tail, (size_t)len) == -1 || close(fd) == -1) {
			perror(path);
			return 1;
		}
	}
	free(buf);
	return 0;
}
