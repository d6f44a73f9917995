/* SPDX-License-Identifier: ISC */
/* checkpoint: signed checkpoints of a journal (journalchain(1),
 * CHECKPOINTS).  A checkpoint is a C2SP signed note (common/note) whose
 * text is a C2SP tlog-checkpoint (common/checkpoint) of the journal's
 * records as an RFC 6962 tree (common/journal_tree, common/merkle). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b64.h"
#include "checkpoint.h"
#include "err.h"
#include "hash.h"
#include "journal.h"
#include "journal_tree.h"
#include "merkle.h"
#include "note.h"
#include "scan.h"
#include "tlog.h"

/* Longest key file: one key text and its newline. */
#define KEYFILE_MAX 1024
/* Exit status of a torn tail, as verify's (journalchain(1)). */
#define EXIT_TORN 3

/* How read_file checks a file before reading it. */
enum { ANYONE, SECRET, MINE };

/* Read the whole of path (at most max bytes) into a malloc'ed *buf.  A
 * signer key (SECRET) must be a regular file of the caller's that no one
 * else may read or write; a checkpoint state (MINE) one of the caller's
 * that no one else may write: refused otherwise, before a byte is
 * read.  NULL when a MINE file does not exist. */
static char *
read_file(const char *path, size_t max, int secret, size_t *len)
{
	struct stat sb;
	size_t have = 0;
	ssize_t r;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    (secret != ANYONE ? O_NOFOLLOW : 0));
	if (fd == -1 && secret == MINE && errno == ENOENT)
		return NULL;
	if (fd == -1)
		die_sys(EXIT_NO, "cannot open %s", path);
	if (fstat(fd, &sb) == -1)
		die_sys(EXIT_NO, "cannot stat %s", path);
	if (!S_ISREG(sb.st_mode))
		die(EXIT_USAGE, "%s: not a regular file", path);
	if (secret != ANYONE && sb.st_uid != geteuid())
		die(EXIT_USAGE, "%s: %s owned by uid %u, not by this user "
		    "(%u): refused", path, secret == SECRET ? "signer key" :
		    "checkpoint state", (unsigned)sb.st_uid,
		    (unsigned)geteuid());
	if (secret == MINE && (sb.st_mode & 022) != 0)
		die(EXIT_USAGE, "%s: checkpoint state has mode %04o, so others "
		    "may write it: refused", path,
		    (unsigned)(sb.st_mode & 07777));
	if (secret == SECRET && (sb.st_mode & 077) != 0)
		die(EXIT_USAGE, "%s: signer key has mode %04o, so others may "
		    "read it: refused (chmod 600 %s, or make a new key)", path,
		    (unsigned)(sb.st_mode & 07777), path);
	buf = malloc(max + 1);
	if (buf == NULL)
		die(EXIT_NO, "out of memory");
	for (;;) {
		r = read(fd, buf + have, max + 1 - have);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			die_sys(EXIT_NO, "cannot read %s", path);
		if (r == 0)
			break;
		have += (size_t)r;
		if (have > max)
			die(EXIT_USAGE, "%s: longer than %zu bytes", path, max);
	}
	close(fd);
	buf[have] = '\0';
	*len = have;
	return buf;
}

/* A key file: one key text, one newline after it. */
static char *
key_text(const char *path, int secret, size_t *len)
{
	char *t = read_file(path, KEYFILE_MAX, secret ? SECRET : ANYONE, len);

	if (*len == 0 || t[*len - 1] != '\n' ||
	    memchr(t, '\n', *len - 1) != NULL)
		die(EXIT_USAGE, "%s: not a key file (one key on one line)",
		    path);
	(*len)--;
	return t;
}

/* The key file at path parsed: a signer's (secret) into s, else a
 * verifier's into v.  The text is wiped before it is freed. */
static void
load_key(const char *path, struct note_signer *s, struct note_verifier *v)
{
	char err[256], *t;
	size_t len;
	int rc;

	t = key_text(path, s != NULL, &len);
	rc = s != NULL ? note_signer_parse(t, len, s, err, sizeof(err)) :
	    note_verifier_parse(t, len, v, err, sizeof(err));
	if (rc == -1)
		die(EXIT_USAGE, "%s: %s", path, err);
	explicit_bzero(t, len);
	free(t);
}

