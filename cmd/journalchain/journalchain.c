/* SPDX-License-Identifier: ISC */
/* journalchain: append to, verify, show and recover a hash-chained journal. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "err.h"
#include "hash.h"
#include "journal.h"
#include "scan.h"
#include "usage.h"

#define USAGE                                                              \
	"journalchain append [--batch N] FILE | verify [--deep] "          \
	"[--from SEQ:HASH] FILE | show [--json] FILE | head FILE | "       \
	"recover FILE | keygen NAME PREFIX | checkpoint --key KEY "        \
	"[--origin O] [--state STATE] FILE | verify --checkpoint CKPT "    \
	"--pub VKEY [--origin O] FILE | prove --from OLD [--to N] FILE | " \
	"consistent --pub VKEY --old CKPT --proof PROOF CKPT"

/* Exit status of a torn tail (journalchain(1)). */
#define EXIT_TORN 3

enum cmd {
	C_APPEND, C_VERIFY, C_SHOW, C_HEAD, C_RECOVER,
	/* signed checkpoints: checkpoint.c */
	C_KEYGEN, C_CHECKPOINT, C_PROVE, C_CONSISTENT,
};

enum {
	OPT_BATCH = USAGE_LONG_ONLY, OPT_DEEP, OPT_FROM, OPT_JSON,
	OPT_VERSION, OPT_KEY, OPT_ORIGIN, OPT_CHECKPOINT, OPT_PUB, OPT_TO,
	OPT_OLD, OPT_PROOF, OPT_STATE,
};

/* checkpoint.c's options, in the order of their OPT_ values: ck[K_...]. */
enum { K_KEY, K_ORIGIN, K_CHECKPOINT, K_PUB, K_TO, K_OLD, K_PROOF, K_STATE,
	K_N };

static const struct usage_opt options[] = {
	{ "batch", required_argument, OPT_BATCH, "N",
	    "append: commit every N records (0: all at once)" },
	{ "deep", no_argument, OPT_DEEP, NULL,
	    "verify: also parse every event, require canonical JSON" },
	{ "from", required_argument, OPT_FROM, "SEQ:HASH",
	    "verify: the journal must extend this earlier head; prove: OLD, "
	    "the older tree size" },
	{ "json", no_argument, OPT_JSON, NULL, "show: JSON lines" },
	{ "key", required_argument, OPT_KEY, "KEY",
	    "checkpoint: the signer key file (mode 0600)" },
	{ "origin", required_argument, OPT_ORIGIN, "O",
	    "checkpoint: the origin line (default: the key's name); verify: "
	    "the origin required" },
	{ "checkpoint", required_argument, OPT_CHECKPOINT, "CKPT",
	    "verify: the signed checkpoint the journal must match" },
	{ "pub", required_argument, OPT_PUB, "VKEY",
	    "verify, consistent: the verifier key file" },
	{ "to", required_argument, OPT_TO, "N",
	    "prove: the newer tree size (default: every record)" },
	{ "old", required_argument, OPT_OLD, "CKPT",
	    "consistent: the older signed checkpoint" },
	{ "proof", required_argument, OPT_PROOF, "PROOF",
	    "consistent: the proof prove printed" },
	{ "state", required_argument, OPT_STATE, "STATE",
	    "checkpoint: read only the records since the checkpoint kept in "
	    "STATE, then keep this one" },
	USAGE_STD_ROWS(OPT_VERSION),
};

static int
status_exit(enum journal_status st)
{
	switch (st) {
	case JOURNAL_OK:
		return EXIT_OK;
	case JOURNAL_TORN:
		return EXIT_TORN;
	case JOURNAL_BAD:
		return EXIT_NO;
	default:
		return EXIT_NO;
	}
}

/* Read stdin, one event per line; canonicalise all before writing any;
 * commit in groups of batch records (0: all in one). */
static int
cmd_append(const char *path, uint64_t batch)
{
	/* Static: the batch stays reachable when an error exits (die) with
	 * it allocated, so that the leak checker does not count it. */
	static char **ev;
	static size_t *lens;
	char *line = NULL, *canon, msg[256], err[512];
	size_t n = 0, cap = 0, lcap = 0, i, clen;
	enum journal_status st;
	ssize_t r;

	while ((r = getline(&line, &lcap, stdin)) != -1) {
		size_t l = (size_t)r;

		if (l > 0 && line[l - 1] == '\n')
			l--;
		if (journal_event_canon(line, l, &canon, &clen, msg,
		    sizeof(msg)) == -1)
			die(EXIT_USAGE, "stdin:%zu: %s; nothing written", n + 1,
			    msg);
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			ev = realloc(ev, cap * sizeof(*ev));
			lens = realloc(lens, cap * sizeof(*lens));
			if (ev == NULL || lens == NULL)
				die(EXIT_NO, "out of memory");
		}
		ev[n] = canon;
		lens[n++] = clen;
	}
	if (ferror(stdin))
		die_sys(EXIT_NO, "reading stdin; nothing written");
	free(line);
	i = 0;
	do {
		size_t k = n - i;

		if (batch != 0 && k > batch)
			k = (size_t)batch;
		if (journal_append_canon(path, (const char *const *)ev + i,
		    lens + i, k, NULL, &st, err, sizeof(err)) == -1) {
			if (i > 0)
				warning("%s: %zu records were appended before "
				    "this failure", path, i);
			die(errno == EBADMSG ? status_exit(st) : EXIT_NO,
			    "%s: %s", path, err);
		}
		i += k;
	} while (i < n);
	for (i = 0; i < n; i++)
		free(ev[i]);
	free(ev);
	free(lens);
	return EXIT_OK;
}

