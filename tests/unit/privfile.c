/* SPDX-License-Identifier: ISC */
/* Unit tests of common/privfile, the one stripper (suidstrip's strip step
 * and confexec's check of its rw trees): what it calls privileged, its
 * strip (the mode's setuid and setgid, the capability, the owner kept,
 * the other bits kept), a file replaced after the walk saw it (ESTALE,
 * untouched), and the ownership restore's refusal of a hard link. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "privfile.h"
#include "tap.h"

/* cap_net_raw=ep, vfs_cap_data v2. */
static const unsigned char cap[20] = { 0x01, 0, 0, 0x02, 0x00, 0x20 };
static int dfd = -1;

/* The walk's view of name in dfd: its statx, as a walk_ent. */
static int
ent(const char *name, struct statx *st, struct walk_ent *e)
{
	if (walk_statx(dfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE |
	    STATX_MODE | STATX_INO | STATX_MNT_ID | PRIV_STX_MASK, st) == -1)
		return -1;
	e->dirfd = dfd;
	e->fd = -1;
	e->dpath = "";
	e->name = name;
	e->stx = st;
	return 0;
}

static void
mk(const char *name, mode_t mode)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600);

	if (fd != -1) {
		(void)!write(fd, "x", 1);
		fchmod(fd, mode);
		close(fd);
	}
}

static mode_t
mode_of(const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
	    st.st_mode & 07777 : (mode_t)-1;
}

int
main(void)
{
	char dir[] = "/tmp/borne-unit-priv.XXXXXX", p[128], buf[64];
	struct walk_ent e;
	struct statx st;
	struct priv_file f;
	int root = geteuid() == 0, capset = 0, r;

	if (mkdtemp(dir) == NULL ||
	    (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		ok(0, "a scratch directory");
		return done_testing();
	}
	ok(walk_probe() == 0, "walk_probe: openat2 is there");

	mk("plain", 0755);
	r = ent("plain", &st, &e) == 0 && priv_look(&e, &f) == 0;
	ok(r, "a plain 0755 file: not privileged");
	mk("suid", 04755);
	r = ent("suid", &st, &e) == 0 && priv_look(&e, &f) == 1;
	ok(r, "setuid: privileged");
	is_int(f.capn, 0, "  no capability");
	is_int(f.after, 0755, "  stripped it would be 0755");
	r = priv_strip(&e, &f) == NULL;
	ok(r, "  stripped");
	is_int(mode_of("suid"), 0755, "  mode 0755 on disk");
	mk("sgid", 02710);
	r = ent("sgid", &st, &e) == 0 && priv_look(&e, &f) == 1 &&
	    priv_strip(&e, &f) == NULL;
	ok(r, "setgid 2710: privileged, stripped");
	is_int(mode_of("sgid"), 0710, "  the other bits kept: 0710");

	/* A capability needs CAP_SETFCAP to be set. */
	snprintf(p, sizeof(p), "%s/cap", dir);
	mk("cap", 0644);
	capset = lsetxattr(p, "security.capability", cap, sizeof(cap), 0) == 0;
	if (!capset)
		skip("a file capability", root ? "setxattr refused" :
		    "needs root");
	else {
		r = ent("cap", &st, &e) == 0 && priv_look(&e, &f) == 1;
		ok(r, "security.capability alone: privileged");
		is_int(f.capn, 20, "  its size");
		is_int(f.ver, 2, "  version 2");
		is_str(f.ctext, "cap_net_raw=ep", "  as getcap prints it");
		r = priv_strip(&e, &f) == NULL;
		ok(r, "  stripped");
		ok(lgetxattr(p, "security.capability", buf, sizeof(buf)) ==
		    -1 && errno == ENODATA, "  the attribute is gone");
		is_int(mode_of("cap"), 0644, "  the mode untouched");
	}

	/* Replaced between the walk's look and the strip: not touched. */
	mk("swap", 04755);
	r = ent("swap", &st, &e) == 0 && priv_look(&e, &f) == 1;
	ok(r, "a setuid file seen by the walk");
	/* Made while the first still exists: another inode. */
	mk("swap.new", 04711);
	renameat(dfd, "swap.new", dfd, "swap");
	r = priv_strip(&e, &f) != NULL && errno == ESTALE;
	ok(r, "  replaced before the strip: ESTALE");
	is_int(mode_of("swap"), 04711, "  the new file untouched");

	/* The ownership restore never moves a hard link. */
	mk("linked", 0644);
	linkat(dfd, "linked", dfd, "linked2", 0);
	r = ent("linked", &st, &e) == 0 &&
	    priv_chown(&e, 65534, 65534) == -1 && errno == EMLINK;
	ok(r, "priv_chown of a file with two links: EMLINK");

	unlinkat(dfd, "plain", 0);
	unlinkat(dfd, "suid", 0);
	unlinkat(dfd, "sgid", 0);
	unlinkat(dfd, "cap", 0);
	unlinkat(dfd, "swap", 0);
	unlinkat(dfd, "linked", 0);
	unlinkat(dfd, "linked2", 0);
	close(dfd);
	rmdir(dir);
	return done_testing();
}
