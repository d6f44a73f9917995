/* SPDX-License-Identifier: ISC */
/* Unit tests of common/mountinfo: escapes, hostile lines, the live file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mountinfo.h"
#include "tap.h"

static struct mountinfo m;

static int
count_cb(const struct mountinfo *mi, void *arg)
{
	(*(int *)arg)++;
	return strcmp(mi->mountpoint, "/") == 0 ? 0 : 0;
}

static int
stop_cb(const struct mountinfo *mi, void *arg)
{
	(void)arg;
	return strcmp(mi->fstype, "proc") == 0 ? 7 : 0;
}

static int
write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	fputs(s, f);
	return fclose(f);
}

int
main(void)
{
	char buf[16], big[8192], tmpl[] = "/tmp/mountinfo-unit.XXXXXX";
	int r, n, fd;

	r = mountinfo_parse("40 30 0:37 / /sys/fs/cgroup/unified rw,relatime "
	    "shared:7 master:1 - cgroup2 cgroup2 rw,nsdelegate\n", &m);
	is_int(r, 0, "typical line parses");
	is_int(m.id, 40, "mount id");
	is_int(m.parent, 30, "parent id");
	is_int(m.major, 0, "major");
	is_int(m.minor, 37, "minor");
	is_str(m.root, "/", "root");
	is_str(m.mountpoint, "/sys/fs/cgroup/unified", "mount point");
	is_str(m.options, "rw,relatime", "options");
	is_str(m.fstype, "cgroup2", "fstype after optional fields");
	is_str(m.source, "cgroup2", "source");

	r = mountinfo_parse("1 2 8:1 /a\\040b /mnt/x\\040y\\011z\\012w\\134v "
	    "rw - ext4 /dev/my\\040disk rw", &m);
	is_int(r, 0, "escaped line parses");
	is_str(m.root, "/a b", "\\040 is a space");
	is_str(m.mountpoint, "/mnt/x y\tz\nw\\v", "\\011 \\012 \\134 undone");
	is_str(m.source, "/dev/my disk", "source unescaped");
	r = mountinfo_parse("1 2 8:1 / / rw - ext4 /dev/sda1 rw", &m);
	is_int(r, 0, "no optional fields parses");

#define BAD(line, desc) do {						\
	errno = 0;							\
	r = mountinfo_parse(line, &m);					\
	ok(r == -1 && errno == EINVAL, desc);				\
} while (0)
	BAD("", "empty line refused");
	BAD("1 2 8:1 / / rw ext4 /dev/sda1 rw", "no separator refused");
	BAD("1 2 8:1 / / rw -", "nothing after separator refused");
	BAD("1 2 8:1 / / rw - ext4 /dev/sda1", "missing super options refused");
	BAD("1 2 8:1 / / rw - ext4 /dev/sda1 rw extra", "trailing field refused");
	BAD("1 2 81 / / rw - ext4 x rw", "major:minor without colon refused");
	BAD("1 2 8: / / rw - ext4 x rw", "empty minor refused");
	BAD("x 2 8:1 / / rw - ext4 x rw", "non-numeric id refused");
	BAD("-1 2 8:1 / / rw - ext4 x rw", "negative id refused");
	BAD("99999999999 2 8:1 / / rw - ext4 x rw", "huge id refused");
	BAD("1  2 8:1 / / rw - ext4 x rw", "double space refused");
	BAD("1 2 8:1 /a\\04 / rw - ext4 x rw", "short escape refused");
	BAD("1 2 8:1 /a\\09x / rw - ext4 x rw", "non-octal escape refused");
	BAD("1 2 8:1 /a\\000 / rw - ext4 x rw", "NUL escape refused");
	BAD("1 2 8:1 /a\\777 / rw - ext4 x rw", "escape over 255 refused");
	BAD("1 2 8:1 /a\\ / rw - ext4 x rw", "lone backslash refused");
	BAD("1 2 8:1 / / rw - ext4 x rw\n2 3 8:1 / / rw - ext4 x rw",
	    "embedded newline refused");

	errno = 0;
	r = mountinfo_unescape(buf, sizeof(buf), "abcdefghijklmnop", 16);
	ok(r == -1 && errno == ENAMETOOLONG, "unescape overflow refused");
	r = mountinfo_unescape(buf, sizeof(buf), "abc\\040", 7);
	ok(r == 0 && strcmp(buf, "abc ") == 0, "unescape fits");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "1 2 8:1 /", 9);
	errno = 0;
	r = mountinfo_parse(big, &m);
	ok(r == -1, "over-long root refused (%s)", strerror(errno));

	n = 0;
	r = mountinfo_each("/proc/self/mountinfo", count_cb, &n);
	ok(r == 0 && n > 0, "live mountinfo walks (%d lines)", n);
	is_int(mountinfo_each("/proc/self/mountinfo", stop_cb, NULL), 7,
	    "callback value stops the walk");
	errno = 0;
	ok(mountinfo_each("/nonexistent/mountinfo", count_cb, &n) == -1 &&
	    errno == ENOENT, "missing file is ENOENT");

	fd = mkstemp(tmpl);
	ok(fd != -1, "temp file");
	close(fd);
	write_file(tmpl, "1 2 8:1 / / rw - ext4 x rw\nbroken line\n");
	errno = 0;
	ok(mountinfo_each(tmpl, count_cb, &n) == -1 && errno == EBADMSG,
	    "malformed line in file is EBADMSG");
	write_file(tmpl, "1 2 8:1 / / rw - ext4 x rw");
	errno = 0;
	ok(mountinfo_each(tmpl, count_cb, &n) == -1 && errno == EBADMSG,
	    "missing final newline is EBADMSG");
	{
		FILE *f = fopen(tmpl, "w");
		size_t i;

		for (i = 0; i < MOUNTINFO_LINE_MAX + 10; i++)
			fputc('7', f);
		fputc('\n', f);
		fclose(f);
	}
	errno = 0;
	ok(mountinfo_each(tmpl, count_cb, &n) == -1 && errno == E2BIG,
	    "over-long line in file is E2BIG");
	unlink(tmpl);
	return done_testing();
}
