/* SPDX-License-Identifier: ISC */
/* landlock: a plan's ruleset, from the ABI table of llabi.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "landlock.h"
#include "uapi.h"

/* Rights that may appear in a rule on a non-directory. */
#define FS_FILE                                                        \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |  \
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	    LANDLOCK_ACCESS_FS_IOCTL_DEV)

uint64_t
ll_intent_rights(enum plan_intent in, int is_dir, int abi)
{
	const struct ll_abi_rights *r = ll_rights(abi);
	uint64_t ro = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	uint64_t v;

	if (r == NULL)
		return 0;
	switch (in) {
	case PLAN_RO:
		v = ro;
		break;
	case PLAN_ROX:
		v = ro | LANDLOCK_ACCESS_FS_EXECUTE;
		break;
	case PLAN_RW:
		v = r->fs & ~(uint64_t)(LANDLOCK_ACCESS_FS_EXECUTE |
				    LANDLOCK_ACCESS_FS_MAKE_CHAR |
				    LANDLOCK_ACCESS_FS_MAKE_BLOCK);
		break;
	default:
		return 0;
	}
	v &= r->fs;
	if (!is_dir)
		v &= FS_FILE;
	return v;
}

static int
add_path(int rfd, const struct plan_fsrule *fr, int abi, char *err,
    size_t errlen)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;
	int fd, e;

	/* O_PATH: no read access needed to name the hierarchy; the rule
	 * binds to this inode, so a later rename cannot move it. */
	fd = open(fr->path, O_PATH | O_CLOEXEC);
	if (fd == -1)
		return err_set_sys(err, errlen, "landlock: %s", fr->path);
	if (fstat(fd, &st) == -1) {
		err_set_sys(err, errlen, "landlock: %s", fr->path);
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = ll_intent_rights(fr->intent, S_ISDIR(st.st_mode),
	    abi);
	if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH,
		&pb, 0) == -1) {
		err_set_sys(err, errlen, "landlock: rule for %s refused",
		    fr->path);
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

static int
add_port(int rfd, uint16_t port, uint64_t access, char *err, size_t errlen)
{
	struct borne_landlock_net_port_attr np;

	np.allowed_access = access;
	np.port = port;
	if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_NET_PORT, &np,
		0) == -1)
		return err_set_sys(err, errlen, "landlock: rule for tcp port "
		    "%u refused", (unsigned)port);
	return 0;
}

int
ll_build(const struct plan *p, int abi, int *rfd, char *err, size_t errlen)
{
	const struct ll_abi_rights *r = ll_rights(abi);
	struct borne_landlock_ruleset_attr attr;
	size_t attrsz, i;
	int fd, e;

	*rfd = -1;
	if (r == NULL) {
		errno = EOPNOTSUPP;
		return err_set(err, errlen, "landlock: not available");
	}
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = r->fs;
	attr.handled_access_net = r->net;
	attr.scoped = r->scoped;
	/* Pass the struct size the ABI knows: older kernels reject a
	 * larger struct with non-zero unknown fields (E2BIG). */
	if (r->scoped)
		attrsz = sizeof(attr);
	else if (r->net)
		attrsz = offsetof(struct borne_landlock_ruleset_attr, scoped);
	else
		attrsz = offsetof(struct borne_landlock_ruleset_attr,
		    handled_access_net);
	fd = (int)syscall(__NR_landlock_create_ruleset, &attr, attrsz, 0);
	if (fd == -1)
		return err_set_sys(err, errlen, "landlock: create ruleset");
	for (i = 0; i < p->nfs; i++)
		if (add_path(fd, &p->fs[i], abi, err, errlen) == -1)
			goto fail;
	if (r->net && (p->sock & PLAN_SOCK_TCP)) {
		for (i = 0; i < p->nconnect; i++)
			if (add_port(fd, p->connect_tcp[i],
				LANDLOCK_ACCESS_NET_CONNECT_TCP, err,
				errlen) == -1)
				goto fail;
		for (i = 0; i < p->nbind; i++)
			if (add_port(fd, p->bind_tcp[i],
				LANDLOCK_ACCESS_NET_BIND_TCP, err,
				errlen) == -1)
				goto fail;
	}
	*rfd = fd;
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
ll_enforce(int rfd, int abi)
{
	(void)abi;	/* default logging: no restrict_self flags */
	if (syscall(__NR_landlock_restrict_self, rfd, 0) == -1)
		return -1;
	return 0;
}
