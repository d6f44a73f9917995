/* SPDX-License-Identifier: ISC */
/* journalchain: append to, verify, show and recover a hash-chained journal. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "err.h"
#include "hash.h"
#include "journal.h"
#include "scan.h"
#include "serve.h"
#include "show.h"
#include "usage.h"
#include "verdict.h"

#define USAGE                                                              \
	"journalchain append [--batch N] FILE | verify [--deep] "          \
	"[--from SEQ:HASH] FILE | show [--json] [--run ID] FILE | "        \
	"head FILE | "                                                     \
	"recover FILE | keygen NAME PREFIX | checkpoint --key KEY "        \
	"[--origin O] [--state STATE] FILE | verify --checkpoint CKPT "    \
	"--pub VKEY [--origin O] FILE | prove --from OLD [--to N] FILE | " \
	"consistent --pub VKEY --old CKPT --proof PROOF CKPT | "           \
	"serve [OPTION...] FILE..."

enum cmd {
	C_APPEND, C_VERIFY, C_SHOW, C_HEAD, C_RECOVER,
	/* signed checkpoints: checkpoint.c */
	C_KEYGEN, C_CHECKPOINT, C_PROVE, C_CONSISTENT,
};

enum {
	OPT_BATCH = USAGE_LONG_ONLY, OPT_DEEP, OPT_FROM, OPT_JSON,
	OPT_VERSION, OPT_KEY, OPT_ORIGIN, OPT_CHECKPOINT, OPT_PUB, OPT_TO,
	OPT_OLD, OPT_PROOF, OPT_STATE, OPT_RUN,
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
	{ "json", no_argument, OPT_JSON, NULL,
	    "show: every record whole, as JSON lines" },
	{ "run", required_argument, OPT_RUN, "ID",
	    "show: only the records of run ID (its start record's number)" },
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

/* Read stdin, one event per line, each canonicalised: their number;
 * an event that is not one JSON object dies naming its line (exit 2). */
static size_t
read_events(char ***ev, size_t **lens)
{
	char *line = NULL, *canon, msg[256];
	size_t n = 0, cap = 0, lcap = 0, clen, l;
	ssize_t r;

	while ((r = getline(&line, &lcap, stdin)) != -1) {
		l = (size_t)r;
		if (l > 0 && line[l - 1] == '\n')
			l--;
		if (journal_event_canon(line, l, &canon, &clen, msg,
		    sizeof(msg)) == -1)
			die(EXIT_USAGE, "stdin:%zu: %s; nothing written", n + 1,
			    msg);
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			*ev = realloc(*ev, cap * sizeof(**ev));
			*lens = realloc(*lens, cap * sizeof(**lens));
			if (*ev == NULL || *lens == NULL)
				die(EXIT_NO, "out of memory");
		}
		(*ev)[n] = canon;
		(*lens)[n++] = clen;
	}
	if (ferror(stdin))
		die_sys(EXIT_NO, "reading stdin; nothing written");
	free(line);
	return n;
}

/* Canonicalise all of stdin's events before writing any; commit in
 * groups of batch records (0: all in one). */