/* The signed checkpoint in path, opened with v: *c. */
static void
load_checkpoint(const char *path, const struct note_verifier *v,
    struct tlog_checkpoint *c)
{
	char err[256], *t;
	size_t len, tlen;

	t = read_file(path, NOTE_MAX, ANYONE, &len);
	if (note_open(t, len, v, &tlen, err, sizeof(err)) == -1)
		die(errno == EINVAL ? EXIT_USAGE : EXIT_NO, "%s: %s", path,
		    err);
	if (tlog_parse(t, tlen, c, err, sizeof(err)) == -1)
		die(EXIT_USAGE, "%s: %s", path, err);
	free(t);
}

/* Create path with mode, holding text and a newline; never over an
 * existing file.  Returns 0 or -1 (errno kept). */
static int
write_new(const char *path, mode_t mode, const char *text)
{
	size_t len = strlen(text), off = 0;
	ssize_t w;
	int fd, e;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    mode);
	if (fd == -1)
		return -1;
	if (fchmod(fd, mode) == -1)
		goto fail;
	while (off <= len) {
		const char *p = off < len ? text + off : "\n";
		size_t n = off < len ? len - off : 1;

		w = write(fd, p, n);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			goto fail;
		off += (size_t)w;
	}
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	e = errno;
	if (fd != -1)
		close(fd);
	unlink(path);
	errno = e;
	return -1;
}

int
ckpt_keygen(const char *name, const char *prefix)
{
	struct note_signer s;
	char err[256], skey[NOTE_NAME_MAX + 128], vkey[NOTE_NAME_MAX + 128];
	char *kpath, *ppath;

	if (note_keygen(name, &s, err, sizeof(err)) == -1)
		die(errno == EINVAL ? EXIT_USAGE : EXIT_NO, "keygen %s: %s",
		    name, err);
	if (note_signer_text(&s, skey, sizeof(skey)) == -1 ||
	    note_verifier_text(&s.v, vkey, sizeof(vkey)) == -1)
		die(EXIT_NO, "keygen: key text too long");
	explicit_bzero(s.seed, sizeof(s.seed));
	if (asprintf(&kpath, "%s.key", prefix) == -1 ||
	    asprintf(&ppath, "%s.pub", prefix) == -1)
		die(EXIT_NO, "out of memory");
	if (write_new(kpath, 0600, skey) == -1) {
		explicit_bzero(skey, sizeof(skey));
		die_sys(EXIT_NO, "cannot create %s", kpath);
	}
	explicit_bzero(skey, sizeof(skey));
	if (write_new(ppath, 0644, vkey) == -1) {
		int e = errno;

		unlink(kpath);
		errno = e;
		die_sys(EXIT_NO, "cannot create %s (%s removed)", ppath, kpath);
	}
	free(kpath);
	free(ppath);
	return EXIT_OK;
}

/* Open the journal and verify its whole chain: the valid record count,
 * or death with verify's verdict and exit status. */
static int
journal_checked(const char *path, uint64_t *count)
{
	struct journal_verdict v;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		die_sys(EXIT_NO, "cannot open %s", path);
	if (journal_verify_fd(fd, 0, NULL, &v) == -1)
		die_sys(EXIT_NO, "cannot read %s", path);
	if (v.status != JOURNAL_OK)
		die(v.status == JOURNAL_TORN ? EXIT_TORN : EXIT_NO,
		    "%s: %s at record %llu, byte %llu: %s", path,
		    v.status == JOURNAL_TORN ? "torn tail" :
		    "verification failed", (unsigned long long)v.bad_seq,
		    (unsigned long long)v.bad_off, v.why);
	*count = v.count;
	return fd;
}

static void
tree_root(int fd, const char *path, uint64_t n, uint8_t root[SHA256_LEN])
{
	char err[512];
	uint64_t bad;

	if (journal_tree_root(fd, n, root, &bad, err, sizeof(err)) == -1)
		die(EXIT_NO, "%s: %s (changed "
		    "while reading?)", path, err);
}

