/* SPDX-License-Identifier: ISC */
/* Unit tests of the four libraries every binary links (nettle through
 * common/hash, jansson, libseccomp, libcap): the static variant links
 * copies rebuilt for musl, and this proves those copies behave. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <seccomp.h>
#include <sys/capability.h>

#include "hash.h"
#include "tap.h"

static const char *
hex_of(const void *buf, size_t len)
{
	static char hex[SHA256_HEX_LEN + 1];
	uint8_t d[SHA256_LEN];

	sha256_buf(buf, len, d);
	sha256_hex(d, hex);
	return hex;
}

static void
test_sha256(void)
{
	static const char two_blocks[] =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t d[SHA256_LEN], e[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	uint64_t total = 0;
	char *big;
	FILE *f;
	ssize_t r;
	int fd;

	/* FIPS 180-2 vectors: empty, one block, two blocks, a million 'a'. */
	is_str(hex_of("", 0),
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	    "sha256 of the empty string");
	is_str(hex_of("abc", 3),
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	    "sha256 of abc");
	is_str(hex_of(two_blocks, strlen(two_blocks)),
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	    "sha256 of the two-block vector");
	big = malloc(1000000);
	ok(big != NULL, "allocate a million bytes");
	if (big == NULL)
		return;
	memset(big, 'a', 1000000);
	is_str(hex_of(big, 1000000),
	    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	    "sha256 of a million 'a'");

	/* sha256_fd over a file gives the same digest as over the buffer
	 * (200000 bytes: several reads of its 64 KiB buffer). */
	sha256_buf(big, 200000, e);
	f = tmpfile();
	fd = f != NULL ? fileno(f) : -1;
	/* ok() evaluates its condition twice: no side effects inside. */
	r = fd == -1 ? -1 : write(fd, big, 200000);
	is_int(r, 200000, "write 200000 bytes to a temporary file");
	r = lseek(fd, 0, SEEK_SET);
	is_int(r, 0, "rewind it");
	r = sha256_fd(fd, d, &total);
	is_int(r, 0, "sha256_fd reads the file");
	if (f != NULL)
		fclose(f);
	is_int(total, 200000, "sha256_fd counts 200000 bytes");
	ok(memcmp(d, e, SHA256_LEN) == 0, "sha256_fd digest == sha256_buf digest");
	sha256_hex(d, hex);
	is_int(sha256_unhex(hex, strlen(hex), e), 0, "hex round trip parses");
	ok(memcmp(d, e, SHA256_LEN) == 0, "hex round trip is exact");
	free(big);
}

static void
test_jansson(void)
{
	json_error_t jerr;
	json_t *j;

	j = json_loads("{\"a\":1,\"b\":[true,null,\"x\"]}",
	    JSON_REJECT_DUPLICATES, &jerr);
	ok(j != NULL, "jansson parses an object");
	is_int(json_integer_value(json_object_get(j, "a")), 1, "a == 1");
	is_int(json_array_size(json_object_get(j, "b")), 3, "b has 3 items");
	json_decref(j);
	j = json_loads("{\"a\":1,\"a\":2}", JSON_REJECT_DUPLICATES, &jerr);
	ok(j == NULL, "jansson rejects a duplicate key");
	json_decref(j);
	j = json_loads("{\"a\":1} x", JSON_REJECT_DUPLICATES, &jerr);
	ok(j == NULL, "jansson rejects trailing bytes");
	json_decref(j);
}

static void
test_seccomp(void)
{
	const struct scmp_version *v = seccomp_version();
	struct scmp_arg_cmp cmp = { .arg = 0, .op = SCMP_CMP_MASKED_EQ,
		.datum_a = 0xffffffff, .datum_b = 2 };
	scmp_filter_ctx ctx;

	ok(v != NULL && (v->major > 2 || (v->major == 2 && v->minor >= 5)),
	    "libseccomp is 2.5 or later");
	is_int(seccomp_arch_native(), SCMP_ARCH_X86_64, "native arch x86_64");
	/* The syscall table knows the calls the filter must name. */
	is_int(seccomp_syscall_resolve_name("landlock_create_ruleset"), 444,
	    "landlock_create_ruleset is 444");
	is_int(seccomp_syscall_resolve_name("clone3"), 435, "clone3 is 435");
	is_int(seccomp_syscall_resolve_name("io_uring_setup"), 425,
	    "io_uring_setup is 425");
	ok(seccomp_syscall_resolve_name_arch(SCMP_ARCH_X32, "read") ==
	    (int)(0x40000000 + 0), "x32 read is 0x40000000");
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	ok(ctx != NULL, "seccomp_init");
	is_int(seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM),
	    SCMP_SYS(socket), 1, &cmp), 0, "seccomp_rule_add on socket(AF_INET)");
	seccomp_release(ctx);
}

static void
test_cap(void)
{
	cap_t c;
	char *t;

	c = cap_from_text("cap_chown,cap_kill=ep");
	ok(c != NULL, "cap_from_text");
	t = c ? cap_to_text(c, NULL) : NULL;
	is_str(t, "cap_chown,cap_kill=ep", "cap_to_text round trip");
	cap_free(t);
	cap_free(c);
	c = cap_get_proc();
	ok(c != NULL, "cap_get_proc");
	cap_free(c);
	ok(cap_max_bits() >= 41, "cap_max_bits knows CAP_CHECKPOINT_RESTORE");
}

int
main(void)
{
	test_sha256();
	test_jansson();
	test_seccomp();
	test_cap();
	return done_testing();
}
