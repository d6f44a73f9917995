/* SPDX-License-Identifier: ISC */
/* ename.h: errno names for the probes in tests/helpers/ (musl has no
 * strerrorname_np); an unnamed one prints as "errnoN". */
#ifndef BORNE_TEST_ENAME_H
#define BORNE_TEST_ENAME_H

#include <errno.h>
#include <stdio.h>

static const char *
ename(int e)
{
	static const struct {
		int e;
		const char *name;
	} names[] = {
		{EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"},
		{EIO, "EIO"}, {E2BIG, "E2BIG"}, {EBADF, "EBADF"},
		{EAGAIN, "EAGAIN"}, {EACCES, "EACCES"}, {EFAULT, "EFAULT"},
		{EEXIST, "EEXIST"}, {EXDEV, "EXDEV"}, {ENOTDIR, "ENOTDIR"},
		{EINVAL, "EINVAL"}, {ENOTTY, "ENOTTY"}, {ERANGE, "ERANGE"},
		{ENAMETOOLONG, "ENAMETOOLONG"}, {ENOSYS, "ENOSYS"},
		{ELOOP, "ELOOP"}, {EOPNOTSUPP, "EOPNOTSUPP"},
		{EAFNOSUPPORT, "EAFNOSUPPORT"}, {EADDRINUSE, "EADDRINUSE"},
		{ECONNREFUSED, "ECONNREFUSED"}, {EINPROGRESS, "EINPROGRESS"},
		{ENOTCONN, "ENOTCONN"}, {EISCONN, "EISCONN"},
		{ENODATA, "ENODATA"}, {EROFS, "EROFS"}, {EOVERFLOW, "EOVERFLOW"},
		{EDESTADDRREQ, "EDESTADDRREQ"}, {EPROTOTYPE, "EPROTOTYPE"},
		{ENOTSOCK, "ENOTSOCK"},
	};
	static char buf[32];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].name;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

#endif