static int
cmd_append(const char *path, uint64_t batch)
{
	/* Static: the batch stays reachable when an error exits (die) with
	 * it allocated, so that the leak checker does not count it. */
	static char **ev;
	static size_t *lens;
	char err[512];
	size_t n = read_events(&ev, &lens), i = 0, k;
	enum journal_status st;

	do {
		k = n - i;
		if (batch != 0 && k > batch)
			k = (size_t)batch;
		if (journal_append_canon(path, (const char *const *)ev + i,
		    lens + i, k, NULL, &st, err, sizeof(err)) == -1) {
			if (i > 0)
				warning("%s: %zu records were appended before "
				    "this failure", path, i);
			die(errno == EBADMSG ? verdict_exit(st) : EXIT_NO,
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

static int
cmd_verify(const char *path, unsigned flags, const struct journal_head *from)
{
	struct journal_verdict v;
	char hex[SHA256_HEX_LEN + 1];
	int fd = verdict_open(path);

	if (journal_verify_fd(fd, flags, from, &v) == -1)
		die_sys(EXIT_NO, "cannot read %s", path);
	close(fd);
	sha256_hex(v.head.hash, hex);
	if (v.status == JOURNAL_OK)
		printf("%llu records, head %llu:%s\n",
		    (unsigned long long)v.count,
		    (unsigned long long)v.head.seq, hex);
	verdict_report(path, &v);
	return verdict_exit(v.status);
}

static int
cmd_head(const char *path)
{
	struct journal_head h;
	enum journal_status st;
	char hex[SHA256_HEX_LEN + 1], err[512];

	if (journal_head_read(path, &h, &st, err, sizeof(err)) == -1)
		die(errno == EBADMSG ? verdict_exit(st) : EXIT_NO, "%s: %s",
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

/* The subcommands but serve, in the order of enum cmd. */
static const char *const sub_name[] = { "append", "verify", "show", "head",
	"recover", "keygen", "checkpoint", "prove", "consistent" };

/* What the command line says after the subcommand. */
struct opts {
	enum cmd cmd;
	const char *sub, *path, *path2, *from_arg, *run;
	/* checkpoint.c's options, each once: --key, --origin,
	 * --checkpoint, --pub, --to, --old, --proof, --state */
	const char *ck[K_N];
	int ck_seen[K_N];
	int json, have_from, have_batch, have_run;
	unsigned flags;
	uint64_t batch;
	struct journal_head from;
};

static enum cmd
sub_parse(const char *sub)
{
	size_t i;

	for (i = 0; i < sizeof(sub_name) / sizeof(sub_name[0]); i++)
		if (strcmp(sub, sub_name[i]) == 0)
			return (enum cmd)i;
	die_usage_hint(EXIT_USAGE, "unknown subcommand: %s", sub);
}

/* One option or operand of getopt_long's ('-': operands in place). */
static void
opt_take(struct opts *o, int c, char *argv[])
{
	static const char *const ck_name[K_N] = { "key", "origin",
	    "checkpoint", "pub", "to", "old", "proof", "state" };

	switch (c) {
	case 1:
		if (o->path != NULL && (o->cmd != C_KEYGEN || o->path2 != NULL))
			die_usage_hint(EXIT_USAGE, "one FILE only: %s", optarg);
		*(o->path != NULL ? &o->path2 : &o->path) = optarg;
		break;
	case OPT_BATCH:
		usage_once(&o->have_batch, EXIT_USAGE, "batch", optarg);
		if (scan_u64(optarg, 0, UINT32_MAX, &o->batch) == -1)
			die_usage_hint(EXIT_USAGE, "--batch: not a count: %s",
			    optarg);
		break;
	case OPT_DEEP:
		o->flags |= JOURNAL_DEEP;
		break;
	case OPT_FROM:
		usage_once(&o->have_from, EXIT_USAGE, "from", optarg);
		o->from_arg = optarg;
		break;
	case OPT_KEY: case OPT_ORIGIN: case OPT_CHECKPOINT: case OPT_PUB:
	case OPT_TO: case OPT_OLD: case OPT_PROOF: case OPT_STATE:
		usage_once(&o->ck_seen[c - OPT_KEY], EXIT_USAGE,
		    ck_name[c - OPT_KEY], optarg);
		o->ck[c - OPT_KEY] = optarg;
		break;
	case OPT_JSON:
		o->json = 1;
		break;
	case OPT_RUN:
		usage_once(&o->have_run, EXIT_USAGE, "run", optarg);
		o->run = optarg;
		break;
	default:	/* --help, --version, ':' or '?' */
		usage_std(c, USAGE, options, OPT_VERSION, EXIT_USAGE, argv);
		abort();
	}
}

/* Validation, before anything is read: each option belongs to some
 * subcommands; one FILE (keygen: NAME PREFIX). */
static void
opts_check(struct opts *o, int argc, char *argv[])
{
	if (o->path == NULL && optind < argc)
		o->path = argv[optind++];
	if (o->cmd == C_KEYGEN && o->path2 == NULL && optind < argc)
		o->path2 = argv[optind++];
	if (optind < argc)
		die_usage_hint(EXIT_USAGE, "one FILE only: %s", argv[optind]);
	if (o->path == NULL)
		die_usage_hint(EXIT_USAGE, "%s: no FILE", o->sub);
	if (o->cmd == C_KEYGEN && o->path2 == NULL)
		die_usage_hint(EXIT_USAGE, "keygen: want NAME PREFIX");
	if (o->have_batch && o->cmd != C_APPEND)
		die_usage_hint(EXIT_USAGE, "--batch is for append");
	if (o->flags && o->cmd != C_VERIFY)
		die_usage_hint(EXIT_USAGE, "--deep is for verify");
	if (o->have_from && o->cmd != C_VERIFY && o->cmd != C_PROVE)
		die_usage_hint(EXIT_USAGE, "--from is for verify and prove");
	if (o->json && o->cmd != C_SHOW)
		die_usage_hint(EXIT_USAGE, "--json is for show");
	if (o->have_run && o->cmd != C_SHOW)
		die_usage_hint(EXIT_USAGE, "--run is for show");
	ckpt_options(o->cmd, o->ck, o->flags || o->have_from);
	if (o->cmd == C_VERIFY && o->have_from &&
	    journal_head_parse(o->from_arg, &o->from) == -1)
		die_usage_hint(EXIT_USAGE, "--from: want SEQ:HASH (64 hex "
		    "digits): %s", o->from_arg);
}

static int
run_cmd(const struct opts *o)
{
	const char *const *ck = o->ck;

	switch (o->cmd) {
	case C_APPEND:
		return cmd_append(o->path, o->batch);
	case C_VERIFY:
		if (ck[K_CHECKPOINT] != NULL)
			return ckpt_verify(o->path, ck[K_CHECKPOINT],
			    ck[K_PUB], ck[K_ORIGIN]);
		return cmd_verify(o->path, o->flags,
		    o->have_from ? &o->from : NULL);
	case C_SHOW:
		return show_main(o->path, o->json, o->run);
	case C_HEAD:
		return cmd_head(o->path);
	case C_RECOVER:
		return cmd_recover(o->path);
	case C_KEYGEN:
		return ckpt_keygen(o->path, o->path2);
	case C_CHECKPOINT:
		return ckpt_checkpoint(o->path, ck[K_KEY], ck[K_ORIGIN],
		    ck[K_STATE]);
	case C_PROVE:
		return ckpt_prove(o->path, o->from_arg, ck[K_TO]);
	case C_CONSISTENT:
		return ckpt_consistent(o->path, ck[K_OLD], ck[K_PROOF],
		    ck[K_PUB]);
	default:
		die_usage(USAGE);
	}
}

int
main(int argc, char *argv[])
{
	static struct opts o;
	struct option longopts[sizeof(options) / sizeof(options[0])];
	char shorts[16];
	int c;

	prog_set("journalchain");
	usage_getopt_init(options, longopts, sizeof(longopts) /
	    sizeof(longopts[0]), "-", shorts, sizeof(shorts));
	/* Before the subcommand: only --help and --version. */
	if (argc >= 2 && argv[1][0] == '-') {
		c = getopt_long(argc, argv, shorts, longopts, NULL);
		usage_std(c, USAGE, options, OPT_VERSION, EXIT_USAGE, argv);
		die_usage_hint(EXIT_USAGE, "%s: the subcommand comes first",
		    argv[1]);
	}
	if (argc < 2)
		die_usage_hint(EXIT_USAGE, "no subcommand (append, verify, "
		    "show, head, recover, keygen, checkpoint, prove, "
		    "consistent or serve)");
	/* serve has options and operands of its own (serve.c). */
	if (strcmp(argv[1], "serve") == 0)
		return serve_main(argc - 1, argv + 1);
	o.sub = argv[1];
	o.cmd = sub_parse(o.sub);
	argc--;
	argv++;
	optind = 1;
	/* After it: options anywhere, operands in place. */
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1)
		opt_take(&o, c, argv);
	opts_check(&o, argc, argv);
	return run_cmd(&o);
}
