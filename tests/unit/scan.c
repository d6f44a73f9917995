/* SPDX-License-Identifier: ISC */
/* Unit tests of common/scan. */
#include <errno.h>
#include <stdint.h>

#include "scan.h"
#include "tap.h"

int
main(void)
{
	uint64_t v = 0;
	int i = 0;

	is_int(scan_u64("0", 0, 10, &v), 0, "0 parses");
	is_int(v, 0, "0 is 0");
	is_int(scan_u64("18446744073709551615", 0, UINT64_MAX, &v), 0,
	    "UINT64_MAX parses");
	ok(v == UINT64_MAX, "UINT64_MAX value");
	errno = 0;
	is_int(scan_u64("18446744073709551616", 0, UINT64_MAX, &v), -1,
	    "UINT64_MAX+1 refused");
	is_int(errno, ERANGE, "overflow is ERANGE");
	is_int(scan_u64("", 0, 10, &v), -1, "empty refused");
	is_int(scan_u64(" 1", 0, 10, &v), -1, "leading blank refused");
	is_int(scan_u64("1 ", 0, 10, &v), -1, "trailing blank refused");
	is_int(scan_u64("+1", 0, 10, &v), -1, "sign refused");
	is_int(scan_u64("-1", 0, 10, &v), -1, "minus refused");
	is_int(scan_u64("0x10", 0, 100, &v), -1, "hex refused");
	is_int(scan_u64("010", 0, 100, &v), -1, "leading zero refused");
	errno = 0;
	is_int(scan_u64("11", 0, 10, &v), -1, "above max refused");
	is_int(errno, ERANGE, "above max is ERANGE");
	is_int(scan_u64("0", 1, 10, &v), -1, "below min refused");
	is_int(scan_int("2147483647", 0, 2147483647, &i), 0, "INT_MAX parses");
	is_int(i, 2147483647, "INT_MAX value");
	is_int(scan_int("2147483648", 0, 2147483647, &i), -1, "INT_MAX+1 refused");
	is_int(scan_size("512M", 1, UINT64_MAX, &v), 0, "512M parses");
	ok(v == 512ULL << 20, "512M is 512 MiB");
	is_int(scan_size("1K", 1, UINT64_MAX, &v), 0, "1K parses");
	is_int(v, 1024, "1K is 1024");
	is_int(scan_size("K", 1, UINT64_MAX, &v), -1, "suffix alone refused");
	is_int(scan_size("1k", 1, UINT64_MAX, &v), -1, "lower-case suffix refused");
	is_int(scan_size("17179869184G", 0, UINT64_MAX, &v), -1,
	    "suffix overflow refused");
	return done_testing();
}
