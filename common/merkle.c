/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <string.h>

#include <nettle/sha2.h>

#include "merkle.h"

void
merkle_leaf_hash(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	static const uint8_t zero = 0x00;
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, 1, &zero);
	if (len > 0)
		sha256_update(&ctx, len, data);
	sha256_digest(&ctx, SHA256_LEN, out);
}

void
merkle_node_hash(const uint8_t l[SHA256_LEN], const uint8_t r[SHA256_LEN],
    uint8_t out[SHA256_LEN])
{
	uint8_t buf[1 + 2 * SHA256_LEN];

	buf[0] = 0x01;
	memcpy(buf + 1, l, SHA256_LEN);
	memcpy(buf + 1 + SHA256_LEN, r, SHA256_LEN);
	sha256_buf(buf, sizeof(buf), out);
}

void
merkle_init(struct merkle_frontier *f)
{
	f->n = 0;
	f->k = 0;
}

void
merkle_push(struct merkle_frontier *f, const uint8_t leaf[SHA256_LEN])
{
	uint64_t m;

	memcpy(f->h[f->k++], leaf, SHA256_LEN);
	f->n++;
	/* Each trailing 0 bit of the new count closes one complete subtree:
	 * its two halves are the last two roots held. */
	for (m = f->n; (m & 1) == 0; m >>= 1) {
		merkle_node_hash(f->h[f->k - 2], f->h[f->k - 1],
		    f->h[f->k - 2]);
		f->k--;
	}
}

void
merkle_root(const struct merkle_frontier *f, uint8_t out[SHA256_LEN])
{
	uint8_t r[SHA256_LEN];
	unsigned i;

	if (f->k == 0) {
		sha256_buf(NULL, 0, out);
		return;
	}
	/* The incomplete right edge folds from the right (RFC 6962: the
	 * left part is always the largest complete subtree). */
	memcpy(r, f->h[f->k - 1], SHA256_LEN);
	for (i = f->k - 1; i-- > 0;)
		merkle_node_hash(f->h[i], r, r);
	memcpy(out, r, SHA256_LEN);
}

/* The largest power of two smaller than n (n >= 2). */
static uint64_t
split_point(uint64_t n)
{
	return (uint64_t)1 << (63 - __builtin_clzll(n - 1));
}

/* SUBPROOF of the old size m within [lo, hi), lo < m <= hi. */
static int
ranges(uint64_t lo, uint64_t hi, uint64_t m, struct merkle_range *r, int k)
{
	uint64_t s;

	if (m == hi) {
		if (lo == 0)
			return k;	/* the old tree itself: known */
		r[k].lo = lo;
		r[k].hi = hi;
		return k + 1;
	}
	s = split_point(hi - lo);
	if (m <= lo + s) {
		k = ranges(lo, lo + s, m, r, k);
		r[k].lo = lo + s;
		r[k].hi = hi;
	} else {
		k = ranges(lo + s, hi, m, r, k);
		r[k].lo = lo;
		r[k].hi = lo + s;
	}
	return k + 1;
}

int
merkle_proof_ranges(uint64_t m, uint64_t n, struct merkle_range *r)
{
	if (m > n)
		return errno = EINVAL, -1;
	if (m == 0)
		return 0;
	return ranges(0, n, m, r, 0);
}

/* Run the proof p[0..k) for [lo, hi) and old size m: the hashes of that
 * subtree in the old (oh) and the new tree (th). */
static int
run(const uint8_t (*p)[SHA256_LEN], size_t k, uint64_t lo, uint64_t hi,
    uint64_t m, const uint8_t old[SHA256_LEN], uint8_t oh[SHA256_LEN],
    uint8_t th[SHA256_LEN])
{
	uint64_t s;

	if (m == hi) {
		if (k != (lo == 0 ? 0 : 1))
			return -1;
		memcpy(oh, lo == 0 ? old : p[0], SHA256_LEN);
		memcpy(th, oh, SHA256_LEN);
		return 0;
	}
	if (k == 0)
		return -1;
	s = split_point(hi - lo);
	if (m <= lo + s) {
		if (run(p, k - 1, lo, lo + s, m, old, oh, th) == -1)
			return -1;
		merkle_node_hash(th, p[k - 1], th);
	} else {
		if (run(p, k - 1, lo + s, hi, m, old, oh, th) == -1)
			return -1;
		merkle_node_hash(p[k - 1], oh, oh);
		merkle_node_hash(p[k - 1], th, th);
	}
	return 0;
}

int
merkle_proof_check(uint64_t m, const uint8_t old_root[SHA256_LEN],
    uint64_t n, const uint8_t new_root[SHA256_LEN],
    const uint8_t (*p)[SHA256_LEN], size_t k)
{
	uint8_t oh[SHA256_LEN], th[SHA256_LEN];

	if (m > n)
		return errno = EINVAL, -1;
	if (m == 0)
		return k == 0 ? 0 : (errno = EBADMSG, -1);
	if (k > MERKLE_PROOF_MAX ||
	    run(p, k, 0, n, m, old_root, oh, th) == -1 ||
	    memcmp(oh, old_root, SHA256_LEN) != 0 ||
	    memcmp(th, new_root, SHA256_LEN) != 0)
		return errno = EBADMSG, -1;
	return 0;
}
