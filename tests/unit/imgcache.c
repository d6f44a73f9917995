/* SPDX-License-Identifier: ISC */
/* Unit tests of common/imgcache: directory checks, fill and lookup, what
 * is never cached or indexed, forged entries, the read lease, and the
 * bound (LRU eviction by atime).  Needs root (CAP_LINUX_IMMUTABLE) and a
 * filesystem with the immutable flag under TMPDIR; skips otherwise. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "hash.h"
#include "imgcache.h"
#include "tap.h"

static char top[256], cdir[300];

/* A fake program: the ELF magic, then len - 4 bytes of seed. */
static void
mkprog(const char *name, size_t len, int seed, char *path, size_t plen,
    uint8_t d[32])
{
	unsigned char *buf = malloc(len);
	int fd;

	memset(buf, seed, len);
	memcpy(buf, "\177ELF", 4);
	snprintf(path, plen, "%s/%s", top, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd == -1 || write(fd, buf, len) != (ssize_t)len) {
		perror(path);
		exit(1);
	}
	close(fd);
	sha256_buf(buf, len, d);
	free(buf);
}

static int
count(const char *prefix)
{
	struct dirent *e;
	DIR *d = opendir(cdir);
	int n = 0;

	while (d != NULL && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' &&
		    strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	if (d != NULL)
		closedir(d);
	return n;
}

/* Whether an image of digest d (named <hex>) is in the cache. */
static int
has(const uint8_t d[32])
{
	char hex[SHA256_HEX_LEN + 1], path[400];
	struct stat st;

	sha256_hex(d, hex);
	snprintf(path, sizeof(path), "%s/%s", cdir, hex);
	return lstat(path, &st) == 0;
}

static int
immutable(int fd)
{
	int fl = 0;

	return ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 && (fl & FS_IMMUTABLE_FL);
}

/* Fill path into c; the fd (or -1) and errno. */
static int
fill(struct imgcache *c, const char *path, const uint8_t *pin,
    uint8_t d[32], const char **what)
{
	struct stat st;
	int src, fd, e;

	src = open(path, O_RDONLY | O_CLOEXEC);
	if (src == -1 || fstat(src, &st) == -1)
		return -1;
	fd = imgcache_fill(c, src, &st, path, pin, d, what);
	e = errno;
	close(src);
	errno = e;
	return fd;
}

static int
lookup(struct imgcache *c, const char *path, uint8_t d[32])
{
	struct stat st;

	if (stat(path, &st) == -1)
		return -1;
	return imgcache_lookup(c, path, &st, d, &(struct stat){0});
}

/* The SHA-256 of len bytes of fd. */
static int
hash_of(int fd, size_t len, uint8_t d[32])
{
	unsigned char *buf = malloc(len);
	int r;

	r = buf != NULL && pread(fd, buf, len, 0) == (ssize_t)len ? 0 : -1;
	if (r == 0)
		sha256_buf(buf, len, d);
	free(buf);
	return r;
}

/* The index entry of the source path. */
static void
idx_path(const char *src, char *out, size_t len)
{
	uint8_t d[32];
	char hex[SHA256_HEX_LEN + 1];

	sha256_buf(src, strlen(src), d);
	sha256_hex(d, hex);
	snprintf(out, len, "%s/i-%s", cdir, hex);
}

/* Rewrite the first occurrence of from in the file as to (same length),
 * as a process with CAP_LINUX_IMMUTABLE could: the flag cleared, the
 * bytes changed in place, the flag set again when seal.  0 or -1. */
static int
rewrite(const char *path, const char *from, const char *to, int seal)
{
	char buf[8192], *at;
	ssize_t n;
	int fd, fl = 0, r = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	ioctl(fd, FS_IOC_GETFLAGS, &fl);
	fl &= ~FS_IMMUTABLE_FL;
	ioctl(fd, FS_IOC_SETFLAGS, &fl);
	close(fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd == -1)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = '\0';
		at = memmem(buf, (size_t)n, from, strlen(from));
		if (at != NULL && pwrite(fd, to, strlen(to), at - buf) ==
		    (ssize_t)strlen(to))
			r = 0;
	}
	if (seal) {
		fl |= FS_IMMUTABLE_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &fl) == -1)
			r = -1;
	}
	close(fd);
	return r;
}

