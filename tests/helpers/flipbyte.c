/* SPDX-License-Identifier: ISC */
/* flipbyte: copy IN to OUT with the byte at OFFSET xor-ed with MASK; with
 * OFFSET "all", write OUT.0, OUT.1, ... one copy per offset of IN. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "scan.h"

#define USAGE "flipbyte IN OUT OFFSET|all MASK"

static void
spit(const char *path, char *buf, size_t len)
{
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (out == -1 || write(out, buf, len) != (ssize_t)len ||
	    close(out) == -1)
		die_sys(EXIT_FAIL, "cannot write %s", path);
}

int
main(int argc, char *argv[])
{
	uint64_t off = 0, mask;
	struct stat sb;
	char *buf, path[4096];
	int in, all;

	prog_set("flipbyte");
	if (argc != 5)
		die_usage(USAGE);
	all = strcmp(argv[3], "all") == 0;
	if ((!all && scan_u64(argv[3], 0, UINT32_MAX, &off) == -1) ||
	    scan_u64(argv[4], 1, 255, &mask) == -1)
		die_usage(USAGE);
	in = open(argv[1], O_RDONLY);
	if (in == -1 || fstat(in, &sb) == -1)
		die_sys(EXIT_FAIL, "cannot open %s", argv[1]);
	if (off >= (uint64_t)sb.st_size)
		die(EXIT_USAGE, "offset %llu beyond %lld bytes",
		    (unsigned long long)off, (long long)sb.st_size);
	buf = malloc((size_t)sb.st_size);
	if (buf == NULL ||
	    read(in, buf, (size_t)sb.st_size) != (ssize_t)sb.st_size)
		die_sys(EXIT_FAIL, "cannot read %s", argv[1]);
	if (!all) {
		buf[off] ^= (char)mask;
		spit(argv[2], buf, (size_t)sb.st_size);
		free(buf);
		return 0;
	}
	for (off = 0; off < (uint64_t)sb.st_size; off++) {
		snprintf(path, sizeof(path), "%s.%llu", argv[2],
		    (unsigned long long)off);
		buf[off] ^= (char)mask;
		spit(path, buf, (size_t)sb.st_size);
		buf[off] ^= (char)mask;
	}
	free(buf);
	return 0;
}
