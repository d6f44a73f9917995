/* SPDX-License-Identifier: ISC */
/* landlock: ABI -> rights table and ruleset construction. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "uapi.h"

#define FS_V1                                                              \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |      \
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |   \
	    LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |   \
	    LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |   \
	    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
	    LANDLOCK_ACCESS_FS_MAKE_SYM)
#define FS_V2 (FS_V1 | LANDLOCK_ACCESS_FS_REFER)
#define FS_V3 (FS_V2 | LANDLOCK_ACCESS_FS_TRUNCATE)
#define FS_V5 (FS_V3 | LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define NET_V4 (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP)
#define SCOPE_V6 \
	(LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)
#define LOG_V7                                      \
	(LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF | \
	    LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON |  \
	    LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF)

/* The one table of Landlock feature levels (Documentation/userspace-api/
 * landlock.rst, "Previous limitations" and the ABI history). */
static const struct ll_abi_rights table[] = {
	{1, FS_V1, 0, 0, 0},
	{2, FS_V2, 0, 0, 0},		/* REFER: cross-directory rename/link */
	{3, FS_V3, 0, 0, 0},		/* TRUNCATE */
	{4, FS_V3, NET_V4, 0, 0},	/* TCP bind/connect */
	{5, FS_V5, NET_V4, 0, 0},	/* IOCTL_DEV */
	{6, FS_V5, NET_V4, SCOPE_V6, 0}, /* scopes */
	{7, FS_V5, NET_V4, SCOPE_V6, LOG_V7}, /* audit log flags */
};
#define NTABLE (sizeof(table) / sizeof(table[0]))

/* Rights that may appear in a rule on a non-directory. */
#define FS_FILE                                                        \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |  \
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	    LANDLOCK_ACCESS_FS_IOCTL_DEV)

int
ll_abi(void)
{
	long v;

	v = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

const struct ll_abi_rights *
ll_rights(int abi)
{
	if (abi < 1)
		return NULL;
	if ((size_t)abi > NTABLE)
		return &table[NTABLE - 1];
	return &table[abi - 1];
}

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
	if (fd == -1) {
		e = errno;
		snprintf(err, errlen, "landlock: %s: %s", fr->path,
		    strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "landlock: %s: %s", fr->path,
		    strerror(e));
		errno = e;
		return -1;
	}
	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = ll_intent_rights(fr->intent, S_ISDIR(st.st_mode),
	    abi);
	if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH,
		&pb, 0) == -1) {
		e = errno;
		close(fd);
		snprintf(err, errlen, "landlock: rule for %s refused: %s",
		    fr->path, strerror(e));
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
	int e;

	np.allowed_access = access;
	np.port = port;
	if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_NET_PORT, &np,
		0) == -1) {
		e = errno;
		snprintf(err, errlen, "landlock: rule for tcp port %u refused: %s",
		    (unsigned)port, strerror(e));
		errno = e;
		return -1;
	}
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
		snprintf(err, errlen, "landlock: not available");
		errno = EOPNOTSUPP;
		return -1;
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
	if (fd == -1) {
		e = errno;
		snprintf(err, errlen, "landlock: create ruleset: %s",
		    strerror(e));
		errno = e;
		return -1;
	}
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
