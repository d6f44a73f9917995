/* SPDX-License-Identifier: ISC */
/* elfinterp: PT_INTERP of real images (this host's /bin/sh, a static-pie
 * ldconfig where present), of crafted headers, and of non-ELF files; and
 * tmpdir: made private, emptied without following links. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfinterp.h"
#include "tap.h"
#include "tmpdir.h"

/* (ok() and is_int() evaluate their arguments twice: every call with a
 * side effect is made first, its result tested after.) */
static int
interp_of(const char *path, char *out, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd == -1)
		return -2;
	r = elf_interp(fd, out, size);
	close(fd);
	return r;
}

/* A file holding n bytes of buf. */
static int
memfile(const void *buf, size_t n)
{
	char path[] = "/tmp/borne-elf-XXXXXX";
	int fd = mkstemp(path);

	if (fd == -1)
		return -1;
	unlink(path);
	if (write(fd, buf, n) != (ssize_t)n)
		return -1;
	return fd;
}

static void
crafted(void)
{
	unsigned char img[200];
	char out[64];
	int fd, r, e;

	/* ELF64 LE, one PT_INTERP at 64 pointing at "/x/ld.so" at 120. */
	memset(img, 0, sizeof(img));
	memcpy(img, "\177ELF\2\1\1", 7);
	img[32] = 64;		/* e_phoff */
	img[54] = 56;		/* e_phentsize */
	img[56] = 1;		/* e_phnum */
	img[64] = 3;		/* p_type PT_INTERP */
	img[64 + 8] = 120;	/* p_offset */
	img[64 + 32] = 9;	/* p_filesz */
	memcpy(img + 120, "/x/ld.so", 9);
	fd = memfile(img, sizeof(img));
	r = elf_interp(fd, out, sizeof(out));
	is_int(r, 1, "crafted ELF64: interp");
	is_str(out, "/x/ld.so", "crafted ELF64: its path");
	r = elf_interp(fd, out, 5);
	is_int(r, -1, "interp longer than out: -1");
	close(fd);
	img[120 + 8] = 'z';	/* no NUL at the end */
	fd = memfile(img, sizeof(img));
	r = elf_interp(fd, out, sizeof(out));
	e = errno;
	is_int(r, -1, "unterminated interp");
	is_int(e, EINVAL, "... EINVAL");
	is_str(out, "", "... out empty");
	close(fd);
	img[64 + 8] = 250;	/* beyond the file */
	fd = memfile(img, sizeof(img));
	r = elf_interp(fd, out, sizeof(out));
	is_int(r, -1, "interp beyond the end");
	close(fd);
	img[56] = 0;		/* no program header: static */
	fd = memfile(img, sizeof(img));
	r = elf_interp(fd, out, sizeof(out));
	is_int(r, 0, "no PT_INTERP: 0");
	close(fd);
	fd = memfile("#!/bin/sh\n", 10);
	r = elf_interp(fd, out, sizeof(out));
	is_int(r, 0, "a script: 0");
	close(fd);
	fd = memfile("\177E", 2);
	r = elf_interp(fd, out, sizeof(out));
	is_int(r, 0, "two bytes: 0");
	close(fd);
}

static void
tmpdirs(void)
{
	char path[256], err[256], sub[300], link[300];
	struct stat st;
	int fd, i, r;

	/* ok() evaluates its condition twice: side effects first. */
	r = tmpdir_make("/tmp", (uid_t)-1, (gid_t)-1, path, sizeof(path), &fd,
	    err, sizeof(err));
	ok(r == 0, "tmpdir_make: %s", err);
	ok(strncmp(path, "/tmp/borne-tmp-", 15) == 0 && strlen(path) == 47,
	    "named borne-tmp-<32 hex>: %s", path);
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0700,
	    "mode 0700");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "fd close-on-exec");
	close(fd);
	/* A tree with a link out, an unreadable directory, a deep one. */
	snprintf(sub, sizeof(sub), "%s/d", path);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/d/f", path);
	close(open(sub, O_CREAT | O_WRONLY, 0600));
	snprintf(link, sizeof(link), "%s/out", path);
	r = symlink("/etc", link);
	ok(r == 0, "a symlink to /etc inside");
	snprintf(sub, sizeof(sub), "%s/deep", path);
	for (i = 0; i < 20; i++) {
		mkdir(sub, 0700);
		strcat(sub, "/x");
	}
	snprintf(sub, sizeof(sub), "%s/d", path);
	chmod(sub, 0);
	r = tmpdir_remove(path, err, sizeof(err));
	ok(r == 0, "tmpdir_remove: %s", err);
	ok(lstat(path, &st) == -1 && errno == ENOENT, "gone");
	ok(stat("/etc/passwd", &st) == 0, "the link's target is untouched");
	r = tmpdir_make("/nonexistent", (uid_t)-1, (gid_t)-1, path,
	    sizeof(path), &fd, err, sizeof(err));
	ok(r == -1 && fd == -1, "tmpdir_make under a missing base: -1");
	ok(strstr(err, "tmp: mkdir /nonexistent/borne-tmp-") != NULL,
	    "... naming it: %s", err);
}

int
main(void)
{
	char out[4096];
	int r;

	r = interp_of("/bin/sh", out, sizeof(out));
	is_int(r, 1, "/bin/sh is dynamic");
	ok(r == 1 && out[0] == '/' && strstr(out, "ld") != NULL,
	    "its interpreter is a loader path: %s", out);
	r = interp_of("/sbin/ldconfig", out, sizeof(out));
	if (r == -2)
		ok(1, "# SKIP no /sbin/ldconfig");
	else
		is_int(r, 0, "static-pie ldconfig: no interpreter");
	crafted();
	tmpdirs();
	return done_testing();
}