static void
push(void *arg, uint64_t i, const uint8_t leaf[SHA256_LEN])
{
	merkle_push(arg, leaf);
}

/* The state in path (--state), trusted only once its checkpoint's
 * signature verifies with v and its frontier's root is that
 * checkpoint's: 1 loaded into *st (pointing into *buf), 0 when there is
 * no such file yet. */
static int
load_state(const char *path, const struct note_verifier *v,
    struct tlog_state *st, char **buf)
{
	struct tlog_checkpoint c;
	uint8_t root[SHA256_LEN];
	char err[256];
	size_t len, tl;

	*buf = read_file(path, NOTE_MAX + 4096, MINE, &len);
	if (*buf == NULL)
		return 0;
	if (tlog_state_parse(*buf, len, st, err, sizeof(err)) == -1)
		die(EXIT_USAGE, "%s: %s", path, err);
	if (note_open(st->note, st->note_len, v, &tl, err, sizeof(err)) == -1)
		die(EXIT_NO, "%s: its checkpoint: %s (the state of another "
		    "key?)", path, err);
	if (tlog_parse(st->note, tl, &c, err, sizeof(err)) == -1)
		die(EXIT_USAGE, "%s: its checkpoint: %s", path, err);
	merkle_root(&st->f, root);
	if (c.size != st->f.n || memcmp(root, c.root, SHA256_LEN) != 0)
		die(EXIT_NO, "%s: its tree is not the one its checkpoint "
		    "signed: refused", path);
	return 1;
}

/* Replace path with the state of pos and f under the checkpoint note:
 * a new file beside it (mode 0600), synced, renamed over it. */
static void
save_state(const char *path, const struct journal_pos *pos,
    const struct merkle_frontier *f, const char *note, size_t len)
{
	struct tlog_state st;
	char *tmp, *out;
	size_t olen, off = 0;
	ssize_t w;
	int fd;

	st.off = pos->off;
	memcpy(st.head, pos->head, SHA256_LEN);
	st.f = *f;
	if (tlog_state_format(&st, note, len, &out, &olen) == -1 ||
	    asprintf(&tmp, "%s.XXXXXX", path) == -1)
		die(EXIT_NO, "out of memory");
	if ((fd = mkstemp(tmp)) == -1)
		die_sys(EXIT_NO, "cannot create %s", tmp);
	while (off < olen) {
		w = write(fd, out + off, olen - off);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1) {
			unlink(tmp);
			die_sys(EXIT_NO, "writing %s", tmp);
		}
		off += (size_t)w;
	}
	if (fchmod(fd, 0600) == -1 || fsync(fd) == -1 || close(fd) == -1 ||
	    rename(tmp, path) == -1) {
		unlink(tmp);
		die_sys(EXIT_NO, "cannot write %s", path);
	}
	free(tmp);
	free(out);
}

/* With --state: the records after the state's, checked from there on
 * (their links to it included) and added to its tree; the journal must
 * still hold the state's last record where it was. */
static void
tree_from_state(const char *journal, const char *path,
    const struct note_verifier *v, struct journal_pos *pos,
    struct merkle_frontier *f)
{
	struct tlog_state st;
	struct stat sb;
	char err[512], *buf = NULL;
	uint64_t bad;
	int fd, r;

