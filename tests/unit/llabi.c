/* SPDX-License-Identifier: ISC */
/* Unit tests of common/llabi: the one Landlock ABI table, and that both of
 * its readers derive from it: probe_can() (cgprobe's report, confexec's
 * layer verdicts) and the ruleset confexec builds (landlock.c), checked
 * ABI by ABI, then against the running kernel. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "llabi.h"
#include "probe.h"
#include "tap.h"
#include "uapi.h"

#define NO_DEV (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK)

static int
nrows(void)
{
	int n = 0;

	while (ll_abi_table[n].abi != 0)
		n++;
	return n;
}

static void
test_shape(void)
{
	const struct ll_abi_rights *r, *prev = NULL;
	int i, n = nrows();

	is_int(n, 7, "seven ABI versions known");
	for (i = 0; i < n; i++, prev = r) {
		r = &ll_abi_table[i];
		is_int(r->abi, i + 1, "row %d is ABI %d", i, i + 1);
		ok(r == ll_rights(i + 1), "ll_rights(%d) is row %d", i + 1, i);
		ok(r->key != NULL && r->mechanism != NULL &&
		    strncmp(r->mechanism, "landlock", 8) == 0,
		    "ABI %d names its key and mechanism", r->abi);
		if (prev == NULL)
			continue;
		ok((r->fs & prev->fs) == prev->fs &&
		    (r->net & prev->net) == prev->net &&
		    (r->scoped & prev->scoped) == prev->scoped &&
		    (r->restrict_flags & prev->restrict_flags) ==
		    prev->restrict_flags, "ABI %d keeps every right of ABI %d",
		    r->abi, prev->abi);
		ok(r->fs != prev->fs || r->net != prev->net ||
		    r->scoped != prev->scoped ||
		    r->restrict_flags != prev->restrict_flags,
		    "ABI %d adds something", r->abi);
	}
	for (i = 0; i < n; i++) {
		const char *const *m;

		for (m = probe_mechanisms; *m != NULL; m++)
			if (strcmp(*m, ll_abi_table[i].mechanism) == 0)
				break;
		ok(*m != NULL, "%s is a cgprobe mechanism",
		    ll_abi_table[i].mechanism);
	}
	ok(ll_rights(0) == NULL && ll_rights(-1) == NULL, "no row below 1");
	ok(ll_rights(99) == ll_rights(n), "a newer ABI gets the newest row");

	is_int(ll_rights(1)->fs, (1ULL << 13) - 1, "ABI 1: 13 fs rights");
	is_int(ll_rights(2)->fs, (1ULL << 14) - 1, "ABI 2 adds refer");
	is_int(ll_rights(3)->fs, (1ULL << 15) - 1, "ABI 3 adds truncate");
	is_int(ll_rights(4)->fs, (1ULL << 15) - 1, "ABI 4: no fs change");
	ok(ll_rights(3)->net == 0 && ll_rights(4)->net == 3,
	    "ABI 4 adds tcp bind/connect");
	is_int(ll_rights(5)->fs, (1ULL << 16) - 1, "ABI 5 adds ioctl_dev");
	ok(ll_rights(5)->scoped == 0 && ll_rights(6)->scoped == 3,
	    "ABI 6 adds scopes");
	ok(ll_rights(6)->restrict_flags == 0 &&
	    ll_rights(7)->restrict_flags == 7, "ABI 7 adds log flags");
}

/* What probe_can() says at abi agrees with the row, mechanism by
 * mechanism, and so does what confexec's rules grant. */
static void
test_agree(int abi)
{
	const struct ll_abi_rights *r = ll_rights(abi), *l;
	static struct probe p;
	char why[128];
	int bad = 0, c;
	uint64_t fs = r ? r->fs : 0;

	memset(&p, 0, sizeof(p));
	p.landlock_abi = abi;
	p.landlock_errno = abi ? 0 : ENOSYS;
	for (l = ll_abi_table; l->abi != 0; l++) {
		c = probe_can(&p, l->mechanism, why, sizeof(why));
		if (c != (abi >= l->abi))
			bad++, printf("#   %s: probe says %d at ABI %d\n",
			    l->mechanism, c, abi);
	}
	is_int(bad, 0, "ABI %d: probe_can() answers from the table", abi);
#define SAYS(m) (probe_can(&p, (m), NULL, 0) == 1)
	ok(SAYS("landlock") == (r != NULL) &&
	    SAYS("landlock-refer") == !!(fs & LANDLOCK_ACCESS_FS_REFER) &&
	    SAYS("landlock-truncate") == !!(fs & LANDLOCK_ACCESS_FS_TRUNCATE) &&
	    SAYS("landlock-ioctl-dev") ==
	    !!(fs & LANDLOCK_ACCESS_FS_IOCTL_DEV) &&
	    SAYS("landlock-tcp") == (r != NULL && r->net != 0) &&
	    SAYS("landlock-scope") == (r != NULL && r->scoped != 0) &&
	    SAYS("landlock-log") == (r != NULL && r->restrict_flags != 0),
	    "ABI %d: each reported feature is a right of the row", abi);
#undef SAYS
	is_int(ll_intent_rights(PLAN_RW, 1, abi), fs & ~(uint64_t)NO_DEV,
	    "ABI %d: rw = the row's fs rights but execute and devices", abi);
	ok((ll_intent_rights(PLAN_ROX, 1, abi) & ~fs) == 0 &&
	    (ll_intent_rights(PLAN_RO, 0, abi) & ~fs) == 0,
	    "ABI %d: ro and rox stay within the row", abi);
}

/* The ruleset confexec builds from each row up to the running ABI is
 * accepted by the kernel; one right beyond the newest row is not (when
 * the kernel is not newer than the table). */
static void
test_kernel(void)
{
	struct borne_landlock_ruleset_attr a;
	struct plan pl;
	char err[256];
	int live = ll_abi(), abi, fd, n = nrows();
	long r;

	if (live < 1) {
		if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
			ok(0, "Landlock unavailable (a skip on CI is a gap)");
		else
			printf("ok %d # SKIP kernel: Landlock unavailable\n",
			    ++tap_n);
		return;
	}
	memset(&pl, 0, sizeof(pl));
	for (abi = 1; abi <= live && abi <= n; abi++) {
		err[0] = '\0';
		fd = -1;
		ok(ll_build(&pl, abi, &fd, err, sizeof(err)) == 0,
		    "ABI %d row: the kernel (ABI %d) accepts the ruleset %s",
		    abi, live, err);
		if (fd >= 0)
			close(fd);
	}
	if (live > n) {
		printf("ok %d # SKIP kernel ABI %d is newer than the table\n",
		    ++tap_n, live);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.handled_access_fs = ll_rights(live)->fs << 1 | ll_rights(live)->fs;
	r = syscall(__NR_landlock_create_ruleset, &a,
	    sizeof(a.handled_access_fs), 0);
	ok(r == -1 && errno == EINVAL,
	    "ABI %d: one fs right beyond the row is refused (EINVAL)", live);
	if (r >= 0)
		close((int)r);
}

int
main(void)
{
	int abi;

	test_shape();
	for (abi = 0; abi <= nrows() + 1; abi++)
		test_agree(abi);
	test_kernel();
	return done_testing();
}
