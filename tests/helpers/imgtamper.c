/* SPDX-License-Identifier: ISC */
/* imgtamper: try to change the file PATH (a cached sealed image) every way
 * a process without capabilities could: one line per attempt, "op ERRNO"
 * (the errno's name, or "ok" when the attempt succeeded).  Exit 0 when no
 * attempt succeeded, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <linux/fs.h>

#include "err.h"

static int bad;

static const char *
ename(int e)
{
	const char *n = err_name(e);

	return n != NULL ? n : "other";
}

static void
say(const char *op, int r)
{
	if (r == -1) {
		printf("%s %s\n", op, ename(errno));
	} else {
		printf("%s ok\n", op);
		bad = 1;
	}
}

int
main(int argc, char *argv[])
{
	char other[4096];
	int fd, fl = 0;

	if (argc != 2 || strlen(argv[1]) > sizeof(other) - 8) {
		fprintf(stderr, "usage: imgtamper PATH\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	say("open-write", fd);
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	say("open-rdwr", fd);
	say("truncate", truncate(argv[1], 0));
	say("chmod", chmod(argv[1], 0777));
	say("chown", chown(argv[1], 1, 1));
	say("setxattr", setxattr(argv[1], "user.x", "1", 1, 0));
	snprintf(other, sizeof(other), "%s.moved", argv[1]);
	say("rename", rename(argv[1], other));
	snprintf(other, sizeof(other), "%s.link", argv[1]);
	say("link", link(argv[1], other));
	say("unlink", unlink(argv[1]));
	/* Replace: a new file renamed over it. */
	snprintf(other, sizeof(other), "%s.new", argv[1]);
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	say("create-beside", fd);
	if (fd != -1) {
		bad = 0;	/* creating is not changing the image */
		close(fd);
		say("rename-over", rename(other, argv[1]));
		unlink(other);
	}
	/* Clear the flag through an fd read-only opened. */
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		say("open-read", fd);
	} else if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == -1) {
		say("getflags", -1);
	} else {
		fl &= ~FS_IMMUTABLE_FL;
		say("clear-immutable", ioctl(fd, FS_IOC_SETFLAGS, &fl));
	}
	fd = open("/proc/self/exe", O_WRONLY | O_CLOEXEC);
	say("self-exe-write", fd);
	return bad;
}