static void
verdict_report(const char *path, const struct journal_verdict *v)
{
	if (v->status == JOURNAL_OK)
		return;
	warning("%s: %s at record %llu, byte %llu: %s", path,
	    v->status == JOURNAL_TORN ? "torn tail" : "verification failed",
	    (unsigned long long)v->bad_seq, (unsigned long long)v->bad_off,
	    v->why);
}

static int
open_ro(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		die_sys(EXIT_NO, "cannot open %s", path);
	return fd;
}

static int
cmd_verify(const char *path, unsigned flags, const struct journal_head *from)
{
	struct journal_verdict v;
	char hex[SHA256_HEX_LEN + 1];
	int fd = open_ro(path);

	if (journal_verify_fd(fd, flags, from, &v) == -1)
		die_sys(EXIT_NO, "cannot read %s", path);
	close(fd);
	sha256_hex(v.head.hash, hex);
	if (v.status == JOURNAL_OK)
		printf("%llu records, head %llu:%s\n",
		    (unsigned long long)v.count,
		    (unsigned long long)v.head.seq, hex);
	verdict_report(path, &v);
	return status_exit(v.status);
}

static void
time_str(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (gmtime_r(&s, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm) == 0) {
		snprintf(buf, len, "%llu", (unsigned long long)ns);
		return;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ".%09lluZ",
	    (unsigned long long)(ns % 1000000000u));
}

static int
cmd_show(const char *path, int json)
{
	struct journal_verdict v;
	struct journal_record r;
	char hex[SHA256_HEX_LEN + 1], ts[64], *buf;
	uint8_t d[SHA256_LEN];
	size_t off = 0, len;
	int fd = open_ro(path), width;
	ssize_t got;

	/* show is for people and jq: check every event deeply first, then
	 * print the valid records. */
	if (journal_verify_fd(fd, JOURNAL_DEEP, NULL, &v) == -1)
		die_sys(EXIT_NO, "cannot read %s", path);
	len = (size_t)v.good_end;
	buf = malloc(len ? len : 1);
	if (buf == NULL)
		die(EXIT_NO, "out of memory");
	while (off < len) {
		got = pread(fd, buf + off, len - off, (off_t)off);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0)
			die_sys(EXIT_NO, "cannot read %s", path);
		off += (size_t)got;
	}
	close(fd);
	width = snprintf(hex, sizeof(hex), "%llu", (unsigned long long)v.count);
	for (off = 0; off < len;) {
		char *nl = memchr(buf + off, '\n', len - off);
		size_t n = (size_t)(nl - (buf + off));

		if (journal_record_parse(buf + off, n, &r, NULL) == -1)
			die(EXIT_NO, "%s: record changed while reading", path);
		sha256_buf(buf + off, n + 1, d);
		sha256_hex(d, hex);
		if (json) {
			printf("{\"seq\":%llu,\"hash\":\"%s\",\"prev\":\"%.64s\","
			    "\"time\":\"%llu\",\"event\":%.*s}\n",
			    (unsigned long long)r.seq, hex, r.prev_hex,
			    (unsigned long long)r.time_ns, (int)r.event_len,
			    r.event);
		} else {
			time_str(r.time_ns, ts, sizeof(ts));
			printf("%*llu  %s  %.16s  %.*s\n", width,
			    (unsigned long long)r.seq, ts, hex,
			    (int)r.event_len, r.event);
		}
		off += n + 1;
	}
	free(buf);
	if (fflush(stdout) == EOF)
		die_sys(EXIT_NO, "writing stdout");
	verdict_report(path, &v);
	return status_exit(v.status);
}

static int
cmd_head(const char *path)
{
	struct journal_head h;
	enum journal_status st;
	char hex[SHA256_HEX_LEN + 1], err[512];

	if (journal_head_read(path, &h, &st, err, sizeof(err)) == -1)
		die(errno == EBADMSG ? status_exit(st) : EXIT_NO, "%s: %s",
		    path, err);
	sha256_hex(h.hash, hex);
	printf("%llu %s\n", (unsigned long long)h.seq, hex);
	return EXIT_OK;
}

