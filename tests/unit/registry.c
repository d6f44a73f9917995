/* SPDX-License-Identifier: ISC */
/* Unit tests of common/registry: sha256sum's lines (text and binary
 * mode, escaped names, either case of hex), blank lines, every
 * malformed line refused by its number, the bounds, lookups. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "tap.h"

#define H1 "a049fb47554c6cde2ee452e5d87f6386abb63af7cdcae9cd0dc99fc80e0bcf35"
#define H2 "c79bf44242829108e323378531f4ac839513ca1fba45efd6583643526e1e9fd2"
#define H3 "0000000000000000000000000000000000000000000000000000000000000001"

static int
parses(const char *s, char *err, size_t len)
{
	struct registry r;
	int rc = registry_parse(s, strlen(s), &r, err, len);

	if (rc == 0)
		registry_free(&r);
	return rc;
}

int
main(void)
{
	struct registry r;
	uint8_t d[SHA256_LEN];
	char err[256], *big;
	size_t i, n;
	static const char two[] = H1 "  /bin/echo\n\n" H2 " */bin/true\n";

	is_int(registry_parse(two, strlen(two), &r, err, sizeof(err)), 0,
	    "two lines (text and binary mode) and a blank one");
	is_int(r.n, 2, "  two entries");
	sha256_unhex(H1, 64, d);
	ok(registry_has(&r, d), "  the first is listed");
	sha256_unhex(H2, 64, d);
	ok(registry_has(&r, d), "  the second is listed");
	sha256_unhex(H3, 64, d);
	ok(!registry_has(&r, d), "  another is not");
	registry_free(&r);

	is_int(parses("\\" H1 "  /tmp/a\\nb\\\\c\n", err, sizeof(err)), 0,
	    "an escaped name (a backslash first)");
	is_int(parses("\\" H1 "  /tmp/a\\qb\n", err, sizeof(err)), -1,
	    "  a bad escape refused");
	is_int(parses("\\" H1 "  /tmp/a\\\n", err, sizeof(err)), -1,
	    "  a lone backslash at the end refused");
	is_int(parses("A049FB47554C6CDE2EE452E5D87F6386ABB63AF7CDCAE9CD0DC99FC"
	    "80E0BCF35  /bin/echo\n", err, sizeof(err)), 0,
	    "upper-case hex (as sha256sum -c takes it)");
	is_int(parses("", err, sizeof(err)), 0, "an empty registry");
	is_int(parses(H1 "  /bin/echo", err, sizeof(err)), -1,
	    "no newline at the end refused");
	is_int(parses(H1 " /bin/echo\n", err, sizeof(err)), -1,
	    "one space refused");
	is_int(parses(H1 "\t/bin/echo\n", err, sizeof(err)), -1,
	    "a tab refused");
	is_int(parses(H1 "  \n", err, sizeof(err)), -1, "no name refused");
	is_int(parses(H1 "x  /bin/echo\n", err, sizeof(err)), -1,
	    "65 digits refused");
	is_int(parses(H1 "\n" H1 "  /bin/echo\n", err, sizeof(err)), -1,
	    "a hash alone refused");
	is_int(parses("# comment\n", err, sizeof(err)), -1,
	    "a comment refused (sha256sum writes none)");
	is_int(parses(H1 "  /bin/echo\n\n" H1 "x  /bin/x\n", err,
	    sizeof(err)), -1, "a bad third line refused");
	is_str(err, "line 3: not HASH, two spaces (or a space and '*') and a "
	    "name", "  named by its number");
	{
		static const char nul[] = H1 "  /bin/e\0cho\n";

		is_int(registry_parse(nul, sizeof(nul) - 1, &r, err,
		    sizeof(err)), -1, "a NUL byte refused");
	}

	/* bounds */
	n = REGISTRY_MAX + 1;
	big = malloc(n);
	if (big == NULL)
		return 1;
	memset(big, '\n', n);
	errno = 0;
	is_int(registry_parse(big, n, &r, err, sizeof(err)), -1,
	    "more than 1 MiB refused");
	is_int(errno, E2BIG, "  E2BIG");
	/* the shortest lines: the entries' bound comes first */
	n = 0;
	for (i = 0; i <= REGISTRY_ENTRIES; i++) {
		memcpy(big + n, H1 "  x\n", 68);
		n += 68;
	}
	ok(n <= REGISTRY_MAX, "  (%zu bytes: within 1 MiB)", n);
	errno = 0;
	is_int(registry_parse(big, n, &r, err, sizeof(err)), -1,
	    "more than 8192 entries refused");
	is_int(errno, E2BIG, "  E2BIG");
	is_int(registry_parse(big, n - 68, &r, err, sizeof(err)), 0,
	    "8192 entries taken");
	is_int(r.n, REGISTRY_ENTRIES, "  all of them");
	registry_free(&r);
	free(big);
	return done_testing();
}
