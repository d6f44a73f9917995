/* SPDX-License-Identifier: ISC */
/* imgrace: race every new entry of the image cache DIR, as a process with
 * write access over it and no capability (uid 0: the owner of every entry)
 * would: on each name created there (inotify), make it writable (chmod,
 * as its owner) and open it for writing, again and again until it is
 * immutable (EPERM) or gone, then give it its mode back and overwrite
 * its last 8 bytes with "TAMPERED" (a program's trailing bytes: it still
 * runs).  Prints "ready"
 * once watching, then "wrote NAME" for each entry it wrote (perhaps one
 * confexec then threw away), "opened NAME" for each it could open for
 * writing; runs until killed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static void
attack(int dirfd, const char *name)
{
	struct stat st;
	mode_t mode = 0555;
	int i, fd = -1;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		mode = st.st_mode & 07777;
	for (i = 0; i < 20000 && fd == -1; i++) {
		fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd != -1 || errno == ENOENT || errno == EPERM)
			break;
		if (fchmodat(dirfd, name, 0755, 0) == -1 &&
		    (errno == ENOENT || errno == EPERM))
			break;
	}
	if (fd == -1)
		return;
	/* Its mode back as confexec made it, then the bytes. */
	(void)fchmod(fd, mode);
	printf("opened %s\n", name);
	if (fstat(fd, &st) == 0 && st.st_size >= 8 &&
	    pwrite(fd, "TAMPERED", 8, st.st_size - 8) == 8)
		printf("wrote %s\n", name);
	fflush(stdout);
	close(fd);
}

int
main(int argc, char *argv[])
{
	char buf[64 * (sizeof(struct inotify_event) + NAME_MAX + 1)];
	const struct inotify_event *ev;
	ssize_t n;
	char *p;
	int in, dirfd;

	if (argc != 2) {
		fprintf(stderr, "usage: imgrace DIR\n");
		return 2;
	}
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	in = inotify_init1(IN_CLOEXEC);
	if (dirfd == -1 || in == -1 ||
	    inotify_add_watch(in, argv[1], IN_CREATE | IN_MOVED_TO) == -1) {
		perror("imgrace");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			perror("imgrace: read");
			return 1;
		}
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->len > 0)
				attack(dirfd, ev->name);
		}
	}
}
