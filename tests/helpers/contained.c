/* SPDX-License-Identifier: ISC */
/* contained: run a command as a default container would (root, a
 * runtime's default capabilities and seccomp profile, no cgroup2):
 *   contained [--cgroup] CMD [ARG...]
 * In a mount namespace of its own, every cgroup2 mount is detached (so
 * /proc/self/mountinfo has none; with --cgroup they stay, as in a
 * container with a cgroup namespace of its own, --cgroupns=private); a seccomp filter answers ENOSYS to
 * clone3, EPERM to unshare, setns and clone with a namespace flag (no
 * no_new_privs: loaded while still holding CAP_SYS_ADMIN); then every
 * capability outside the runtime's default list leaves the bounding set
 * (CAP_SYS_ADMIN among them), and CMD is executed.  Exits 125 when a
 * step fails, 127 when CMD cannot run. */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

static const cap_value_t keep[] = {
	CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FSETID, CAP_FOWNER, CAP_MKNOD,
	CAP_NET_RAW, CAP_SETGID, CAP_SETUID, CAP_SETFCAP, CAP_SETPCAP,
	CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT, CAP_KILL, CAP_AUDIT_WRITE,
};

static int
fail(const char *what, int e)
{
	fprintf(stderr, "contained: %s: %s\n", what, strerror(e));
	return 125;
}

/* Detach every cgroup2 mount; repeat until mountinfo shows none. */
static int
hide_cgroup2(void)
{
	char line[8192], mp[4096], fs[64], *dash;
	int found;
	FILE *f;

	do {
		found = 0;
		f = fopen("/proc/self/mountinfo", "re");
		if (f == NULL)
			return -1;
		while (fgets(line, sizeof(line), f) != NULL) {
			dash = strstr(line, " - ");
			if (dash == NULL || sscanf(dash, " - %63s", fs) != 1 ||
			    strcmp(fs, "cgroup2") != 0)
				continue;
			if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
				continue;
			if (umount2(mp, MNT_DETACH) == -1) {
				fclose(f);
				return -1;
			}
			found = 1;
		}
		fclose(f);
	} while (found);
	return 0;
}

static int
filter(void)
{
	static const unsigned long ns[] = {
		CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
		CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME,
	};
	scmp_filter_ctx ctx;
	size_t i;
	int rc;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (ctx == NULL)
		return -ENOMEM;
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		    SCMP_SYS(clone3), 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(unshare), 0);
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(setns), 0);
	for (i = 0; rc == 0 && i < sizeof(ns) / sizeof(ns[0]); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
		    SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, ns[i],
		    ns[i]));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

static int
drop_caps(void)
{
	cap_value_t c;
	size_t i;
	cap_t cur;
	int kept;

	for (c = 0; c <= CAP_LAST_CAP; c++) {
		for (kept = 0, i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			kept |= keep[i] == c;
		if (!kept && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == -1 &&
		    errno != EINVAL)
			return -1;
	}
	/* The running process too: effective, permitted, inheritable. */
	cur = cap_get_proc();
	if (cur == NULL)
		return -1;
	for (c = 0; c <= CAP_LAST_CAP; c++) {
		for (kept = 0, i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			kept |= keep[i] == c;
		if (!kept) {
			cap_set_flag(cur, CAP_EFFECTIVE, 1, &c, CAP_CLEAR);
			cap_set_flag(cur, CAP_PERMITTED, 1, &c, CAP_CLEAR);
			cap_set_flag(cur, CAP_INHERITABLE, 1, &c, CAP_CLEAR);
		}
	}
	if (cap_set_proc(cur) == -1) {
		cap_free(cur);
		return -1;
	}
	cap_free(cur);
	return 0;
}

int
main(int argc, char *argv[])
{
	int rc, keep_cg = argc > 1 && strcmp(argv[1], "--cgroup") == 0;

	argv += keep_cg;
	argc -= keep_cg;
	if (argc < 2) {
		fprintf(stderr, "usage: contained [--cgroup] CMD [ARG...]\n");
		return 2;
	}
	if (unshare(CLONE_NEWNS) == -1)
		return fail("unshare(CLONE_NEWNS)", errno);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		return fail("making / private", errno);
	if (!keep_cg && hide_cgroup2() == -1)
		return fail("detaching cgroup2", errno);
	if ((rc = filter()) != 0)
		return fail("loading the seccomp filter", -rc);
	if (drop_caps() == -1)
		return fail("dropping capabilities", errno);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "contained: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
