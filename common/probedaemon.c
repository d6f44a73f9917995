/* SPDX-License-Identifier: ISC */
/* probedaemon: the trust handoff part of the probe: which privileged local
 * daemons (docker, containerd, libvirt, D-Bus, ...) have a socket here and
 * whether given credentials could connect to it.  lstat and stat only. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "probe.h"

struct daemon_path {
	const char *name;
	const char *path;	/* absolute, or relative to XDG_RUNTIME_DIR */
	int xdg;
};

static const struct daemon_path daemon_paths[] = {
	{ "docker", "/run/docker.sock", 0 },
	{ "docker", "/var/run/docker.sock", 0 },
	{ "containerd", "/run/containerd/containerd.sock", 0 },
	{ "containerd", "/var/run/containerd/containerd.sock", 0 },
	{ "containerd-k3s", "/run/k3s/containerd/containerd.sock", 0 },
	{ "podman", "/run/podman/podman.sock", 0 },
	{ "buildkit", "/run/buildkit/buildkitd.sock", 0 },
	{ "crio", "/run/crio/crio.sock", 0 },
	{ "cri-dockerd", "/run/cri-dockerd.sock", 0 },
	{ "libvirt", "/run/libvirt/libvirt-sock", 0 },
	{ "libvirt-ro", "/run/libvirt/libvirt-sock-ro", 0 },
	{ "libvirt-admin", "/run/libvirt/libvirt-admin-sock", 0 },
	{ "virtqemud", "/run/libvirt/virtqemud-sock", 0 },
	{ "dbus-system", "/run/dbus/system_bus_socket", 0 },
	{ "dbus-system", "/var/run/dbus/system_bus_socket", 0 },
	{ "systemd", "/run/systemd/private", 0 },
	{ "snapd", "/run/snapd.socket", 0 },
	{ "snapd-snap", "/run/snapd-snap.socket", 0 },
	{ "lxd", "/var/snap/lxd/common/lxd/unix.socket", 0 },
	{ "lxd", "/var/lib/lxd/unix.socket", 0 },
	{ "incus", "/var/lib/incus/unix.socket", 0 },
	{ "docker-rootless", "docker.sock", 1 },
	{ "podman-rootless", "podman/podman.sock", 1 },
	{ "buildkit-rootless", "buildkit/buildkitd.sock", 1 },
	{ NULL, NULL, 0 },
};

/* DAC for credentials uid/gid without supplementary groups.  With a POSIX
 * ACL, a non-owner may be granted anything the mask (group bits) allows:
 * answer yes then, erring towards "reachable". */
static int
dac_allows(const char *path, const struct stat *st, uid_t uid, gid_t gid,
    unsigned want)
{
	unsigned m = (unsigned)st->st_mode;

	if (st->st_uid == uid)
		return ((m >> 6) & want) == want;
	if (lgetxattr(path, "system.posix_acl_access", NULL, 0) > 0 &&
	    (((m >> 3) & want) == want || (m & want) == want))
		return 1;
	if (st->st_gid == gid)
		return ((m >> 3) & want) == want;
	return (m & want) == want;
}

static int
connectable(const char *path, const struct stat *sst, uid_t uid, gid_t gid)
{
	char dir[PATH_MAX], *real, *s, c;
	struct stat st;
	int ok = 1;

	if (uid == 0)
		return 1;	/* root passes DAC (CAP_DAC_OVERRIDE) */
	if (!dac_allows(path, sst, uid, gid, 2))
		return 0;
	snprintf(dir, sizeof(dir), "%s", path);
	s = strrchr(dir, '/');
	if (s == NULL)
		return 0;
	if (s == dir)
		s[1] = '\0';
	else
		*s = '\0';
	real = realpath(dir, NULL);
	if (real == NULL)
		return 1;	/* cannot tell: say reachable */
	/* search permission on "/", then on every prefix of the real path
	 * (a prefix that vanished meanwhile is not held against it) */
	if (stat("/", &st) == 0 && !dac_allows("/", &st, uid, gid, 1))
		ok = 0;
	for (s = real + 1; ok && *s != '\0'; s++) {
		if (s[1] != '/' && s[1] != '\0')
			continue;
		c = s[1];
		s[1] = '\0';
		if (stat(real, &st) == 0 && !dac_allows(real, &st, uid, gid, 1))
			ok = 0;
		s[1] = c;
	}
	free(real);
	return ok;
}

int
probe_daemons(uid_t uid, gid_t gid, struct daemon_hit *hits, size_t max,
    size_t *n)
{
	const struct daemon_path *d;
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	dev_t devs[64];
	ino_t inos[64];
	size_t seen = 0, i;
	int over = 0;

	*n = 0;
	for (d = daemon_paths; d->name != NULL; d++) {
		char path[PATH_MAX];
		struct stat st;
		int dup = 0;

		if (d->xdg) {
			if (xdg == NULL || xdg[0] != '/')
				continue;
			if (snprintf(path, sizeof(path), "%s/%s", xdg,
			    d->path) >= (int)sizeof(path))
				continue;
		} else {
			snprintf(path, sizeof(path), "%s", d->path);
		}
		if (lstat(path, &st) == -1 || !S_ISSOCK(st.st_mode))
			continue;
		for (i = 0; i < seen; i++)
			if (devs[i] == st.st_dev && inos[i] == st.st_ino)
				dup = 1;
		if (dup)
			continue;
		if (seen < sizeof(devs) / sizeof(devs[0])) {
			devs[seen] = st.st_dev;
			inos[seen++] = st.st_ino;
		}
		if (*n >= max) {
			over = 1;
			continue;
		}
		hits[*n].name = d->name;
		snprintf(hits[*n].path, sizeof(hits[*n].path), "%s", path);
		hits[*n].connectable = connectable(path, &st, uid, gid);
		hits[*n].dev = st.st_dev;
		hits[*n].ino = st.st_ino;
		(*n)++;
	}
	if (over)
		return errno = E2BIG, -1;
	return 0;
}
