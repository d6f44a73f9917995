/* SPDX-License-Identifier: ISC */
/* elfinterp: the PT_INTERP of an image, by pread(2). */
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "elfinterp.h"

#define MAX_PHNUM 4096	/* more program headers than any real image */

static int
readat(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t r;

	if (off > (uint64_t)INT64_MAX)
		return errno = EINVAL, -1;
	do
		r = pread(fd, buf, n, (off_t)off);
	while (r == -1 && errno == EINTR);
	if (r == -1)
		return -1;
	if ((size_t)r != n)
		return errno = EINVAL, -1;
	return 0;
}

/* 16- to 64-bit fields in the image's byte order. */
static uint64_t
get(const unsigned char *p, size_t n, int be)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

int
elf_interp(int fd, char *out, size_t size)
{
	unsigned char eh[64], ph[56];
	uint64_t phoff, off, len;
	size_t phentsz, phnum, i;
	int is64, be;

	if (size == 0)
		return errno = EINVAL, -1;
	out[0] = '\0';
	if (readat(fd, eh, 16, 0) == -1)
		return errno == EINVAL ? 0 : -1;	/* shorter than ELF */
	if (memcmp(eh, ELFMAG, SELFMAG) != 0)
		return 0;
	is64 = eh[EI_CLASS] == ELFCLASS64;
	be = eh[EI_DATA] == ELFDATA2MSB;
	if (readat(fd, eh, is64 ? 64 : 52, 0) == -1)
		return -1;
	phoff = is64 ? get(eh + 32, 8, be) : get(eh + 28, 4, be);
	phentsz = (size_t)get(eh + (is64 ? 54 : 42), 2, be);
	phnum = (size_t)get(eh + (is64 ? 56 : 44), 2, be);
	if (phentsz < (is64 ? 56u : 32u) || phnum > MAX_PHNUM)
		return errno = EINVAL, -1;
	for (i = 0; i < phnum; i++) {
		if (readat(fd, ph, is64 ? 56 : 32, phoff + i * phentsz) == -1)
			return -1;
		if (get(ph, 4, be) != PT_INTERP)
			continue;
		off = is64 ? get(ph + 8, 8, be) : get(ph + 4, 4, be);
		len = is64 ? get(ph + 32, 8, be) : get(ph + 16, 4, be);
		if (len < 2 || len > size)
			return errno = EINVAL, -1;
		if (readat(fd, out, (size_t)len, off) == -1) {
			out[0] = '\0';
			return -1;
		}
		if (out[len - 1] != '\0' || strlen(out) != len - 1) {
			out[0] = '\0';
			return errno = EINVAL, -1;
		}
		return 1;
	}
	return 0;
}
