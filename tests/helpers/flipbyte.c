/* SPDX-License-Identifier: ISC */
/* flipbyte: copy IN to OUT with the byte at OFFSET xor-ed with MASK. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "scan.h"

#define USAGE "flipbyte IN OUT OFFSET MASK"

int
main(int argc, char *argv[])
{
	uint64_t off, mask;
	struct stat sb;
	char *buf;
	int in, out;

	prog_set("flipbyte");
	if (argc != 5 || scan_u64(argv[3], 0, UINT32_MAX, &off) == -1 ||
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
	buf[off] ^= (char)mask;
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out == -1 ||
	    write(out, buf, (size_t)sb.st_size) != (ssize_t)sb.st_size ||
	    close(out) == -1)
		die_sys(EXIT_FAIL, "cannot write %s", argv[2]);
	return 0;
}
