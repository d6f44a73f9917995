/* SPDX-License-Identifier: ISC */
/* Unit tests of common/merkle: the frontier's root against the RFC 6962
 * definition computed naively, and consistency proofs between every two
 * sizes up to 64 built from the ranges and checked, with every hash of
 * each proof, its length and its sizes changed. */
#include <errno.h>
#include <string.h>

#include "merkle.h"
#include "tap.h"

#define N 64

static uint8_t leaf[N][SHA256_LEN];

/* MTH(D[lo:hi]) by the RFC's recursive definition. */
static void
mth(uint64_t lo, uint64_t hi, uint8_t out[SHA256_LEN])
{
	uint8_t l[SHA256_LEN], r[SHA256_LEN];
	uint64_t k = 1;

	if (hi - lo == 1) {
		memcpy(out, leaf[lo], SHA256_LEN);
		return;
	}
	while (k * 2 < hi - lo)
		k *= 2;
	mth(lo, lo + k, l);
	mth(lo + k, hi, r);
	merkle_node_hash(l, r, out);
}

int
main(void)
{
	static uint8_t p[MERKLE_PROOF_MAX][SHA256_LEN];
	struct merkle_range r[MERKLE_PROOF_MAX];
	struct merkle_frontier f;
	uint8_t root[N + 1][SHA256_LEN], want[SHA256_LEN], empty[SHA256_LEN];
	int bad_root = 0, bad_proof = 0, bad_neg = 0, k, i, j;
	uint64_t m, n;
	char data[16];

	for (i = 0; i < N; i++) {
		snprintf(data, sizeof(data), "leaf %d\n", i);
		merkle_leaf_hash(data, strlen(data), leaf[i]);
	}
	merkle_init(&f);
	merkle_root(&f, root[0]);
	sha256_buf(NULL, 0, empty);
	ok(memcmp(root[0], empty, SHA256_LEN) == 0,
	    "the empty tree's root is SHA-256 of nothing");
	for (n = 1; n <= N; n++) {
		merkle_push(&f, leaf[n - 1]);
		merkle_root(&f, root[n]);
		mth(0, n, want);
		if (memcmp(root[n], want, SHA256_LEN) != 0)
			bad_root++;
	}
	is_int(bad_root, 0, "frontier roots of 1 to %d leaves are RFC 6962's",
	    N);
	is_int(f.k, 1, "64 leaves: one complete subtree held");
	merkle_leaf_hash("", 0, root[0]);
	sha256_buf("\0", 1, want);
	ok(memcmp(root[0], want, SHA256_LEN) == 0,
	    "a leaf hash is SHA-256 of 0x00 and the data");
	memcpy(root[0], empty, SHA256_LEN);

	for (n = 1; n <= N; n++)
		for (m = 0; m <= n; m++) {
			k = merkle_proof_ranges(m, n, r);
			for (i = 0; i < k; i++)
				mth(r[i].lo, r[i].hi, p[i]);
			if (merkle_proof_check(m, root[m], n, root[n],
			    (const uint8_t (*)[SHA256_LEN])p, (size_t)k) != 0)
				bad_proof++;
			/* each hash changed, one at a time */
			for (i = 0; i < k; i++) {
				p[i][i % SHA256_LEN] ^= 1;
				if (merkle_proof_check(m, root[m], n, root[n],
				    (const uint8_t (*)[SHA256_LEN])p,
				    (size_t)k) == 0)
					bad_neg++;
				p[i][i % SHA256_LEN] ^= 1;
			}
			if (m > 0 && m < n) {
				/* a hash short, a hash more */
				if (merkle_proof_check(m, root[m], n, root[n],
				    (const uint8_t (*)[SHA256_LEN])p,
				    (size_t)k - 1) == 0)
					bad_neg++;
				memcpy(p[k], p[0], SHA256_LEN);
				if (merkle_proof_check(m, root[m], n, root[n],
				    (const uint8_t (*)[SHA256_LEN])p,
				    (size_t)k + 1) == 0)
					bad_neg++;
				/* another old root, another new root */
				if (merkle_proof_check(m, root[m - 1], n,
				    root[n], (const uint8_t (*)[SHA256_LEN])p,
				    (size_t)k) == 0)
					bad_neg++;
				if (merkle_proof_check(m, root[m], n,
				    root[n - 1], (const uint8_t (*)[SHA256_LEN])p,
				    (size_t)k) == 0)
					bad_neg++;
			}
			/* the ranges are disjoint and within [0, n) */
			for (i = 0; i < k; i++) {
				if (r[i].lo >= r[i].hi || r[i].hi > n)
					bad_proof++;
				for (j = 0; j < i; j++)
					if (r[i].lo < r[j].hi &&
					    r[j].lo < r[i].hi)
						bad_proof++;
			}
		}
	is_int(bad_proof, 0, "proofs between every two sizes up to %d check",
	    N);
	is_int(bad_neg, 0, "no changed proof, proof length or root passes");
	is_int(merkle_proof_ranges(3, 7, r), 4,
	    "RFC 6962 2.1.3's example: 3 to 7 takes 4 hashes");
	ok(r[0].lo == 2 && r[0].hi == 3 && r[1].lo == 3 && r[1].hi == 4 &&
	    r[2].lo == 0 && r[2].hi == 2 && r[3].lo == 4 && r[3].hi == 7,
	    "  c, d, g, l: leaves 2, 3, then [0,2), then [4,7)");
	is_int(merkle_proof_ranges(4, 7, r), 1, "4 to 7 takes 1 (l)");
	errno = 0;
	is_int(merkle_proof_ranges(8, 7, r), -1, "8 to 7 refused");
	is_int(errno, EINVAL, "  EINVAL");
	errno = 0;
	is_int(merkle_proof_check(8, root[8], 7, root[7],
	    (const uint8_t (*)[SHA256_LEN])p, 0), -1, "checking 8 to 7 refused");
	is_int(errno, EINVAL, "  EINVAL");
	is_int(merkle_proof_check(0, root[0], 5, root[5],
	    (const uint8_t (*)[SHA256_LEN])p, 0), 0,
	    "any tree extends the empty one");
	is_int(merkle_proof_check(5, root[5], 5, root[4],
	    (const uint8_t (*)[SHA256_LEN])p, 0), -1,
	    "the same size with another root fails");
	return done_testing();
}
