/* SPDX-License-Identifier: ISC */
/* privfile: the one stripper (privfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/capability.h>

#include "privfile.h"

/* Decode a vfs_cap_data xattr (v1, v2 or v3) into getcap-like text, plus
 * the v3 root id (-1 when none).  Never fails: unknown data is "invalid". */
static void
cap_text(const unsigned char *b, ssize_t n, char *out, size_t size,
    int *version, long long *rootid)
{
	uint32_t magic, perm[2] = { 0, 0 }, inh[2] = { 0, 0 };
	int words, i, bit;
	cap_t c;
	char *s;

	*version = 0;
	*rootid = -1;
	snprintf(out, size, "invalid");
	if (n < 4)
		return;
#define LE32(p) ((uint32_t)(p)[0] | (uint32_t)(p)[1] << 8 | \
	(uint32_t)(p)[2] << 16 | (uint32_t)(p)[3] << 24)
	magic = LE32(b);
	switch (magic & 0xff000000u) {
	case 0x01000000u: if (n != 12) return; words = 1; *version = 1; break;
	case 0x02000000u: if (n != 20) return; words = 2; *version = 2; break;
	case 0x03000000u: if (n != 24) return; words = 2; *version = 3;
		*rootid = LE32(b + 20); break;
	default: return;
	}
	for (i = 0; i < words; i++) {
		perm[i] = LE32(b + 4 + 8 * i);
		inh[i] = LE32(b + 8 + 8 * i);
	}
#undef LE32
	if ((c = cap_init()) == NULL)
		return;
	for (bit = 0; bit < 64; bit++) {
		cap_value_t v = bit;
		uint32_t m = 1u << (bit % 32);

		if (perm[bit / 32] & m) {
			cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET);
			if (magic & 1)
				cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET);
		}
		if (inh[bit / 32] & m)
			cap_set_flag(c, CAP_INHERITABLE, 1, &v, CAP_SET);
	}
	if ((s = cap_to_text(c, NULL)) != NULL) {
		snprintf(out, size, "%s", s);
		cap_free(s);
	}
	cap_free(c);
}

int
priv_look(const struct walk_ent *e, struct priv_file *f)
{
	const struct statx *st = e->stx;
	unsigned char cap[PRIV_CAP_MAX];

	/* The hot path: one statx (done by the walk) and one xattr read. */
	f->capn = walk_getcap(e->dirfd, e->name, cap, sizeof cap);
	if (f->capn == -1) {
		if (errno == ENODATA || errno == EOPNOTSUPP)
			f->capn = 0;
		else if (errno == ERANGE)
			f->capn = sizeof cap;	/* oversized: still one */
		else
			return -1;
	}
	if ((st->stx_mode & (S_ISUID | S_ISGID)) == 0 && f->capn == 0)
		return 0;
	f->ctext[0] = '\0';
	f->ver = 0;
	f->rootid = -1;
	if (f->capn > 0)
		cap_text(cap, f->capn, f->ctext, sizeof f->ctext, &f->ver,
		    &f->rootid);
	f->after = st->stx_mode & 07777 & ~(S_ISUID | S_ISGID);
	f->fresh = *st;
	return 1;
}

const char *
priv_strip(const struct walk_ent *e, struct priv_file *f)
{
	const char *op;
	int fd, err;

	if ((fd = walk_open(e->dirfd, e->name, e->stx, &f->fresh)) == -1)
		return "open";
	f->after = f->fresh.stx_mode & 07777 & ~(S_ISUID | S_ISGID);
	op = NULL;
	/* The mode first: a chmod by a process without CAP_FSETID would
	 * not keep setgid anyway, and the xattr goes whatever it did. */
	if ((f->fresh.stx_mode & (S_ISUID | S_ISGID)) != 0 &&
	    walk_chmod(fd, f->after) == -1)
		op = "chmod";
	else if (f->capn > 0 && walk_removecap(fd) == -1 && errno != ENODATA)
		op = "remove capability";
	err = errno;
	close(fd);
	errno = err;
	return op;
}

int
priv_chown(const struct walk_ent *e, uid_t uid, gid_t gid)
{
	struct statx fresh;
	int fd, r, err;

	if (S_ISREG(e->stx->stx_mode) && e->stx->stx_nlink > 1)
		return errno = EMLINK, -1;
	if (e->fd >= 0)
		/* A directory: its own fd was opened by the walk. */
		return fchown(e->fd, uid, gid);
	if ((fd = walk_open(e->dirfd, e->name, e->stx, &fresh)) == -1)
		return -1;
	if (fresh.stx_uid != 0 || (S_ISREG(fresh.stx_mode) &&
	    fresh.stx_nlink > 1)) {
		close(fd);
		return errno = ESTALE, -1;
	}
	r = walk_chown(fd, uid, gid);
	err = errno;
	close(fd);
	errno = err;
	return r;
}