static int
cmd_recover(const char *path)
{
	char err[512];
	uint64_t dropped;

	if (journal_recover(path, &dropped, err, sizeof(err)) == -1)
		die(EXIT_NO, "%s: %s", path, err);
	if (dropped == 0)
		printf("%s: not torn, nothing to recover\n", path);
	else
		printf("%s: dropped %llu bytes of a torn record; recorded in a "
		    "recovered event\n", path, (unsigned long long)dropped);
	return EXIT_OK;
}

/* The checkpoint options ck[] (--key, --origin, --checkpoint, --pub,
 * --to, --old, --proof, --state) each belong to some subcommands; some
 * are required there.  chain_opts: --deep or --from given. */
static void
ckpt_options(enum cmd cmd, const char *const ck[K_N], int chain_opts)
{
	/* which subcommands take each option: allowed, then required */
	static const struct {
		const char *name;
		unsigned allowed, required;
	} rule[K_N] = {
		{ "key", 1u << C_CHECKPOINT, 1u << C_CHECKPOINT },
		{ "origin", 1u << C_CHECKPOINT | 1u << C_VERIFY, 0 },
		{ "checkpoint", 1u << C_VERIFY, 0 },
		{ "pub", 1u << C_VERIFY | 1u << C_CONSISTENT,
		    1u << C_CONSISTENT },
		{ "to", 1u << C_PROVE, 0 },
		{ "old", 1u << C_CONSISTENT, 1u << C_CONSISTENT },
		{ "proof", 1u << C_CONSISTENT, 1u << C_CONSISTENT },
		{ "state", 1u << C_CHECKPOINT, 0 },
	};
	int i;

	for (i = 0; i < K_N; i++) {
		if (ck[i] != NULL && !(rule[i].allowed & 1u << cmd))
			die_usage_hint(EXIT_USAGE, "--%s is not for this "
			    "subcommand (journalchain --help)", rule[i].name);
		if (ck[i] == NULL && (rule[i].required & 1u << cmd))
			die_usage_hint(EXIT_USAGE, "this subcommand needs "
			    "--%s", rule[i].name);
	}
	if (cmd == C_VERIFY &&
	    (ck[K_CHECKPOINT] != NULL) != (ck[K_PUB] != NULL))
		die_usage_hint(EXIT_USAGE, "verify: --checkpoint and --pub go "
		    "together");
	if (cmd == C_VERIFY && ck[K_ORIGIN] != NULL &&
	    ck[K_CHECKPOINT] == NULL)
		die_usage_hint(EXIT_USAGE, "verify: --origin needs "
		    "--checkpoint");
	if (cmd == C_VERIFY && ck[K_CHECKPOINT] != NULL && chain_opts)
		die_usage_hint(EXIT_USAGE, "verify: --checkpoint goes without "
		    "--deep and --from");
	if (cmd == C_PROVE && !chain_opts)
		die_usage_hint(EXIT_USAGE, "prove needs --from OLD");
}

