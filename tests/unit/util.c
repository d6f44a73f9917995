/* SPDX-License-Identifier: ISC */
/* Unit tests of the small shared helpers: common/io (write_all,
 * pread_all, read_small), common/buf (buf_reserve), common/clock
 * (now_ns), and cg_list_has() of common/cgroup (the one reader of cgroup
 * word lists, used by the probe too). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cgroup.h"
#include "clock.h"
#include "io.h"
#include "tap.h"

static void
test_io(void)
{
	char path[] = "/tmp/borne-unit-io.XXXXXX", buf[8];
	char big[100000];
	int fd;

	fd = mkstemp(path);
	if (fd == -1) {
		ok(0, "mkstemp");
		return;
	}
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	is_int(write_all(fd, "memory pids\n", 12), 0, "write_all");
	is_int(read_small(path, big, sizeof(big)), 0, "read_small");
	is_str(big, "memory pids", "read_small drops one newline");
	is_int(read_small(path, buf, sizeof(buf)), 0, "read_small, short");
	is_str(buf, "memory ", "read_small stops at size - 1");
	ok(read_small("/nonexistent/x", buf, sizeof(buf)) == -1,
	    "read_small of a missing file fails");
	memset(buf, 0, sizeof(buf));
	is_int(pread_all(fd, buf, 4, 7), 0, "pread_all");
	is_str(buf, "pids", "pread_all reads at its offset");
	errno = 0;
	ok(pread_all(fd, buf, 4, 10) == -1 && errno == EIO,
	    "pread_all past the end: EIO");
	errno = 0;
	ok(pread_all(fd, buf, 1, (uint64_t)INT64_MAX + 1) == -1 &&
	    errno == EINVAL, "pread_all past the largest offset: EINVAL");
	is_int(pread_all(fd, buf, 0, 12), 0, "pread_all of nothing");
	close(fd);
	fd = -1;
	ok(write_all(fd, "x", 1) == -1, "write_all to a bad fd fails");
	ok(pread_all(fd, buf, 1, 0) == -1 && errno == EBADF,
	    "pread_all of a bad fd fails");
	unlink(path);
}

static void
test_buf(void)
{
	char *b = NULL, *was, *z = NULL;
	size_t cap = 0, zcap = 0;

	is_int(buf_reserve(&b, &cap, 10, 16), 0, "buf_reserve: the first room");
	ok(b != NULL && cap == 16, "first room: first bytes (%zu)", cap);
	if (b == NULL)
		return;
	memcpy(b, "abc", 4);
	was = b;
	is_int(buf_reserve(&b, &cap, 16, 16), 0, "buf_reserve: room enough");
	ok(b == was && cap == 16, "room enough: left as it is");
	is_int(buf_reserve(&b, &cap, 17, 16), 0, "buf_reserve: one more");
	is_int((int)cap, 32, "one more byte: doubled");
	is_int(buf_reserve(&b, &cap, 100, 16), 0, "buf_reserve: far more");
	is_int((int)cap, 128, "far more: doubled until it holds (32, 64, 128)");
	is_str(b, "abc", "the bytes kept");
	was = b;
	errno = 0;
	ok(buf_reserve(&b, &cap, (size_t)PTRDIFF_MAX + 1, 16) == -1 &&
	    errno == ENOMEM, "over PTRDIFF_MAX: ENOMEM");
	ok(b == was && cap == 128, "a failure leaves the buffer as it was");
	is_int(buf_reserve(&z, &zcap, 5, 0), 0, "buf_reserve, first 0");
	ok(z != NULL && zcap == 5, "first 0: what is needed (%zu)", zcap);
	free(b);
	free(z);
}

static void
test_clock(void)
{
	uint64_t a = now_ns(CLOCK_MONOTONIC), b;

	usleep(2000);
	b = now_ns(CLOCK_MONOTONIC);
	ok(b > a && b - a >= 2000000, "now_ns(CLOCK_MONOTONIC) advances");
	ok(now_ns(CLOCK_REALTIME) > 1500000000ull * 1000000000ull,
	    "now_ns(CLOCK_REALTIME) is after 2017");
}

static void
test_list(void)
{
	ok(cg_list_has("cpu io memory pids", "memory"), "middle word");
	ok(cg_list_has("memory", "memory"), "only word");
	ok(cg_list_has("cpu io memory\n", "memory"), "last word, newline");
	ok(cg_list_has("cpu\nmemory", "memory"), "after a newline");
	ok(cg_list_has("cpu\tmemory", "memory"), "after a tab");
	ok(!cg_list_has("cpuset io", "cpu"), "a prefix is not the word");
	ok(!cg_list_has("rdma hugetlb", "tlb"), "a suffix is not the word");
	ok(!cg_list_has("", "cpu"), "empty list");
	ok(!cg_list_has("cpu io", ""), "empty word");
	ok(!cg_list_has("cpu io", "cpu io"), "a word holding a blank");
}

int
main(void)
{
	test_io();
	test_buf();
	test_clock();
	test_list();
	return done_testing();
}
