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

/* checkpoint.c's options: ck[K_...]. */
enum { K_KEY, K_ORIGIN, K_CHECKPOINT, K_PUB, K_TO, K_OLD, K_PROOF, K_STATE,
	K_N };

/* What the command line says after the subcommand. */
struct opts {
	enum cmd cmd;
	const char *sub, *path, *path2, *from_arg, *run;
	/* checkpoint.c's options, each once: --key, --origin,
	 * --checkpoint, --pub, --to, --old, --proof, --state */
	const char *ck[K_N];
	int json, deep, have_batch;
	uint64_t batch;
	struct journal_head from;
};

/* The one option opt_take reads (a count). */
enum { OPT_BATCH = USAGE_LONG_ONLY };

/* clang-format off */
static const struct usage_opt options[] = {
	USAGE_ONCE("batch", OPT_BATCH, "N", "append: commit every N records (0: all at once)"),
	USAGE_FLAG("deep", 0, struct opts, deep, "verify: also parse every event, require canonical JSON"),
	USAGE_STR("from", 0, "SEQ:HASH", struct opts, from_arg, "verify: the journal must extend this earlier head; prove: OLD, the older tree size"),
	USAGE_FLAG("json", 0, struct opts, json, "show: every record whole, as JSON lines"),
	USAGE_STR("run", 0, "ID", struct opts, run, "show: only the records of run ID (its start record's number)"),
	USAGE_STR("key", 0, "KEY", struct opts, ck[K_KEY], "checkpoint: the signer key file (mode 0600)"),
	USAGE_STR("origin", 0, "O", struct opts, ck[K_ORIGIN], "checkpoint: the origin line (default: the key's name); verify: the origin required"),
	USAGE_STR("checkpoint", 0, "CKPT", struct opts, ck[K_CHECKPOINT], "verify: the signed checkpoint the journal must match"),
	USAGE_STR("pub", 0, "VKEY", struct opts, ck[K_PUB], "verify, consistent: the verifier key file"),
	USAGE_STR("to", 0, "N", struct opts, ck[K_TO], "prove: the newer tree size (default: every record)"),
	USAGE_STR("old", 0, "CKPT", struct opts, ck[K_OLD], "consistent: the older signed checkpoint"),
	USAGE_STR("proof", 0, "PROOF", struct opts, ck[K_PROOF], "consistent: the proof prove printed"),
	USAGE_STR("state", 0, "STATE", struct opts, ck[K_STATE], "checkpoint: read only the records since the checkpoint kept in STATE, then keep this one"),
	USAGE_STD_ROWS,
};
/* clang-format on */

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
		/* No events: no array (NULL + 0 is undefined). */
		if (journal_append_canon(path, n ? (const char *const *)ev + i :
		    NULL, n ? lens + i : NULL, k, NULL, &st, err,
		    sizeof(err)) == -1) {
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

static enum cmd
sub_parse(const char *sub)
{
	size_t i;

	for (i = 0; i < sizeof(sub_name) / sizeof(sub_name[0]); i++)
		if (strcmp(sub, sub_name[i]) == 0)
			return (enum cmd)i;
	die_usage_hint(EXIT_USAGE, "unknown subcommand: %s", sub);
}

/* An operand in place ('-': c == 1) or --batch, the option with a count. */
static void
opt_take(struct opts *o, int c)
{
	if (c == OPT_BATCH) {
		o->have_batch = 1;
		if (scan_u64(optarg, 0, UINT32_MAX, &o->batch) == -1)
			die_usage_hint(EXIT_USAGE, "--batch: not a count: %s",
			    optarg);
		return;
	}
	if (o->path != NULL && (o->cmd != C_KEYGEN || o->path2 != NULL))
		die_usage_hint(EXIT_USAGE, "one FILE only: %s", optarg);
	*(o->path != NULL ? &o->path2 : &o->path) = optarg;
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
	if (o->deep && o->cmd != C_VERIFY)
		die_usage_hint(EXIT_USAGE, "--deep is for verify");
	if (o->from_arg != NULL && o->cmd != C_VERIFY && o->cmd != C_PROVE)
		die_usage_hint(EXIT_USAGE, "--from is for verify and prove");
	if (o->json && o->cmd != C_SHOW)
		die_usage_hint(EXIT_USAGE, "--json is for show");
	if (o->run != NULL && o->cmd != C_SHOW)
		die_usage_hint(EXIT_USAGE, "--run is for show");
	ckpt_options(o->cmd, o->ck, o->deep || o->from_arg != NULL);
	if (o->cmd == C_VERIFY && o->from_arg != NULL &&
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
		return cmd_verify(o->path, o->deep ? JOURNAL_DEEP : 0,
		    o->from_arg != NULL ? &o->from : NULL);
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
	static struct usage_cli u = USAGE_CLI(options, "-", USAGE, EXIT_USAGE,
	    &o);
	int c;

	prog_set("journalchain");
	/* Before the subcommand: only --help and --version. */
	if (argc >= 2 && argv[1][0] == '-') {
		usage_std(&u, usage_getopt(&u, argc, argv), argv);
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
	while ((c = usage_next(&u, argc, argv)) != -1)
		opt_take(&o, c);
	opts_check(&o, argc, argv);
	return run_cmd(&o);
}
