/* SPDX-License-Identifier: ISC */
/* llabi: the Landlock ABI -> rights table (Documentation/userspace-api/
 * landlock.rst, "Previous limitations" and the ABI history). */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "llabi.h"
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

const struct ll_abi_rights ll_abi_table[] = {
	{ 1, "fs", "landlock", FS_V1, 0, 0, 0 },
	/* REFER: cross-directory rename and link */
	{ 2, "refer", "landlock-refer", FS_V2, 0, 0, 0 },
	{ 3, "truncate", "landlock-truncate", FS_V3, 0, 0, 0 },
	{ 4, "tcp", "landlock-tcp", FS_V3, NET_V4, 0, 0 },
	{ 5, "ioctl_dev", "landlock-ioctl-dev", FS_V5, NET_V4, 0, 0 },
	/* abstract unix sockets and signals */
	{ 6, "scope", "landlock-scope", FS_V5, NET_V4, SCOPE_V6, 0 },
	/* audit log flags of landlock_restrict_self() */
	{ 7, "log_flags", "landlock-log", FS_V5, NET_V4, SCOPE_V6, LOG_V7 },
	{ 0, NULL, NULL, 0, 0, 0, 0 },
};
#define NTABLE (sizeof(ll_abi_table) / sizeof(ll_abi_table[0]) - 1)

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
		return &ll_abi_table[NTABLE - 1];
	return &ll_abi_table[abi - 1];
}
