/* SPDX-License-Identifier: ISC */
/* fcapset: write a raw security.capability xattr, built without libcap so
 * that it links statically and runs inside a minimal container image.
 *   fcapset FILE 2          cap_net_raw=ep as vfs_cap_data v2
 *   fcapset FILE 3 ROOTID   the same as v3 with the given root uid
 * Exits 0, or 1 with the errno text (e.g. EPERM without CAP_SETFCAP). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

int
main(int argc, char *argv[])
{
	unsigned char v[24] = { 0x01, 0, 0, 0x02, 0x00, 0x20 };
	size_t n = 20;
	unsigned long r;

	if (argc < 3 || (strcmp(argv[2], "2") != 0 &&
	    (strcmp(argv[2], "3") != 0 || argc != 4))) {
		fprintf(stderr, "usage: fcapset FILE 2 | FILE 3 ROOTID\n");
		return 2;
	}
	if (argv[2][0] == '3') {
		r = strtoul(argv[3], NULL, 10);
		v[3] = 0x03;
		v[20] = r & 0xff;
		v[21] = (r >> 8) & 0xff;
		v[22] = (r >> 16) & 0xff;
		v[23] = (r >> 24) & 0xff;
		n = 24;
	}
	if (lsetxattr(argv[1], "security.capability", v, n, 0) == -1) {
		fprintf(stderr, "fcapset: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
