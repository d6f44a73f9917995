/* SPDX-License-Identifier: ISC */
/* imgcache_sweep: the cache's bound (imgcache_sweep.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "imgcache_store.h"
#include "imgcache_sweep.h"

struct ent {
	struct timespec atime;
	time_t ctime;
	uint64_t bytes;
	int image;		/* 1: an image (or a stray), 0: an index entry */
	int gone;
	char name[NAME_MAX_ENT];
	char img[SHA256_HEX_LEN + 1];	/* an index entry's image */
};

static int
by_atime(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->atime.tv_sec != y->atime.tv_sec)
		return x->atime.tv_sec < y->atime.tv_sec ? -1 : 1;
	if (x->atime.tv_nsec != y->atime.tv_nsec)
		return x->atime.tv_nsec < y->atime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The directory's entries (images, index entries, strays) and *total
 * their bytes on disk.  Returns the count, or -1. */
static ssize_t
list(int dirfd, struct ent **out, uint64_t *total)
{
	struct dirent *d;
	struct ent *v = NULL, *nv;
	struct stat st;
	size_t n = 0, cap = 0;
	DIR *dp;
	int fd;

	*total = 0;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 ||
		    strcmp(d->d_name, "..") == 0 ||
		    strcmp(d->d_name, LOCK_NAME) == 0 ||
		    strlen(d->d_name) >= NAME_MAX_ENT ||
		    fstatat(dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				break;
			v = nv;
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n].atime = st.st_atim;
		v[n].ctime = st.st_ctim.tv_sec;
		v[n].bytes = (uint64_t)st.st_blocks * 512;
		/* A name neither kind has (another version's, or planted)
		 * goes like an image no index entry names. */
		v[n].image = strncmp(d->d_name, "i-", 2) != 0 ||
		    strlen(d->d_name) != IDX_NAME_LEN;
		strcpy(v[n].name, d->d_name);
		*total += v[n].bytes;
		n++;
	}
	closedir(dp);
	*out = v;
	return (ssize_t)n;
}

/* Whether a live index entry names the image called name. */
static int
named(struct ent *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!v[i].image && !v[i].gone && strcmp(v[i].img, name) == 0)
			return 1;
	return 0;
}

/* The lock the sweep takes: .lock, mode 0000, immutable, empty, made as
 * any entry.  Not the directory itself: any process that can open the
 * directory (a root payload under --ro /) could hold a lock on it, and no
 * launch would sweep again.  Without CAP_DAC_OVERRIDE nobody can open a
 * mode 0000 file, its owner included, nor chmod an immutable one.  The
 * fd, or -1. */
static int
lock_open(struct imgcache *c)
{
	char keep[sizeof(c->note)];
	uint8_t empty[32];
	int fd, tmp, r;

	fd = openat(c->dirfd, LOCK_NAME, OPEN_RO);
	if (fd != -1 && imgcache_store_entry_ok(fd, 0, 0, NULL) == 0)
		return fd;
	if (fd != -1) {
		close(fd);
		imgcache_store_drop(c->dirfd, LOCK_NAME);
	}
	memcpy(keep, c->note, sizeof(keep));	/* not the launch's concern */
	sha256_buf(NULL, 0, empty);
	tmp = openat(c->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0);
	r = tmp == -1 || fchmod(tmp, 0) == -1 ? -1 :
	    imgcache_store_publish(c, tmp, LOCK_NAME, 0, 0, empty);
	if (tmp != -1)
		close(tmp);
	memcpy(c->note, keep, sizeof(keep));
	if (r == -1)
		return -1;
	fd = openat(c->dirfd, LOCK_NAME, OPEN_RO);
	if (fd != -1 && imgcache_store_entry_ok(fd, 0, 0, NULL) == -1) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* e, gone: dropped from the directory and from the total. */
static void
ent_drop(struct imgcache *c, struct ent *e, uint64_t *total)
{
	imgcache_store_drop(c->dirfd, e->name);
	e->gone = 1;
	*total -= e->bytes;
}

/* The index entries whose path no longer names the version they record
 * (deleted, or changed) go; one that cannot be read yet, younger than the
 * grace, is another launch's being sealed and stays.  A live entry's
 * image is noted in its img. */
static void
sweep_index(struct imgcache *c, struct ent *v, ssize_t n, time_t now,
    uint64_t *total)
{
	char buf[IDX_MAX + 1], id[ID_MAX], *sid, *hex, *iid, *p;
	struct stat st;
	ssize_t i, len;

	for (i = 0; i < n; i++) {
		if (v[i].image)
			continue;
		len = imgcache_store_idx_read(c->dirfd, v[i].name, buf);
		if (len != -1 && imgcache_store_idx_parse(buf, (size_t)len,
		    &sid, &hex, &iid, &p) == 0 && stat(p, &st) == 0) {
			imgcache_store_src_id(id, &st);
			if (strcmp(id, sid) == 0) {
				strcpy(v[i].img, hex);
				continue;
			}
		}
		if (len == -1 && v[i].ctime + (time_t)c->grace > now) {
			v[i].gone = 1;
			continue;
		}
		ent_drop(c, &v[i], total);
	}
}

/* The least recently used images (never keep) beyond the bound go, then
 * the index entries naming an image that is gone. */
static void
sweep_lru(struct imgcache *c, struct ent *v, ssize_t n, const char *keep,
    uint64_t *total)
{
	ssize_t i;

	qsort(v, (size_t)n, sizeof(*v), by_atime);
	for (i = 0; i < n && *total > c->max; i++) {
		if (!v[i].image || v[i].gone || strcmp(v[i].name, keep) == 0)
			continue;
		ent_drop(c, &v[i], total);
	}
	for (i = 0; i < n; i++) {
		if (v[i].image || v[i].gone || faccessat(c->dirfd, v[i].img,
		    F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		imgcache_store_drop(c->dirfd, v[i].name);
	}
}

void
imgcache_sweep(struct imgcache *c, const char *keep)
{
	struct timespec now;
	struct ent *v = NULL;
	uint64_t total;
	ssize_t n, i;
	int lk;

	lk = lock_open(c);
	if (lk == -1 || flock(lk, LOCK_EX | LOCK_NB) == -1) {
		if (lk != -1)
			close(lk);
		return;		/* another launch is at it */
	}
	clock_gettime(CLOCK_REALTIME, &now);
	n = list(c->dirfd, &v, &total);
	sweep_index(c, v, n, now.tv_sec, &total);
	/* The images no live index entry names, past the grace. */
	for (i = 0; i < n; i++) {
		if (!v[i].image || strcmp(v[i].name, keep) == 0 ||
		    named(v, (size_t)n, v[i].name) ||
		    v[i].ctime + (time_t)c->grace > now.tv_sec)
			continue;
		ent_drop(c, &v[i], &total);
	}
	if (n > 0 && total > c->max)
		sweep_lru(c, v, n, keep, &total);
	free(v);
	close(lk);
}