int
main(int argc, char *argv[])
{
	struct journal_head from;
	uint64_t batch = 0;
	unsigned flags = 0;
	int c, json = 0, have_from = 0, have_batch = 0;
	const char *sub, *path = NULL, *path2 = NULL, *from_arg = NULL;
	/* checkpoint.c's options, each once: --key, --origin, --checkpoint,
	 * --pub, --to, --old, --proof, --state */
	const char *ck[K_N] = {0};
	static const char *const ck_name[K_N] = { "key", "origin",
	    "checkpoint", "pub", "to", "old", "proof", "state" };
	int ck_seen[K_N] = {0};
	struct option longopts[sizeof(options) / sizeof(options[0])];
	char shorts[16];
	enum cmd cmd;

	prog_set("journalchain");
	usage_getopt_init(options, longopts, sizeof(longopts) /
	    sizeof(longopts[0]), "-", shorts, sizeof(shorts));
	/* Before the subcommand: only --help and --version. */
	if (argc >= 2 && argv[1][0] == '-') {
		c = getopt_long(argc, argv, shorts, longopts, NULL);
		usage_std(c, USAGE, options, OPT_VERSION, EXIT_USAGE,
		    argv);
		die_usage_hint(EXIT_USAGE, "%s: the subcommand comes first",
		    argv[1]);
	}
	if (argc < 2)
		die_usage_hint(EXIT_USAGE, "no subcommand (append, verify, "
		    "show, head, recover, keygen, checkpoint, prove or "
		    "consistent)");
	sub = argv[1];
	if (strcmp(sub, "append") == 0)
		cmd = C_APPEND;
	else if (strcmp(sub, "verify") == 0)
		cmd = C_VERIFY;
	else if (strcmp(sub, "show") == 0)
		cmd = C_SHOW;
	else if (strcmp(sub, "head") == 0)
		cmd = C_HEAD;
	else if (strcmp(sub, "recover") == 0)
		cmd = C_RECOVER;
	else if (strcmp(sub, "keygen") == 0)
		cmd = C_KEYGEN;
	else if (strcmp(sub, "checkpoint") == 0)
		cmd = C_CHECKPOINT;
	else if (strcmp(sub, "prove") == 0)
		cmd = C_PROVE;
	else if (strcmp(sub, "consistent") == 0)
		cmd = C_CONSISTENT;
	else
		die_usage_hint(EXIT_USAGE, "unknown subcommand: %s", sub);
	argc--;
	argv++;
	optind = 1;
	/* After it: options anywhere, one FILE ('-': operands in place). */
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		switch (c) {
		case 1:
			if (path != NULL && (cmd != C_KEYGEN || path2 != NULL))
				die_usage_hint(EXIT_USAGE, "one FILE only: %s",
				    optarg);
			if (path != NULL)
				path2 = optarg;
			else
				path = optarg;
			break;
		case OPT_BATCH:
			usage_once(&have_batch, EXIT_USAGE, "batch", optarg);
			if (scan_u64(optarg, 0, UINT32_MAX, &batch) == -1)
				die_usage_hint(EXIT_USAGE, "--batch: not a "
				    "count: %s", optarg);
			break;
		case OPT_DEEP:
			flags |= JOURNAL_DEEP;
			break;
		case OPT_FROM:
			usage_once(&have_from, EXIT_USAGE, "from", optarg);
			from_arg = optarg;
			break;
		case OPT_KEY: case OPT_ORIGIN: case OPT_CHECKPOINT:
		case OPT_PUB: case OPT_TO: case OPT_OLD: case OPT_PROOF:
		case OPT_STATE:
			usage_once(&ck_seen[c - OPT_KEY], EXIT_USAGE,
			    ck_name[c - OPT_KEY], optarg);
			ck[c - OPT_KEY] = optarg;
			break;
		case OPT_JSON:
			json = 1;
			break;
		default:	/* --help, --version, ':' or '?' */
			usage_std(c, USAGE, options, OPT_VERSION, EXIT_USAGE,
			    argv);
			abort();
		}
	}
	/* validation: each option belongs to one subcommand; one FILE */
	if (path == NULL && optind < argc)
		path = argv[optind++];
	if (cmd == C_KEYGEN && path2 == NULL && optind < argc)
		path2 = argv[optind++];
	if (optind < argc)
		die_usage_hint(EXIT_USAGE, "one FILE only: %s", argv[optind]);
	if (path == NULL)
		die_usage_hint(EXIT_USAGE, "%s: no FILE", sub);
	if (cmd == C_KEYGEN && path2 == NULL)
		die_usage_hint(EXIT_USAGE, "keygen: want NAME PREFIX");
	if (have_batch && cmd != C_APPEND)
		die_usage_hint(EXIT_USAGE, "--batch is for append");
	if (flags && cmd != C_VERIFY)
		die_usage_hint(EXIT_USAGE, "--deep is for verify");
	if (have_from && cmd != C_VERIFY && cmd != C_PROVE)
		die_usage_hint(EXIT_USAGE, "--from is for verify and prove");
	if (json && cmd != C_SHOW)
		die_usage_hint(EXIT_USAGE, "--json is for show");
	ckpt_options(cmd, ck, flags || have_from);
	if (cmd == C_VERIFY && have_from &&
	    journal_head_parse(from_arg, &from) == -1)
		die_usage_hint(EXIT_USAGE, "--from: want SEQ:HASH (64 hex "
		    "digits): %s", from_arg);

	switch (cmd) {
	case C_APPEND:
		return cmd_append(path, batch);
	case C_VERIFY:
		if (ck[K_CHECKPOINT] != NULL)
			return ckpt_verify(path, ck[K_CHECKPOINT], ck[K_PUB],
			    ck[K_ORIGIN]);
		return cmd_verify(path, flags, have_from ? &from : NULL);
	case C_SHOW:
		return cmd_show(path, json);
	case C_HEAD:
		return cmd_head(path);
	case C_RECOVER:
		return cmd_recover(path);
	case C_KEYGEN:
		return ckpt_keygen(path, path2);
	case C_CHECKPOINT:
		return ckpt_checkpoint(path, ck[K_KEY], ck[K_ORIGIN],
		    ck[K_STATE]);
	case C_PROVE:
		return ckpt_prove(path, from_arg, ck[K_TO]);
	case C_CONSISTENT:
		return ckpt_consistent(path, ck[K_OLD], ck[K_PROOF],
		    ck[K_PUB]);
	default:
		die_usage(USAGE);
	}
}
