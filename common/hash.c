/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "hash.h"

void
sha256_buf(const void *buf, size_t len, uint8_t out[SHA256_LEN])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	if (len > 0)
		sha256_update(&ctx, len, buf);
	sha256_digest(&ctx, SHA256_LEN, out);
}

int
sha256_fd(int fd, uint8_t out[SHA256_LEN], uint64_t *total)
{
	struct sha256_ctx ctx;
	uint8_t buf[1 << 16];
	uint64_t n = 0;
	ssize_t r;

	sha256_init(&ctx);
	for (;;) {
		r = read(fd, buf, sizeof(buf));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -1;
		if (r == 0)
			break;
		sha256_update(&ctx, (size_t)r, buf);
		n += (uint64_t)r;
	}
	sha256_digest(&ctx, SHA256_LEN, out);
	if (total != NULL)
		*total = n;
	return 0;
}

void
sha256_hex(const uint8_t d[SHA256_LEN], char hex[SHA256_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < SHA256_LEN; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 0xf];
	}
	hex[SHA256_HEX_LEN] = '\0';
}

static int
nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
sha256_unhex(const char *hex, size_t len, uint8_t d[SHA256_LEN])
{
	size_t i;

	if (len != SHA256_HEX_LEN)
		return errno = EINVAL, -1;
	for (i = 0; i < SHA256_LEN; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return errno = EINVAL, -1;
		d[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