	memset(pos, 0, sizeof(*pos));
	merkle_init(f);
	if (load_state(path, v, &st, &buf)) {
		pos->seq = st.f.n;
		pos->off = st.off;
		memcpy(pos->head, st.head, SHA256_LEN);
		*f = st.f;
	}
	free(buf);
	fd = open(journal, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		die_sys(EXIT_NO, "cannot open %s", journal);
	/* Appenders hold the exclusive lock until their records are
	 * durable: the size seen under a shared lock ends on a record. */
	while ((r = flock(fd, LOCK_SH)) == -1 && errno == EINTR)
		;
	if (r == -1 || fstat(fd, &sb) == -1)
		die_sys(EXIT_NO, "cannot lock or stat %s", journal);
	flock(fd, LOCK_UN);
	if ((uint64_t)sb.st_size < pos->off ||
	    journal_pos_check(fd, pos, err, sizeof(err)) == -1)
		die(EXIT_NO, "%s: %s since the checkpoint in %s: not signed",
		    journal, (uint64_t)sb.st_size < pos->off ? "the journal "
		    "is shorter (truncated)" : err, path);
	if (journal_leaves_from(fd, pos, (uint64_t)sb.st_size, UINT64_MAX,
	    push, f, &bad, err, sizeof(err)) == -1)
		die(EXIT_NO, "%s: verification failed at %s", journal, err);
	close(fd);
	if (pos->off != (uint64_t)sb.st_size)
		die(EXIT_TORN, "%s: torn tail at record %llu, byte %llu: %llu "
		    "bytes of an unterminated record (journalchain recover)",
		    journal, (unsigned long long)(pos->seq + 1),
		    (unsigned long long)pos->off,
		    (unsigned long long)((uint64_t)sb.st_size - pos->off));
}

int
ckpt_checkpoint(const char *journal, const char *key, const char *origin,
    const char *state)
{
	struct note_signer s;
	struct tlog_checkpoint c;
	struct journal_pos pos;
	struct merkle_frontier f;
	char text[TLOG_ORIGIN_MAX + 128], err[256], *note;
	size_t len;
	int fd, tl;

	load_key(key, &s, NULL);
	if (origin == NULL)
		origin = s.v.name;
	if (!tlog_origin_ok(origin, strlen(origin)))
		die(EXIT_USAGE, "--origin: not an origin line (1 to %d bytes "
		    "of UTF-8, no control character)", TLOG_ORIGIN_MAX);
	memset(&c, 0, sizeof(c));
	memcpy(c.origin, origin, strlen(origin));
	if (state != NULL) {
		tree_from_state(journal, state, &s.v, &pos, &f);
		c.size = pos.seq;
		merkle_root(&f, c.root);
	} else {
		fd = journal_checked(journal, &c.size);
		tree_root(fd, journal, c.size, c.root);
		close(fd);
	}
	tl = tlog_format(&c, text, sizeof(text));
	if (tl == -1 || note_sign(text, (size_t)tl, &s, &note, &len, err,
	    sizeof(err)) == -1)
		die(EXIT_NO, "cannot sign the checkpoint: %s", tl == -1 ?
		    "too long" : err);
	explicit_bzero(s.seed, sizeof(s.seed));
	if (state != NULL)
		save_state(state, &pos, &f, note, len);
	if (fwrite(note, 1, len, stdout) != len || fflush(stdout) == EOF)
		die_sys(EXIT_NO, "writing stdout");
	free(note);
	return EXIT_OK;
}

int
ckpt_verify(const char *journal, const char *ckpt, const char *pub,
    const char *origin)
{
	struct note_verifier v;
	struct tlog_checkpoint c;
	uint8_t root[SHA256_LEN];
	char b[B64_LEN(SHA256_LEN) + 1];
	uint64_t count;
	int fd;

	load_key(pub, NULL, &v);
	load_checkpoint(ckpt, &v, &c);
	if (origin != NULL && strcmp(origin, c.origin) != 0)
		die(EXIT_NO, "%s: origin is \"%s\", not \"%s\"", ckpt,
		    c.origin, origin);
	fd = journal_checked(journal, &count);
	if (count < c.size)
		die(EXIT_NO, "%s: %llu records, fewer than the %llu of the "
		    "checkpoint %s: the journal was truncated, or is not the "
		    "one checkpointed", journal, (unsigned long long)count,
		    (unsigned long long)c.size, ckpt);
	tree_root(fd, journal, c.size, root);
	close(fd);
	if (memcmp(root, c.root, SHA256_LEN) != 0)
		die(EXIT_NO, "%s: its first %llu records do not have the root "
		    "of the checkpoint %s: the journal was rewritten, or is "
		    "not the one checkpointed", journal,
		    (unsigned long long)c.size, ckpt);
	b64_encode(root, SHA256_LEN, b);
	printf("checkpoint %llu %s verified: %s, %llu records\n",
	    (unsigned long long)c.size, b, c.origin,
	    (unsigned long long)count);
	return EXIT_OK;
}

/* prove: one frontier per range of the proof, fed the leaves in it. */
struct prover {
	struct merkle_range r[MERKLE_PROOF_MAX];
	struct merkle_frontier f[MERKLE_PROOF_MAX];
	int k;
};

static void
prove_leaf(void *arg, uint64_t i, const uint8_t leaf[SHA256_LEN])
{
	struct prover *p = arg;
	int j;

	/* The ranges are disjoint; at most 2 log2(n) of them. */
	for (j = 0; j < p->k; j++)
		if (i >= p->r[j].lo && i < p->r[j].hi) {
			merkle_push(&p->f[j], leaf);
			return;
		}
}

static uint64_t
size_arg(const char *opt, const char *s)
{
	uint64_t n;

	if (scan_u64(s, 0, INT64_MAX, &n) == -1)
		die(EXIT_USAGE, "%s: not a record count: %s", opt, s);
	return n;
}

int
ckpt_prove(const char *journal, const char *from, const char *to)
{
	static struct prover p;
	uint64_t m = size_arg("--from", from), n, count, bad;
	uint8_t h[SHA256_LEN];
	char b[B64_LEN(SHA256_LEN) + 1], err[512];
	int fd, j;

	fd = journal_checked(journal, &count);
	n = to != NULL ? size_arg("--to", to) : count;
	if (n > count)
		die(EXIT_NO, "%s: %llu records, fewer than --to %llu", journal,
		    (unsigned long long)count, (unsigned long long)n);
	if (m > n)
		die(EXIT_NO, "%s: %llu records, fewer than --from %llu: the "
		    "journal was truncated, or is not the one checkpointed",
		    journal, (unsigned long long)n, (unsigned long long)m);
	p.k = merkle_proof_ranges(m, n, p.r);
	for (j = 0; j < p.k; j++)
		merkle_init(&p.f[j]);
	if (p.k > 0 && journal_leaves(fd, n, prove_leaf, &p, &bad, err,
	    sizeof(err)) == -1)
		die(EXIT_NO, "%s: %s (changed while reading?)", journal, err);
	close(fd);
	printf("old %llu\n", (unsigned long long)m);
	for (j = 0; j < p.k; j++) {
		merkle_root(&p.f[j], h);
		b64_encode(h, SHA256_LEN, b);
		printf("%s\n", b);
	}
	if (fflush(stdout) == EOF)
		die_sys(EXIT_NO, "writing stdout");
	return EXIT_OK;
}

int
ckpt_consistent(const char *newck, const char *oldck, const char *proof,
    const char *pub)
{
	static uint8_t p[MERKLE_PROOF_MAX][SHA256_LEN];
	struct note_verifier v;
	struct tlog_checkpoint o, c;
	char err[256], *t;
	uint64_t old;
	size_t len, k;

	load_key(pub, NULL, &v);
	load_checkpoint(oldck, &v, &o);
	load_checkpoint(newck, &v, &c);
	t = read_file(proof, 8192, ANYONE, &len);
	if (tlog_proof_parse(t, len, &old, p, &k, err, sizeof(err)) == -1)
		die(EXIT_USAGE, "%s: %s", proof, err);
	free(t);
	if (strcmp(o.origin, c.origin) != 0)
		die(EXIT_NO, "%s and %s: different origins (\"%s\", \"%s\")",
		    oldck, newck, o.origin, c.origin);
	if (old != o.size)
		die(EXIT_NO, "%s: a proof from %llu records, but %s has %llu",
		    proof, (unsigned long long)old, oldck,
		    (unsigned long long)o.size);
	if (c.size < o.size)
		die(EXIT_NO, "%s has %llu records, fewer than the %llu of %s: "
		    "the journal was truncated", newck,
		    (unsigned long long)c.size, (unsigned long long)o.size,
		    oldck);
	if (merkle_proof_check(o.size, o.root, c.size, c.root,
	    (const uint8_t (*)[SHA256_LEN])p, k) == -1)
		die(EXIT_NO, "%s does not extend %s: the proof %s fails (the "
		    "first %llu records were changed, reordered or removed)",
		    newck, oldck, proof, (unsigned long long)o.size);
	printf("consistent: %s %llu -> %llu\n", c.origin,
	    (unsigned long long)o.size, (unsigned long long)c.size);
	return EXIT_OK;
}
