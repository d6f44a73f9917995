/* SPDX-License-Identifier: ISC */
/* Unit tests of common/probe: the Landlock table, probe_can, subid ranges,
 * and probe_daemons against sockets made in a private mount namespace. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "probe.h"
#include "tap.h"
#include "uapi.h"

static int
mksock(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(sa.sun_path, path);
	if (s == -1 || bind(s, (void *)&sa, sizeof(sa)) == -1 ||
	    listen(s, 1) == -1)
		return -1;
	return s;
}

static const struct daemon_hit *
find(const struct daemon_hit *h, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(h[i].name, name) == 0)
			return &h[i];
	return NULL;
}

static void
test_daemons(void)
{
	struct daemon_hit h[32];
	const struct daemon_hit *d;
	size_t n;
	int r;

	if (geteuid() != 0 || unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") == -1) {
		skip("daemons", "needs root for a mount namespace");
		return;
	}
	unsetenv("XDG_RUNTIME_DIR");
	r = probe_daemons(0, 0, h, 32, &n);
	ok(r == 0 && n == 0, "empty /run: no daemon found (%zu)", n);

	r = mksock("/run/docker.sock");
	ok(r >= 0, "socket /run/docker.sock");
	chmod("/run/docker.sock", 0600);
	r = probe_daemons(0, 0, h, 32, &n);
	d = find(h, n, "docker");
	ok(r == 0 && n == 1 && d != NULL,
	    "docker found once (/var/run is the same inode) (n=%zu)", n);
	ok(d && strcmp(d->path, "/run/docker.sock") == 0, "docker path");
	ok(d && d->connectable, "root can connect to a 0600 root socket");
	probe_daemons(65534, 65534, h, 32, &n);
	d = find(h, n, "docker");
	ok(d && !d->connectable, "uid 65534 cannot connect to 0600 root socket");
	chmod("/run/docker.sock", 0666);
	probe_daemons(65534, 65534, h, 32, &n);
	d = find(h, n, "docker");
	ok(d && d->connectable, "uid 65534 can connect to a 0666 socket");
	chmod("/run/docker.sock", 0660);
	chown("/run/docker.sock", 0, 65534);
	probe_daemons(65534, 65534, h, 32, &n);
	d = find(h, n, "docker");
	ok(d && d->connectable, "group member can connect to 0660 socket");
	probe_daemons(65534, 100, h, 32, &n);
	d = find(h, n, "docker");
	ok(d && !d->connectable, "other group cannot connect to 0660 socket");
	chmod("/run/docker.sock", 0606);
	probe_daemons(65534, 65534, h, 32, &n);
	d = find(h, n, "docker");
	ok(d && !d->connectable,
	    "group class denies even when other allows (0606)");

	mkdir("/run/containerd", 0700);
	r = mksock("/run/containerd/containerd.sock");
	ok(r >= 0, "containerd socket");
	chmod("/run/containerd/containerd.sock", 0666);
	probe_daemons(65534, 65534, h, 32, &n);
	d = find(h, n, "containerd");
	ok(d && !d->connectable, "0700 directory above blocks uid 65534");
	chmod("/run/containerd", 0711);
	probe_daemons(65534, 65534, h, 32, &n);
	d = find(h, n, "containerd");
	ok(d && d->connectable, "search permission on the directory suffices");
	chmod("/run", 0700);
	probe_daemons(65534, 65534, h, 32, &n);
	d = find(h, n, "containerd");
	ok(d && !d->connectable, "0700 /run blocks uid 65534 further down");
	chmod("/run", 0755);

	mkdir("/run/podman", 0755);
	close(open("/run/podman/podman.sock", O_CREAT | O_WRONLY, 0666));
	mkdir("/run/buildkit", 0755);
	symlink("/run/docker.sock", "/run/buildkit/buildkitd.sock");
	probe_daemons(0, 0, h, 32, &n);
	ok(find(h, n, "podman") == NULL, "a regular file is not a daemon");
	ok(find(h, n, "buildkit") == NULL, "a symlink is not a daemon");

	mkdir("/run/user", 0755);
	mkdir("/run/user/1000", 0700);
	chown("/run/user/1000", 1000, 1000);
	r = mksock("/run/user/1000/docker.sock");
	ok(r >= 0, "rootless socket");
	chown("/run/user/1000/docker.sock", 1000, 1000);
	chmod("/run/user/1000/docker.sock", 0600);
	setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
	probe_daemons(1000, 1000, h, 32, &n);
	d = find(h, n, "docker-rootless");
	ok(d && d->connectable, "rootless docker under XDG_RUNTIME_DIR");
	probe_daemons(1001, 1001, h, 32, &n);
	d = find(h, n, "docker-rootless");
	ok(d && !d->connectable, "another uid cannot reach it");
	setenv("XDG_RUNTIME_DIR", "run/user/1000", 1);
	probe_daemons(1000, 1000, h, 32, &n);
	ok(find(h, n, "docker-rootless") == NULL, "relative XDG ignored");

	errno = 0;
	r = probe_daemons(0, 0, h, 1, &n);
	ok(r == -1 && errno == E2BIG && n == 1, "more hits than room is E2BIG");
	umount2("/run", MNT_DETACH);
}

int
main(void)
{
	const char *const *m;
	struct probe p;
	char why[256];
	int all = 1;

	is_int(probe_host(&p), 0, "probe_host succeeds");
	{
		static struct probe q;
		const char *mm[] = {"cgroup2", "cgroup-kill",
		    "clone-into-cgroup", "landlock", "seccomp",
		    "seccomp-kill-process", "no-new-privs", "execveat",
		    "pidfd", NULL};
		const char *ctl[] = {"memory", "pids", "cpu", "io", NULL};
		int same = 1, i;

		errno = 0;
		ok(probe_host_mask(&q, 1u << 30) == -1 && errno == EINVAL,
		    "probe_host_mask: unknown bit is EINVAL");
		is_int(probe_host_mask(&q, PROBE_LANDLOCK), 0,
		    "probe_host_mask(PROBE_LANDLOCK) succeeds");
		ok(q.landlock_abi == p.landlock_abi && q.cg2 == 0 &&
		    q.seccomp_filter == 0 && q.caps[0] == '\0',
		    "only the Landlock fields are filled");
		is_int(probe_host_mask(&q, PROBE_CALLER | PROBE_CGROUP |
		    PROBE_LANDLOCK | PROBE_SECCOMP | PROBE_NNP |
		    PROBE_SYSCALLS), 0, "probe_host_mask(confexec's) succeeds");
		for (i = 0; mm[i]; i++)
			if (probe_can(&p, mm[i], NULL, 0) !=
			    probe_can(&q, mm[i], NULL, 0)) {
				same = 0;
				printf("# differs: %s\n", mm[i]);
			}
		ok(same, "without PROBE_EXACT: the same answers for "
		    "confexec's mechanisms");
		ok(q.subuid_n == 0 && q.openat2 == 0 && q.memfd_seal == 0 &&
		    q.userns_max == 0, "and nothing outside the mask");
		ok(q.cg2_available[0] == '\0' && q.cg2_enabled[0] == '\0',
		    "without PROBE_CONTROLLERS: no controller files read");
		is_int(probe_host_mask(&q, PROBE_CALLER | PROBE_CGROUP |
		    PROBE_CONTROLLERS), 0,
		    "probe_host_mask(PROBE_CONTROLLERS) succeeds");
		is_str(q.cg2_available, p.cg2_available,
		    "with it: cgroup.controllers as probe_host reads it");
		is_str(q.cg2_enabled, p.cg2_enabled,
		    "and cgroup.subtree_control");
		same = 1;
		for (i = 0; ctl[i]; i++)
			if (probe_can(&p, ctl[i], NULL, 0) !=
			    probe_can(&q, ctl[i], NULL, 0)) {
				same = 0;
				printf("# differs: %s\n", ctl[i]);
			}
		ok(same, "and the same answers for the controllers");
	}
	for (m = probe_mechanisms; *m; m++)
		if (probe_can(&p, *m, why, sizeof(why)) == -1) {
			all = 0;
			printf("# unknown: %s\n", *m);
		}
	ok(all, "every listed mechanism is known to probe_can");
	errno = 0;
	ok(probe_can(&p, "frobnicate", why, sizeof(why)) == -1 &&
	    errno == EINVAL, "unknown mechanism is EINVAL");
	ok(probe_can(&p, "landlock-frob", why, sizeof(why)) == -1,
	    "unknown landlock-* mechanism is EINVAL");

	p.landlock_abi = 3;
	is_int(probe_can(&p, "landlock-truncate", why, sizeof(why)), 1,
	    "ABI 3 has truncate");
	is_int(probe_can(&p, "landlock-tcp", why, sizeof(why)), 0,
	    "ABI 3 lacks tcp");
	is_str(why, "needs Landlock ABI 4, kernel has 3", "reason names ABIs");
	p.cg2 = 1;
	p.cg2_writable = 1;
	strcpy(p.cg2_dir, "/c");
	strcpy(p.cg2_available, "cpuset hugetlb io");
	is_int(probe_can(&p, "memory", why, sizeof(why)), 0, "no memory");
	is_str(why, "cgroup2 at /c has no memory controller", "memory reason");
	is_int(probe_can(&p, "io", why, sizeof(why)), 1, "io listed");
	strcpy(p.cg2_available, "hugetlbx memoryx");
	is_int(probe_can(&p, "memory", why, sizeof(why)), 0,
	    "word match, not prefix");
	p.cg2_writable = 0;
	strcpy(p.cg2_available, "memory");
	is_int(probe_can(&p, "memory", why, sizeof(why)), 0,
	    "read-only cgroup: no memory");

	p.subuid_n = 2;
	p.subuid_start[0] = 100000;
	p.subuid_count[0] = 65536;
	p.subuid_start[1] = 300000;
	p.subuid_count[1] = 1;
	ok(probe_subuid_ok(&p, 100000), "first id of range");
	ok(probe_subuid_ok(&p, 165535), "last id of range");
	ok(!probe_subuid_ok(&p, 165536), "one past the range");
	ok(probe_subuid_ok(&p, 300000) && !probe_subuid_ok(&p, 300001),
	    "single-id range");
	p.subgid_n = 0;
	ok(!probe_subgid_ok(&p, 100000), "no subgid ranges");

	test_daemons();
	return done_testing();
}
