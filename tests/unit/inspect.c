/* SPDX-License-Identifier: ISC */
/* Unit tests of common/inspect and common/esc. */
#include <errno.h>
#include <string.h>

#include "esc.h"
#include "inspect.h"
#include "tap.h"

static int
parse(const char *j, struct inspect_sources *s)
{
	char err[256];

	return inspect_parse(j, strlen(j), s, err, sizeof err);
}

static const char *
esc(const char *in)
{
	static char out[256];

	esc_name(in, out, sizeof out);
	return out;
}

int
main(void)
{
	struct inspect_sources s;
	char small[8];

	is_int(parse("[]", &s), 0, "empty array");
	is_int((int)s.n, 0, "no source");
	is_int(parse("[{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/a\"},"
	    "{\"Type\":\"volume\",\"Source\":\"/v\"},"
	    "{\"Type\":\"tmpfs\",\"Source\":\"\"},"
	    "{\"Type\":\"bind\",\"Source\":\"/a\"}]},"
	    "{\"HostConfig\":{\"Tmpfs\":{\"/t\":\"\"}},\"Mounts\":null}]", &s),
	    0, "bind, volume, tmpfs, duplicate");
	is_int((int)s.n, 2, "two sources");
	is_str(s.v[0], "/a", "bind source first");
	is_str(s.v[1], "/v", "then the volume");
	inspect_free(&s);
	is_int(parse("{}", &s), -1, "an object is not an array");
	is_int(parse("[{\"Mounts\":1,\"Mounts\":2}]", &s), -1,
	    "duplicate keys refused");
	is_int(parse("[{\"Mounts\":{}}]", &s), -1, "Mounts must be an array");
	is_int(parse("[{\"Mounts\":[{\"Source\":\"/a\"}]}]", &s), -1,
	    "Type required");
	is_int(parse("[{\"Mounts\":[{\"Type\":\"bind\"}]}]", &s), -1,
	    "bind needs a Source");
	is_int(parse("[{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"a\"}]}]",
	    &s), -1, "relative Source refused");
	is_int(parse("[{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"\"}]}]",
	    &s), -1, "empty Source refused");
	is_int(parse("[{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/a\\u0000b\"}]}]",
	    &s), -1, "NUL in Source refused");
	is_int(parse("[1]", &s), -1, "a container must be an object");
	is_int(parse("[", &s), -1, "truncated JSON refused");
	ok(s.n == 0 && s.v == NULL, "failure leaves nothing behind");

	is_str(esc("plain/name.txt"), "plain/name.txt", "plain ASCII kept");
	is_str(esc("a\nb"), "a\\x0ab", "newline escaped");
	is_str(esc("a\\b"), "a\\x5cb", "backslash escaped (lossless)");
	is_str(esc("\x1b[31m"), "\\x1b[31m", "ESC escaped");
	is_str(esc("caf\xc3\xa9"), "caf\xc3\xa9", "valid UTF-8 kept");
	is_str(esc("\xc2\x85"), "\\xc2\\x85", "C1 control escaped");
	is_str(esc("\xff\xfe"), "\\xff\\xfe", "invalid bytes escaped");
	is_str(esc("\xc0\xaf"), "\\xc0\\xaf", "overlong escaped");
	is_str(esc("\xed\xa0\x80"), "\\xed\\xa0\\x80", "surrogate escaped");
	is_str(esc("\xe2\x82"), "\\xe2\\x82", "truncated sequence escaped");
	is_str(esc("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80", "emoji kept");
	errno = 0;
	is_int(esc_name("abcdefghij", small, sizeof small), -1, "too small");
	is_int(errno, ENAMETOOLONG, "is ENAMETOOLONG");
	ok(strlen(small) < sizeof small, "still terminated");
	done_testing();
}
