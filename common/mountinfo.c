/* SPDX-License-Identifier: ISC */
/* mountinfo: a strict parser of /proc/self/mountinfo. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "mountinfo.h"
#include "scan.h"

static int
isoct(char c)
{
	return c >= '0' && c <= '7';
}

int
mountinfo_unescape(char *dst, size_t dstlen, const char *src, size_t n)
{
	size_t i, o = 0;

	if (dstlen == 0)
		return errno = ENAMETOOLONG, -1;
	for (i = 0; i < n; i++) {
		char c = src[i];

		if (c == '\0')
			return errno = EINVAL, -1;
		if (c == '\\') {
			unsigned v;

			if (n - i < 4 || !isoct(src[i + 1]) ||
			    !isoct(src[i + 2]) || !isoct(src[i + 3]))
				return errno = EINVAL, -1;
			v = (unsigned)(src[i + 1] - '0') * 64 +
			    (unsigned)(src[i + 2] - '0') * 8 +
			    (unsigned)(src[i + 3] - '0');
			if (v == 0 || v > 255)
				return errno = EINVAL, -1;
			c = (char)v;
			i += 3;
		}
		if (o + 1 >= dstlen)
			return errno = ENAMETOOLONG, -1;
		dst[o++] = c;
	}
	dst[o] = '\0';
	return 0;
}

/* Next space-separated field of [*p, end): sets *f and *n, advances *p past
 * one separating space.  -1 when no field is left or two spaces meet. */
static int
field(const char **p, const char *end, const char **f, size_t *n)
{
	const char *s = *p, *e;

	if (s >= end || *s == ' ')
		return -1;
	e = memchr(s, ' ', (size_t)(end - s));
	if (e == NULL)
		e = end;
	*f = s;
	*n = (size_t)(e - s);
	*p = e < end ? e + 1 : e;
	return 0;
}

static int
num(const char *f, size_t n, int *out)
{
	char b[16];

	if (n == 0 || n >= sizeof(b))
		return -1;
	memcpy(b, f, n);
	b[n] = '\0';
	return scan_int(b, 0, INT32_MAX, out);
}

static int
plain(char *dst, size_t dstlen, const char *f, size_t n)
{
	if (n >= dstlen)
		return errno = ENAMETOOLONG, -1;
	if (memchr(f, '\0', n) != NULL)
		return errno = EINVAL, -1;
	memcpy(dst, f, n);
	dst[n] = '\0';
	return 0;
}

/* The next field as a number. */
static int
num_field(const char **p, const char *end, int *out)
{
	const char *f;
	size_t n;

	if (field(p, end, &f, &n) == -1 || num(f, n, out) == -1)
		return errno = EINVAL, -1;
	return 0;
}

/* The next field into dst, unescaped (esc) or as it is.  -1 with errno
 * ENAMETOOLONG when it does not fit, EINVAL otherwise. */
static int
text_field(const char **p, const char *end, char *dst, size_t dstlen,
    int esc)
{
	const char *f;
	size_t n;

	if (field(p, end, &f, &n) == -1 || (esc ?
	    mountinfo_unescape(dst, dstlen, f, n) :
	    plain(dst, dstlen, f, n)) == -1)
		return errno == ENAMETOOLONG ? -1 : (errno = EINVAL, -1);
	return 0;
}

int
mountinfo_parse(const char *line, struct mountinfo *m)
{
	const char *p = line, *end, *f, *colon;
	size_t n;
	int v;

	end = line + strlen(line);
	if (end > line && end[-1] == '\n')
		end--;
	if (memchr(line, '\n', (size_t)(end - line)) != NULL)
		return errno = EINVAL, -1;
	memset(m, 0, sizeof(*m));
	/* 1: mount id, 2: parent id */
	if (num_field(&p, end, &m->id) == -1 ||
	    num_field(&p, end, &m->parent) == -1)
		return -1;
	/* 3: major:minor */
	if (field(&p, end, &f, &n) == -1)
		return errno = EINVAL, -1;
	colon = memchr(f, ':', n);
	if (colon == NULL || num(f, (size_t)(colon - f), &v) == -1)
		return errno = EINVAL, -1;
	m->major = (unsigned)v;
	if (num(colon + 1, n - (size_t)(colon + 1 - f), &v) == -1)
		return errno = EINVAL, -1;
	m->minor = (unsigned)v;
	/* 4: root, 5: mount point, 6: mount options */
	if (text_field(&p, end, m->root, sizeof(m->root), 1) == -1 ||
	    text_field(&p, end, m->mountpoint, sizeof(m->mountpoint), 1) ==
	    -1 || text_field(&p, end, m->options, sizeof(m->options), 0) == -1)
		return -1;
	/* 7...: optional fields, ended by a lone "-" */
	for (;;) {
		if (field(&p, end, &f, &n) == -1)
			return errno = EINVAL, -1;
		if (n == 1 && f[0] == '-')
			break;
	}
	/* fstype, source, super options */
	if (text_field(&p, end, m->fstype, sizeof(m->fstype), 0) == -1 ||
	    text_field(&p, end, m->source, sizeof(m->source), 1) == -1)
		return -1;
	if (field(&p, end, &f, &n) == -1)
		return errno = EINVAL, -1;
	if (p != end)
		return errno = EINVAL, -1;	/* trailing field */
	return 0;
}

/* Each complete line of buf[*off..len) (NUL-ended) parsed and handed to
 * fn until fn answers non-zero (*ret); *off past the last one.  0, or -1
 * at a line that does not parse. */
static int
each_line(char *buf, size_t len, size_t *off, struct mountinfo *m,
    int (*fn)(const struct mountinfo *m, void *arg), void *arg, int *ret)
{
	char *line, *nl;

	while (*ret == 0 && (nl = memchr(buf + *off, '\n', len - *off))) {
		*nl = '\0';
		line = buf + *off;
		*off = (size_t)(nl - buf) + 1;
		if (mountinfo_parse(line, m) == -1)
			return -1;
		*ret = fn(m, arg);
	}
	return 0;
}

int
mountinfo_each(const char *path,
    int (*fn)(const struct mountinfo *m, void *arg), void *arg)
{
	/* On the stack (26 KB): musl's malloc maps and unmaps blocks this
	 * large at every call, ~60 us of a confexec launch (static). */
	char buf[MOUNTINFO_LINE_MAX + 2];
	struct mountinfo mi;
	size_t cap = MOUNTINFO_LINE_MAX + 1, len = 0, off;
	ssize_t r;
	int fd, ret = 0, e = 0, eof = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (ret == 0) {
		if (!eof && len < cap) {
			r = read(fd, buf + len, cap - len);
			if (r == -1 && errno == EINTR)
				continue;
			if (r == -1) {
				e = errno;
				break;
			}
			if (r == 0)
				eof = 1;
			len += (size_t)r;
		}
		buf[len] = '\0';
		off = 0;
		if (each_line(buf, len, &off, &mi, fn, arg, &ret) == -1) {
			e = EBADMSG;
			break;
		}
		if (ret != 0)
			break;
		memmove(buf, buf + off, len - off);
		len -= off;
		if (eof) {
			if (len != 0)
				e = EBADMSG;	/* last line has no newline */
			break;
		}
		if (len == cap) {
			e = E2BIG;
			break;
		}
	}
	close(fd);
	if (e != 0)
		return errno = e, -1;
	return ret;
}