static void
clear_all(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "chattr -R -i '%s' 2>/dev/null; rm -rf '%s'",
	    dir, dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# cleanup of %s failed\n", dir);
}

int
main(void)
{
	struct imgcache c;
	const char *what;
	char p1[300], p2[300], p3[300], p4[300], ps[300], pn[300], pr[300];
	char pw[300], bad[300];
	uint8_t d1[32], d2[32], d3[32], d4[32], ds[32], dn[32], dr[32];
	uint8_t got[32], other[32];
	struct timespec pause = {0, 30 * 1000 * 1000};
	struct statvfs vfs;
	struct stat st;
	char q[8][300], qn[16], pa[300], pb[300], pt[300], ph[300], ph2[300];
	uint8_t dq[8][32], da[32], db[32], dt[32], dh[32];
	struct stat s1, s2;
	int fd, fd2, wfd, probe, r, i, n;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 0;
	}
	snprintf(top, sizeof(top), "%s/borne-imgcache.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(top) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(pw, sizeof(pw), "%s/probe", top);
	probe = open(pw, O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	if (probe == -1 || !(ioctl(probe, FS_IOC_GETFLAGS, &(int){0}) == 0)) {
		printf("1..0 # SKIP no immutable flag under %s\n", top);
		clear_all(top);
		return 0;
	}
	close(probe);

	/* Directory checks. */
	snprintf(bad, sizeof(bad), "%s/open", top);
	mkdir(bad, 0755);
	ok(imgcache_open(&c, bad, 0) == -1 && c.dirfd == -1,
	    "a 0755 directory is not used");
	ok(strstr(c.note, "mode 0755, not root:root 0700") != NULL,
	    "the note says why: %s", c.note);
	snprintf(cdir, sizeof(cdir), "%s/new/images", top);
	is_int(imgcache_open(&c, cdir, 120 * 1024), 0,
	    "a missing directory is made, 0700");
	ok(stat(cdir, &st) == 0 && (st.st_mode & 07777) == 0700 &&
	    st.st_uid == 0, "root:root 0700");
	is_str(c.note, "", "no note");

	/* Sources, aged past the racy window, plus one fresh. */
	mkprog("p1", 40 * 1024, 1, p1, sizeof(p1), d1);
	mkprog("p2", 40 * 1024, 2, p2, sizeof(p2), d2);
	mkprog("p3", 40 * 1024, 3, p3, sizeof(p3), d3);
	mkprog("p4", 8 * 1024, 4, p4, sizeof(p4), d4);
	mkprog("pr", 8 * 1024, 9, pr, sizeof(pr), dr);
	mkprog("script", 100, '#', ps, sizeof(ps), ds);
	mkprog("big", 64 * 1024, 7, bad, sizeof(bad), other);
	for (i = 0; i < 8; i++) {
		snprintf(qn, sizeof(qn), "q%d", i);
		mkprog(qn, 8 * 1024, 20 + i, q[i], sizeof(q[i]), dq[i]);
	}
	mkprog("dupa", 8 * 1024, 30, pa, sizeof(pa), da);
	mkprog("dupb", 8 * 1024, 30, pb, sizeof(pb), db);
	mkprog("tampered", 8 * 1024, 31, pt, sizeof(pt), dt);
	mkprog("held", 8 * 1024, 32, ph, sizeof(ph), dh);
	mkprog("held2", 8 * 1024, 32, ph2, sizeof(ph2), dh);
	snprintf(pn, sizeof(pn), "%s/notelf", top);
	fd = open(pn, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	ok(fd != -1 && write(fd, "hello world\n", 12) == 12, "a non-ELF file");
	close(fd);
	sha256_buf("hello world\n", 12, dn);
	fd = open(ps, O_WRONLY | O_CLOEXEC);
	ok(fd != -1 && write(fd, "#!/bin/sh\n", 10) == 10, "a #! script");
	close(fd);
	sleep(4);
	mkprog("fresh", 8 * 1024, 8, pw, sizeof(pw), got);

	/* Miss, fill, hit. */
	ok(lookup(&c, p1, got) == -1 && errno == ENOENT, "empty: a miss");
	fd = fill(&c, p1, NULL, got, &what);
	ok(fd != -1, "fill p1");
	ok(memcmp(got, d1, 32) == 0, "the digest is the bytes'");
	ok(fd != -1 && immutable(fd), "the image is immutable");
	ok(fd != -1 && fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0555 &&
	    st.st_nlink == 1 && st.st_size == 40 * 1024, "0555, one link");
	is_int(imgcache_is_file(fd), 1, "a cached image is a file");
	close(fd);
	is_int(count("i-"), 1, "one index entry");
	memset(got, 0, 32);
	fd = lookup(&c, p1, got);
	ok(fd != -1 && memcmp(got, d1, 32) == 0, "a hit, with p1's digest");
	if (fd != -1)
		close(fd);
	fd = imgcache_get(&c, -1, &(struct stat){0}, "x", NULL, got, &what);
	ok(fd == -1, "an unknown identity with no source: no image");

	/* What is refused, and never enters the cache. */
	fd = fill(&c, p2, d1, got, &what);
	ok(fd == -1 && errno == EBADMSG, "a pin mismatch: EBADMSG");
	ok(!has(d2), "the mismatching copy is not kept");
	fd = fill(&c, ps, NULL, got, &what);
	ok(fd == -1 && errno == ENOEXEC && what && strstr(what, "#!"),
	    "a #! script: ENOEXEC (%s)", what ? what : "");
	fd = fill(&c, pn, NULL, got, &what);
	ok(fd == -1 && errno == ENOEXEC, "not ELF: ENOEXEC");
	ok(!has(ds) && !has(dn), "neither is kept");
	fd = fill(&c, bad, NULL, got, &what);
	ok(fd == -1 && errno == EFBIG, "beyond half the bound: EFBIG");

	/* A writer holding the source open: no lease, no fill. */
	wfd = open(p2, O_WRONLY | O_CLOEXEC);
	fd = fill(&c, p2, NULL, got, &what);
	ok(fd == -1 && errno == EAGAIN, "a source open for writing: EAGAIN");
	ok(!has(d2), "and nothing cached");
	close(wfd);

	/* A fresh source is cached but not indexed. */
	fd = fill(&c, pw, NULL, got, &what);
	ok(fd != -1, "a source changed seconds ago is cached");
	if (fd != -1)
		close(fd);
	is_int(count("i-"), 1, "but not indexed");
	ok(lookup(&c, pw, got) == -1 && errno == ENOENT,
	    "so its next launch fills again");

	/* A forged index entry: p4 indexed, then its entry rewritten to name
	 * p1's image without the immutable flag (as a capability-less
	 * process would have to leave it). */
	fd = fill(&c, p4, NULL, got, &what);
	ok(fd != -1 && memcmp(got, d4, 32) == 0, "fill p4");
	if (fd != -1)
		close(fd);
	{
		char ip[400], h1[SHA256_HEX_LEN + 1], h4[SHA256_HEX_LEN + 1];

		sha256_hex(d1, h1);
		sha256_hex(d4, h4);
		idx_path(p4, ip, sizeof(ip));
		r = rewrite(ip, h4, h1, 0);
		ok(r == 0,
		    "p4's index entry forged to name p1's image");
	}
	ok(lookup(&c, p4, got) == -1 && errno == ENOENT,
	    "a mutable index entry is not trusted: a miss");
	fd = fill(&c, p4, NULL, got, &what);
	ok(fd != -1 && memcmp(got, d4, 32) == 0, "refilled: the forged entry "
	    "is replaced");
	if (fd != -1)
		close(fd);
	fd = lookup(&c, p4, got);
	ok(fd != -1 && memcmp(got, d4, 32) == 0, "p4 is p4 again");
	if (fd != -1)
		close(fd);

	/* The bound: 120 KiB.  p1 (40 KiB) is used after p2 is filled, so
	 * filling p3 evicts p2, the least recently used. */
	fd = fill(&c, p2, NULL, got, &what);
	ok(fd != -1 && has(d2), "fill p2");
	if (fd != -1)
		close(fd);
	nanosleep(&pause, NULL);
	fd = lookup(&c, p1, got);
	ok(fd != -1 && pread(fd, other, 1, 0) == 1, "p1 used (read)");
	if (fd != -1)
		close(fd);
	nanosleep(&pause, NULL);
	fd2 = fill(&c, p3, NULL, got, &what);
	ok(fd2 != -1 && has(d3), "fill p3 beyond the bound");
	if (statvfs(cdir, &vfs) == 0 && (vfs.f_flag & ST_NOATIME)) {
		ok(1, "# SKIP a noatime mount: eviction is by creation order");
		ok(1, "# SKIP a noatime mount");
	} else {
		ok(!has(d2), "p2, least recently used, was evicted");
		ok(has(d1), "p1, used since, stays");
	}
	ok(lookup(&c, p2, got) == -1, "p2's index entry went with it");
	/* An evicted image still open keeps its bytes. */
	fd = lookup(&c, p3, got);
	ok(fd != -1 && memcmp(got, d3, 32) == 0, "p3 is a hit");
	if (fd != -1)
		close(fd);
	if (fd2 != -1)
		close(fd2);

	/* Landlock rules go to files only. */
	fd = memfd_create("x", MFD_CLOEXEC);
	is_int(imgcache_is_file(fd), 0, "a memfd is not a cached image");
	close(fd);

	/* A fill racing nothing: dr, then the same bytes by another path
	 * share one image. */
	fd = fill(&c, pr, NULL, got, &what);
	ok(fd != -1 && memcmp(got, dr, 32) == 0, "fill pr");
	if (fd != -1)
		close(fd);
	mkprog("pr2", 8 * 1024, 9, pw, sizeof(pw), got);
	fd = fill(&c, pw, NULL, got, &what);
	ok(fd != -1 && memcmp(got, dr, 32) == 0, "the same bytes again: the "
	    "existing image is used");
	if (fd != -1)
		close(fd);

	/* An image's name: its digest, whatever the source's. */
	mkprog(".we ird\nname", 4 * 1024, 5, pw, sizeof(pw), got);
	fd = fill(&c, pw, NULL, other, &what);
	{
		char link[100], want[400], hex[SHA256_HEX_LEN + 1];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = fd == -1 ? -1 : readlink(link, pw, sizeof(pw) - 1);
		pw[n > 0 ? n : 0] = '\0';
		sha256_hex(got, hex);
		snprintf(want, sizeof(want), "%s/%s", cdir, hex);
		is_str(pw, want, "an image is named by its digest alone");
	}
	if (fd != -1)
		close(fd);

	imgcache_close(&c);

	/* A cache with room (1 GiB), and no grace for unindexed images. */
	snprintf(cdir, sizeof(cdir), "%s/c2", top);
	is_int(imgcache_open(&c, cdir, 0), 0, "a second cache");
	c.grace = 0;

	/* One image per distinct content: two names, one image. */
	fd = fill(&c, pa, NULL, got, &what);
	fd2 = fill(&c, pb, NULL, got, &what);
	ok(fd != -1 && fd2 != -1 && fstat(fd, &s1) == 0 &&
	    fstat(fd2, &s2) == 0 && s1.st_ino == s2.st_ino,
	    "the same bytes under two names: one inode");
	is_int(count(""), 3, "one image, two index entries");
	if (fd != -1)
		close(fd);
	if (fd2 != -1)
		close(fd2);
	fd = lookup(&c, pb, got);
	ok(fd != -1 && memcmp(got, db, 32) == 0, "each name is a hit");
	/* A hit holds a read lease until its fd is closed. */
	ok(fd != -1 && fcntl(fd, F_GETLEASE) == F_RDLCK,
	    "a hit's fd holds a read lease");
	if (fd != -1)
		close(fd);

	/* Entries of deleted sources go at the next fill. */
	for (i = 0; i < 8; i++) {
		fd = fill(&c, q[i], NULL, got, &what);
		if (fd != -1)
			close(fd);
	}
	is_int(count("i-"), 10, "8 more sources indexed");
	for (i = 0; i < 8; i++)
		unlink(q[i]);
	fd = fill(&c, pt, NULL, got, &what);
	ok(fd != -1 && memcmp(got, dt, 32) == 0, "a later fill");
	if (fd != -1)
		close(fd);
	is_int(count("i-"), 3, "the 8 deleted sources' index entries went");
	n = 0;
	for (i = 0; i < 8; i++)
		n += has(dq[i]);
	is_int(n, 0, "and their images, named by no entry");
	/* A source rewritten: its old entry goes too. */
	fd = open(pb, O_WRONLY | O_APPEND | O_CLOEXEC);
	ok(fd != -1 && write(fd, "x", 1) == 1, "dupb rewritten");
	if (fd != -1)
		close(fd);
	fd = fill(&c, ph, NULL, got, &what);
	if (fd != -1)
		close(fd);
	is_int(count("i-"), 3, "dupb's entry for its old version went");

	/* An image changed by a process with CAP_LINUX_IMMUTABLE (flag
	 * cleared, a byte changed, flag set again): its identity moved, the
	 * index no longer trusts it, and a fill does not reuse it. */
	{
		char ip[400], ht[SHA256_HEX_LEN + 1];
		uint8_t now[32];

		sha256_hex(dt, ht);
		snprintf(ip, sizeof(ip), "%s/%s", cdir, ht);
		r = rewrite(ip, "\037\037\037\037", "XXXX", 1);
		ok(r == 0, "the tampered source's image changed in place");
		ok(lookup(&c, pt, got) == -1 && errno == ENOENT,
		    "its identity moved: a miss");
		fd = fill(&c, pt, NULL, got, &what);
		ok(fd != -1 && hash_of(fd, 8 * 1024, now) == 0 &&
		    memcmp(now, dt, 32) == 0, "refilled: the image's bytes "
		    "hash to its name again");
		if (fd != -1)
			close(fd);
	}

	/* An image someone holds open for writing is not used. */
	{
		char ip[400], hh[SHA256_HEX_LEN + 1];
		uint8_t now[32];
		int fl = 0;

		sha256_hex(dh, hh);
		snprintf(ip, sizeof(ip), "%s/%s", cdir, hh);
		fd = open(ip, O_RDONLY | O_CLOEXEC);
		ioctl(fd, FS_IOC_GETFLAGS, &fl);
		fl &= ~FS_IMMUTABLE_FL;
		ioctl(fd, FS_IOC_SETFLAGS, &fl);
		wfd = open(ip, O_RDWR | O_CLOEXEC);
		fl |= FS_IMMUTABLE_FL;
		ok(wfd != -1 && ioctl(fd, FS_IOC_SETFLAGS, &fl) == 0,
		    "held's image open for writing, immutable again");
		close(fd);
		fd = fill(&c, ph2, NULL, got, &what);
		ok(fd != -1 && fstat(fd, &s1) == 0 && fstat(wfd, &s2) == 0 &&
		    s1.st_ino != s2.st_ino && hash_of(fd, 8 * 1024, now) == 0 &&
		    memcmp(now, dh, 32) == 0, "the same bytes by another name: "
		    "a new image, not the one with a writer");
		if (fd != -1)
			close(fd);
		close(wfd);
	}

	imgcache_close(&c);
	clear_all(top);
	return done_testing();
}
