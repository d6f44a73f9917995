/* SPDX-License-Identifier: ISC */
/* Unit tests of common/plan: round trips, canonical form, decode errors. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "esc.h"
#include "plan.h"
#include "tap.h"
#include "planbad.h"

static char err[512];

/* A plan with every field set, lists deliberately unsorted. */
static void
full_plan(struct plan *p)
{
	static char *argv[] = { "/usr/bin/tool", "", "two words",
		"line\nbreak", "back\\slash", " lead", "trail ", "\377\001x",
		" ", NULL };
	static struct plan_fsrule fs[] = {
		{ PLAN_RW, "/tmp/b" }, { PLAN_RO, "/usr" }, { PLAN_RO, "/" },
		{ PLAN_ROX, "/bin" }, { PLAN_RW, "/tmp/a\nx" },
	};
	static uint16_t con[] = { 443, 80 }, bind[] = { 8080 };
	static char *env[] = { "PATH=/usr/bin:/bin", "A1=x", "A= y\377",
		"EMPTY=", NULL };
	static struct plan_rlimit rl[] = {
		{ RLIMIT_NOFILE, 1024, 4096 }, { RLIMIT_CORE, 0, 0 },
		{ RLIMIT_AS, PLAN_RLIM_INF, PLAN_RLIM_INF },
	};
	static char *ack[] = { "podman", "docker" };
	static int keep[] = { 9, 3 };
	static unsigned char prompt[] = "hello\0\nworld\377";

	memset(p, 0, sizeof(*p));
	p->program = "/usr/bin/tool";
	p->argv = argv;
	p->argc = 9;
	p->has_sha256 = 1;
	memset(p->sha256, 0xab, 32);
	p->fs = fs;
	p->nfs = 5;
	p->sock = PLAN_SOCK_UNIX | PLAN_SOCK_TCP;
	p->connect_tcp = con;
	p->nconnect = 2;
	p->bind_tcp = bind;
	p->nbind = 1;
	p->env = env;
	p->nenv = 4;
	p->rlim = rl;
	p->nrlim = 3;
	p->mem_max = 512ull << 20;
	p->pids_max = 64;
	p->cpu_quota_us = 50000;
	p->cpu_period_us = 100000;
	p->timeout_ms = 30000;
	p->has_uid = p->has_gid = 1;
	p->uid = 100000;
	p->gid = 100001;
	p->ack_daemons = ack;
	p->nack = 2;
	p->keep_fds = keep;
	p->nkeep = 2;
	p->mode = PLAN_DEGRADE;
	p->has_prompt = 1;
	p->prompt = prompt;
	p->prompt_len = sizeof(prompt) - 1;
}

static const char minimal[] = "borne-plan 1\n"
			      "program /bin/true\n"
			      "arg /bin/true\n"
			      "mode strict\n"
			      "end\n";


static void
bads(const char *s, const char *want, const char *desc)
{
	bad(s, strlen(s), want, desc);
}

/* A minimal plan with line `ins` inserted before "mode strict". */
static void
bad_line(const char *ins, const char *want)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
	    "borne-plan 1\nprogram /bin/true\narg /bin/true\n%smode strict\n"
	    "end\n", ins);
	bad(buf, strlen(buf), want, ins);
}

int
main(void)
{
	struct plan p, d, d2;
	unsigned char *enc = NULL, *enc2 = NULL;
	size_t n = 0, n2 = 0, i;
	json_t *j;
	char *js;
	int fds[2];

	/* Round trip of every field. */
	full_plan(&p);
	is_int(plan_validate(&p, err, sizeof(err)), 0, "full plan valid");
	is_int(plan_encode(&p, &enc, &n), 0, "full plan encodes");
	is_int(plan_decode(enc, n, &d, err, sizeof(err)), 0,
	    "full plan decodes (%s)", err);
	is_str(d.program, "/usr/bin/tool", "program");
	is_int(d.argc, 9, "argc");
	for (i = 0; i < 9; i++)
		is_str(d.argv[i], p.argv[i], "argv[%zu] round-trips", i);
	ok(d.argv[9] == NULL, "argv NULL-terminated");
	ok(d.has_sha256 && d.sha256[0] == 0xab && d.sha256[31] == 0xab,
	    "sha256");
	is_int(d.nfs, 5, "nfs");
	ok(d.fs[0].intent == PLAN_RO && strcmp(d.fs[0].path, "/") == 0 &&
	    d.fs[1].intent == PLAN_RO && strcmp(d.fs[1].path, "/usr") == 0 &&
	    d.fs[2].intent == PLAN_RW && strcmp(d.fs[2].path, "/tmp/a\nx") == 0 &&
	    d.fs[3].intent == PLAN_RW && strcmp(d.fs[3].path, "/tmp/b") == 0 &&
	    d.fs[4].intent == PLAN_ROX && strcmp(d.fs[4].path, "/bin") == 0,
	    "fs rules sorted by intent then path");
	is_int(d.sock, PLAN_SOCK_UNIX | PLAN_SOCK_TCP, "sockets");
	ok(d.nconnect == 2 && d.connect_tcp[0] == 80 &&
	    d.connect_tcp[1] == 443, "connect ports sorted");
	ok(d.nbind == 1 && d.bind_tcp[0] == 8080, "bind port");
	ok(d.nenv == 4 && strcmp(d.env[0], "A= y\377") == 0 &&
	    strcmp(d.env[1], "A1=x") == 0 && strcmp(d.env[2], "EMPTY=") == 0 &&
	    strcmp(d.env[3], "PATH=/usr/bin:/bin") == 0,
	    "env sorted by name, values intact");
	ok(d.nrlim == 3 && d.rlim[0].resource == RLIMIT_CORE &&
	    d.rlim[1].resource == RLIMIT_NOFILE &&
	    d.rlim[1].soft == 1024 && d.rlim[1].hard == 4096 &&
	    d.rlim[2].resource == RLIMIT_AS &&
	    d.rlim[2].soft == PLAN_RLIM_INF, "rlimits in RLIMIT_* order");
	ok(d.mem_max == 512ull << 20 && d.pids_max == 64 &&
	    d.cpu_quota_us == 50000 && d.cpu_period_us == 100000 &&
	    d.timeout_ms == 30000, "cgroup limits and timeout");
	ok(d.has_uid && d.uid == 100000 && d.has_gid && d.gid == 100001,
	    "uid and gid");
	ok(d.nack == 2 && strcmp(d.ack_daemons[0], "docker") == 0,
	    "ack-daemon sorted");
	ok(d.nkeep == 2 && d.keep_fds[0] == 3 && d.keep_fds[1] == 9,
	    "keep-fd sorted");
	is_int(d.mode, PLAN_DEGRADE, "mode");
	ok(d.has_prompt && d.prompt_len == p.prompt_len &&
	    memcmp(d.prompt, p.prompt, p.prompt_len) == 0,
	    "prompt bytes (NUL included)");
	ok(d.has_digest, "digest set by decode");
	is_int(plan_encode(&d, &enc2, &n2), 0, "decoded plan re-encodes");
	ok(n2 == n && memcmp(enc, enc2, n) == 0,
	    "decode then encode gives identical bytes");
	is_int(plan_decode(enc2, n2, &d2, err, sizeof(err)), 0,
	    "re-encoding decodes");
	ok(memcmp(d.digest, d2.digest, 32) == 0, "same digest");
	plan_free(&d2);

	/* The encoded text a person reads. */
	ok(memmem(enc, n, "\narg\n", 5) != NULL, "empty arg is the bare key");
	ok(memmem(enc, n, "\narg two words\n", 15) != NULL,
	    "inner space literal");
	ok(memmem(enc, n, "\narg \\040lead\n", 14) != NULL,
	    "leading space escaped");
	ok(memmem(enc, n, "\narg trail\\040\n", 15) != NULL,
	    "trailing space escaped");
	ok(memmem(enc, n, "\narg line\\012break\n", 19) != NULL,
	    "newline escaped");
	ok(memmem(enc, n, "\narg back\\134slash\n", 19) != NULL,
	    "backslash escaped");
	ok(memmem(enc, n, "\narg \\377\\001x\n", 15) != NULL,
	    "non-UTF-8 and control bytes escaped");
	ok(memmem(enc, n, "\nrlimit as inf inf\n", 19) != NULL, "inf");
	ok(memmem(enc, n, "\nprompt 13\nend\nhello", 20) != NULL,
	    "prompt length then blob after end");

	/* JSON view. */
	j = plan_to_json(&d);
	ok(j != NULL, "plan_to_json");
	js = j ? json_dumps(j, JSON_COMPACT) : NULL;
	ok(js && strstr(js, "\"argv\":[\"/usr/bin/tool\",\"\",\"two words\","
	    "\"line\\nbreak\"") != NULL, "argv in JSON (%s)", js ? "" : "");
	ok(js && strstr(js, "{\"escaped\":\"\\\\377\\\\001x\"}") != NULL,
	    "non-UTF-8 arg as escaped object");
	ok(js && strstr(js, "\"prompt\":{\"length\":13,\"sha256\":\"") != NULL,
	    "prompt as length and digest");
	ok(js && strstr(js, "hello") == NULL, "prompt bytes not in JSON");
	free(js);
	json_decref(j);
	plan_free(&d);
	free(enc2);

	/* A pinned script: "script INDEX HEX" after sha256, round trip,
	 * JSON, canonical. */
	{
		static char *sargv[] = { "/usr/bin/python3", "-E",
			"/usr/bin/tool.py", "x", NULL };
		struct plan s;
		unsigned char *se = NULL, *se2 = NULL;
		size_t sn = 0, sn2 = 0;

		memset(&s, 0, sizeof(s));
		s.program = "/usr/bin/python3";
		s.argv = sargv;
		s.argc = 4;
		s.has_sha256 = 1;
		memset(s.sha256, 0x01, 32);
		s.script_arg = 2;
		memset(s.script_sha256, 0xab, 32);
		is_int(plan_validate(&s, err, sizeof(err)), 0,
		    "script plan valid (%s)", err);
		is_int(plan_encode(&s, &se, &sn), 0, "script plan encodes");
		ok(se && memmem(se, sn, "\nsha256 0101", 12) != NULL &&
		    memmem(se, sn, "\nscript 2 abababababababababababababababababababababababababababababababab\nmode ",
		    sizeof("\nscript 2 \nmode ") - 1 + 64) != NULL,
		    "script line after sha256, before mode");
		is_int(plan_decode(se, sn, &d, err, sizeof(err)), 0,
		    "script plan decodes (%s)", err);
		ok(d.script_arg == 2 && d.script_sha256[0] == 0xab &&
		    d.script_sha256[31] == 0xab, "script index and digest");
		is_int(plan_encode(&d, &se2, &sn2), 0, "re-encodes");
		ok(sn == sn2 && se && se2 && memcmp(se, se2, sn) == 0,
		    "script plan canonical");
		j = plan_to_json(&d);
		js = j ? json_dumps(j, JSON_COMPACT) : NULL;
		ok(js && strstr(js, "\"script\":{\"arg\":2,\"sha256\":\"abab")
		    != NULL, "script in JSON");
		free(js);
		json_decref(j);
		plan_free(&d);
		s.script_arg = 4;
		ok(plan_validate(&s, err, sizeof(err)) == -1 &&
		    strstr(err, "script 4: no such argument") != NULL,
		    "script index past argv refused");
		s.script_arg = 1;
		ok(plan_validate(&s, err, sizeof(err)) == -1 &&
		    strstr(err, "script 1: arg -E: not an absolute path") !=
		    NULL, "script argument not a path refused");
		free(se);
		free(se2);
	}
	j = plan_to_json(&p);
	js = j ? json_dumps(j, JSON_COMPACT) : NULL;
	ok(js && strstr(js, "\"script\":null") != NULL,
	    "no script: null in JSON");
	free(js);
	json_decref(j);

	/* plan_read_fd over a pipe. */
	/* (ok() evaluates its condition twice: no side effects in it.) */
	{
		int pr = pipe(fds);
		ssize_t w = pr == 0 ? write(fds[1], enc, n) : -1;

		ok(pr == 0 && w == (ssize_t)n, "plan written to a pipe");
	}
	close(fds[1]);
	is_int(plan_read_fd(fds[0], &d, err, sizeof(err)), 0,
	    "plan_read_fd (%s)", err);
	close(fds[0]);
	is_int(d.argc, 9, "read plan argc");
	plan_free(&d);

	prefixes_and_flips(enc, n);
	free(enc);

	/* Minimal plan. */
	is_int(plan_decode((const unsigned char *)minimal, strlen(minimal), &d,
	    err, sizeof(err)), 0, "minimal plan decodes (%s)", err);
	is_int(plan_encode(&d, &enc, &n), 0, "minimal re-encodes");
	ok(n == strlen(minimal) && memcmp(enc, minimal, n) == 0,
	    "minimal identical");
	free(enc);
	plan_free(&d);

	/* Decode error classes. */
	bads("", "empty: no bytes (did the encoder fail?)", "empty input");
	bads("borne-plan 2\n", "unsupported format version", "version 2");
	bad(minimal, strlen(minimal) - 1, "truncated: no end line",
	    "missing final newline");
	bad(minimal, strlen(minimal) - 4, "truncated: no end line",
	    "missing end");
	{
		char buf[256];

		snprintf(buf, sizeof(buf), "%sx", minimal);
		bad(buf, strlen(buf), "1 trailing bytes after end",
		    "trailing byte");
		snprintf(buf, sizeof(buf), "%s", minimal);
		buf[strlen(minimal) - 2] = 'x';
		bad(buf, strlen(buf), "unknown key \"enx\"", "mangled end");
	}
	bads("borne-plan 1\nprogram /bin/true\narg /bin/true\nmode strict\n"
	    "prompt 5\nend\nabc", "truncated prompt: 3 of 5",
	    "short prompt");
	bads("borne-plan 1\nprogram /bin/true\narg /bin/true\nmode strict\n"
	    "prompt 2\nend\nabc", "1 trailing bytes after the prompt",
	    "long prompt");
	bads("borne-plan 1\nprogram /bin/true\nmode strict\nend\n",
	    "line 4: end: missing arg", "missing arg");
	bads("borne-plan 1\narg /bin/true\nmode strict\nend\n",
	    "line 4: end: missing program", "missing program");
	bads("borne-plan 1\nprogram /bin/true\narg x\nend\n",
	    "end: missing mode", "missing mode");
	bads("borne-plan 1\nprogram /bin/true\narg x\nprompt 0\nend\n",
	    "end: missing mode", "missing mode, prompt present (fuzz)");
	bads("borne-plan 1\narg x\nprogram /bin/true\nmode strict\nend\n",
	    "line 3: program: out of order", "program after arg");
	bads("borne-plan 1\nprogram /bin/true\nprogram /bin/true\narg x\n"
	    "mode strict\nend\n", "line 3: program: given twice",
	    "duplicate program");
	bad_line("frobnicate 1\n", "line 4: unknown key \"frobnicate\"");
	bad_line("Mode strict\n", "unknown key \"Mode\"");
	bad_line("mode strict\n", "line 5: mode: given twice");
	bad_line("arg a\\1\n", "line 4: arg: bad escape");
	bad_line("arg a\\400\n", "bad escape");
	bad_line("arg a\\000\n", "NUL byte");
	bad_line("arg \\101\n", "escape of a byte written literally");
	bad_line("arg a\\040b\n", "escape of a byte written literally");
	bad_line("arg a\tb\n", "raw byte outside printable ASCII");
	bad_line("arg \xff\n", "raw byte outside printable ASCII");
	bad_line("arg  x\n", "leading or trailing space");
	bad_line("arg x \n", "leading or trailing space");
	bad_line("arg \n", "arg: space without a value");
	bad_line("arg a\r\n", "raw byte outside printable ASCII");
	bad_line("sha256 AB\n", "sha256: want 64 lower-case hex");
	bad_line("sha256 "
	    "ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB\n",
	    "want 64 lower-case hex");
	bad_line("script 1 abababababababababababababababababababababababababababababababab\n",
	    "line 4: script 1: no such argument (argv has 1)");
#define SCRIPT_PLAN(l) "borne-plan 1\nprogram /bin/sh\narg sh\n" \
	"arg /s\n" l "mode strict\nend\n"
	bads(SCRIPT_PLAN("script 0 abababababababababababababababababababababababababababababababab\n"),
	    "line 5: script: 0: not a canonical number in 1..4096",
	    "script index 0");
	bads(SCRIPT_PLAN("script 01 abababababababababababababababababababababababababababababababab\n"),
	    "not a canonical number", "script index 01");
	bads(SCRIPT_PLAN("script 1\n"), "script: want INDEX HEX",
	    "script without a digest");
	bads(SCRIPT_PLAN("script 1  abababababababababababababababababababababababababababababababab\n"),
	    "want 64 lower-case hex", "script: two spaces");
	bads(SCRIPT_PLAN("script 1 ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB\n"),
	    "want 64 lower-case hex", "script: upper-case digest");
	bads(SCRIPT_PLAN("script 1 abababababababababababababababababababababababababababababababab x\n"),
	    "want 64 lower-case hex", "script: a third field");
	bads("borne-plan 1\nprogram /bin/sh\narg sh\narg s\nscript 1 "
	    "abababababababababababababababababababababababababababababababab\nmode strict\nend\n",
	    "line 5: script 1: arg s: not an absolute path",
	    "script argument relative");
	bads("borne-plan 1\nprogram /bin/sh\narg sh\narg /s\nscript 1 "
	    "abababababababababababababababababababababababababababababababab\nsha256 abababababababababababababababababababababababababababababababab\nmode strict\nend\n",
	    "line 6: sha256: out of order", "script before sha256");
	bads(SCRIPT_PLAN("script 1 abababababababababababababababababababababababababababababababab\nscript 1 abababababababababababababababababababababababababababababababab\n"),
	    "line 6: script: given twice", "script twice");
	bad_line("ro usr\n", "line 4: ro usr: not an absolute path");
	bad_line("ro /usr/\n", "trailing /");
	bad_line("ro /usr//lib\n", "(//)");
	bad_line("ro /usr/./lib\n", ". or .. component");
	bad_line("ro /usr/..\n", ". or .. component");
	bad_line("ro\n", "ro: missing value");
	bad_line("ro /usr\nro /usr\n", "line 5: ro /usr: same path given twice");
	bad_line("ro /usr\nrw /usr\n", "line 5: rw /usr: same path also given as ro");
	bad_line("ro /usr\nro /bin\n", "ro: /bin: out of order");
	bad_line("rw /a\nro /b\n", "line 5: ro: out of order");
	bad_line("connect-tcp 443\n", "line 4: connect-tcp 443: without the tcp socket right");
	bad_line("socket unix\nbind-tcp 80\n", "line 5: bind-tcp 80: without the tcp");
	bad_line("socket tcp\nconnect-tcp 0\n", "connect-tcp 0: port outside 1-65535");
	bad_line("socket tcp\nconnect-tcp 65536\n", "65536: not a canonical number");
	bad_line("socket tcp\nconnect-tcp 080\n", "not a canonical number");
	bad_line("socket tcp\nconnect-tcp 443\nconnect-tcp 80\n",
	    "out of order");
	bad_line("socket tcp\nconnect-tcp 80\nconnect-tcp 80\n",
	    "line 6: connect-tcp 80: same port given twice");
	bad_line("socket tcp\nsocket unix\n", "socket: unix: duplicate or after");
	bad_line("socket udp\n", "want unix or tcp");
	bad_line("env 1X=a\n", "env name fails");
	bad_line("env A-B=a\n", "env name fails");
	bad_line("env NOEQUAL\n", "env entry without =");
	bad_line("env =x\n", "empty env name");
	bad_line("env B=1\nenv A=1\n", "out of order");
	bad_line("env A=1\nenv A=2\n", "A: same name given twice");
	bad_line("rlimit nofile 10 5\n", "soft limit above hard");
	bad_line("rlimit nofile 0 0\n", "zero limit");
	bad_line("rlimit bogus 1 1\n", "bogus: unknown resource");
	bad_line("rlimit nofile 1 1 1\n", "too many fields");
	bad_line("rlimit nofile 1\n", "too few fields");
	bad_line("rlimit nofile  1 1\n", "empty field");
	bad_line("rlimit nofile 18446744073709551615 inf\n",
	    "not inf nor a canonical number");
	bad_line("rlimit nofile 10 10\nrlimit core 0 0\n",
	    "line 5: rlimit: core: out of order");
	bad_line("memory-max 0\n", "memory-max: 0: not a canonical number in");
	bad_line("memory-max 1125899906842625\n", "outside 1M..1P bytes");
	bad_line("memory-max 1M\n", "not a canonical number");
	bad("borne-plan 1\nprogram /p\narg x\npids-max 1\0002\nmode strict\n"
	    "end\n", 59, "pids-max: byte outside printable ASCII",
	    "NUL inside a number (fuzz)");
	bad_line("pids-max 0\n", "pids-max: 0");
	bad_line("pids-max 4194305\n", "pids-max 4194305: over 4194304");
	bad_line("cpu-max 0 100000\n", "quota 0: not a canonical number");
	bad_line("cpu-max 1000 2000000\n", "period 2000000 outside 1000..1000000");
	bad_line("cpu-max 1000\n", "too few fields");
	bad_line("timeout-ms 0\n", "timeout-ms: 0");
	bad_line("timeout-ms 2678400001\n", "timeout-ms 2678400001: over 31 days");
	bad_line("uid 0\ngid 5\n", "line 4: uid 0: not a subordinate uid");
	bad_line("uid 5\ngid 0\n", "line 5: gid 0: not a subordinate gid");
	bad_line("uid 4294967295\ngid 5\n", "uid 4294967295: not a subordinate");
	bad_line("uid 5\n", "uid without gid");
	bad_line("gid 5\nuid 5\n", "uid: out of order");
	bad_line("ack-daemon Docker\n", "daemon name fails");
	bad_line("ack-daemon podman\nack-daemon docker\n", "out of order");
	bad_line("keep-fd 2\n", "keep-fd 2: outside 3..");
	bad_line("keep-fd 5\nkeep-fd 4\n", "out of order");
	bad_line("keep-fd 4\nkeep-fd 4\n", "keep-fd 4: same descriptor given twice");
	bad_line("prompt 16777217\n", "prompt 16777217: longer than 16777216");
	/* rwx, follow, tmp, bind-tcp 0: the rules of launchplan(5). */
	bad_line("rw /a\nrox /a/b\n", "line 5: rox /a/b: inside rw /a");
	bad_line("rw /a/b\nrox /a\n", "line 5: rox /a: contains rw /a/b");
	bad_line("rw /\nrox /usr\n", "rox /usr: inside rw /");
	bad_line("rw /a\nrwx /a\n", "rwx /a: same path also given as rw");
	bad_line("rox /a\nrwx /a/b\nrwx /a/c\nrwx /a/b\n",
	    "rwx /a/b: same path given twice");
	bad_line("follow /a\n", "follow /a: no ro, rw, rox or rwx rule");
	bad_line("ro /a\nro /b\nfollow /b\nfollow /a\n",
	    "follow: /a: out of order");
	bad_line("ro /a\nfollow /a\nfollow /a\n",
	    "follow /a: same path given twice");
	bad_line("tmp private\nenv TMPDIR=/x\n",
	    "line 5: env TMPDIR: contradicts tmp");
	bad_line("tmp on\n", "tmp: want private");
	bad_line("socket tcp\nconnect-tcp 0\n", "connect-tcp 0: port outside");
	bads("borne-plan 1\nprogram /bin/true\narg x\nmode fast\nend\n",
	    "mode: want strict or degrade", "bad mode");
	bads("borne-plan 1\nprogram bin/true\narg x\nmode strict\nend\n",
	    "line 2: program bin/true: not an absolute path",
	    "relative program");

	/* rwx, follow, tmp and bind-tcp 0 round-trip, sorted. */
	{
		static char *av[] = { "make", NULL }, *fol[] = { "/w/b",
		    "/lib" };
		static struct plan_fsrule fs2[] = { { PLAN_RWX, "/w/b" },
		    { PLAN_ROX, "/lib" }, { PLAN_RWX, "/w/a" },
		    { PLAN_RO, "/etc" } };
		static uint16_t b0[] = { 8080, 0 };
		struct plan q, e;
		unsigned char *qb = NULL;
		size_t qn = 0;
		int r1, r2;

		memset(&q, 0, sizeof(q));
		q.program = "/usr/bin/make";
		q.argv = av;
		q.argc = 1;
		q.fs = fs2;
		q.nfs = 4;
		q.follow = fol;
		q.nfollow = 2;
		q.tmp = 1;
		q.sock = PLAN_SOCK_TCP;
		q.bind_tcp = b0;
		q.nbind = 2;
		r1 = plan_encode(&q, &qb, &qn);
		is_int(r1, 0, "rwx/follow/tmp/bind 0 plan encodes");
		ok(r1 == 0 && qn > 0 && strstr((char *)qb, "ro /etc\n"
		    "rox /lib\nrwx /w/a\nrwx /w/b\nfollow /lib\nfollow /w/b\n"
		    "tmp private\nsocket tcp\nbind-tcp 0\nbind-tcp 8080\n") !=
		    NULL, "in canonical order");
		r2 = r1 == 0 ? plan_decode(qb, qn, &e, err, sizeof(err)) : -1;
		is_int(r2, 0, "and decodes (%s)", err);
		if (r2 == 0) {
			ok(e.nfs == 4 && e.fs[3].intent == PLAN_RWX &&
			    strcmp(e.fs[3].path, "/w/b") == 0 && e.tmp == 1 &&
			    e.nfollow == 2 && strcmp(e.follow[0], "/lib") == 0 &&
			    e.nbind == 2 && e.bind_tcp[0] == 0,
			    "rwx, follow, tmp, bind-tcp 0 read back");
			plan_free(&e);
		}
		free(qb);
		q.tmp = 0;
		q.nfollow = 1;
		fol[0] = "/nowhere";
		r1 = plan_validate(&q, err, sizeof(err));
		ok(r1 == -1 && strstr(err, "follow /nowhere: no ro, rw, rox or "
		    "rwx rule") != NULL, "plan_validate: follow without a rule "
		    "(%s)", err);
	}

	/* Bounds: one past each count. */
	{
		size_t cap = PLAN_MAX_TEXT + 4096, k = 0;
		char *b = malloc(cap);

		k += (size_t)snprintf(b + k, cap - k,
		    "borne-plan 1\nprogram /p\n");
		for (i = 0; i <= PLAN_MAX_ARGS; i++)
			k += (size_t)snprintf(b + k, cap - k, "arg a\n");
		k += (size_t)snprintf(b + k, cap - k, "mode strict\nend\n");
		bad(b, k, "arg: more than 4096 arguments", "4097 args");
		k = 0;
		k += (size_t)snprintf(b + k, cap - k,
		    "borne-plan 1\nprogram /p\narg x\n");
		for (i = 0; i <= PLAN_MAX_PATHS; i++)
			k += (size_t)snprintf(b + k, cap - k, "ro /p%04zu\n",
			    i);
		k += (size_t)snprintf(b + k, cap - k, "mode strict\nend\n");
		bad(b, k, "ro/rw/rox/rwx: more than 1024 paths", "1025 paths");
		k = 0;
		k += (size_t)snprintf(b + k, cap - k,
		    "borne-plan 1\nprogram /p\narg x\nsocket tcp\n");
		for (i = 0; i <= PLAN_MAX_PORTS; i++)
			k += (size_t)snprintf(b + k, cap - k,
			    "connect-tcp %zu\n", i + 1);
		k += (size_t)snprintf(b + k, cap - k, "mode strict\nend\n");
		bad(b, k, "more than 64 ports", "65 ports");
		k = 0;
		k += (size_t)snprintf(b + k, cap - k,
		    "borne-plan 1\nprogram /p\narg /");
		memset(b + k, 'a', PLAN_MAX_PATH_LEN);
		k += PLAN_MAX_PATH_LEN;
		k += (size_t)snprintf(b + k, cap - k, "\nro /");
		memset(b + k, 'a', PLAN_MAX_PATH_LEN);
		k += PLAN_MAX_PATH_LEN;
		k += (size_t)snprintf(b + k, cap - k, "\nmode strict\nend\n");
		bad(b, k, "ro: longer than 4095 bytes", "4096-byte path");
		/* A text part past the bound with no end line. */
		memcpy(b, "borne-plan 1\narg ", 17);
		memset(b + 17, 'a', cap - 17);
		bad(b, cap, "text part longer than 1048576", "oversized");
		free(b);
	}

	/* plan_validate and plan_encode refuse what the decoder refuses. */
	full_plan(&p);
	p.sock = PLAN_SOCK_UNIX;
	is_int(plan_validate(&p, err, sizeof(err)), -1, "port without tcp");
	ok(strstr(err, "connect-tcp 80: without the tcp socket right") ||
	    strstr(err, "connect-tcp 443: without the tcp socket right"),
	    "message names connect-tcp (%s)", err);
	errno = 0;
	{
		int r = plan_encode(&p, &enc, &n), e = errno;

		ok(r == -1 && e == EINVAL, "encode refuses an invalid plan");
	}
	full_plan(&p);
	p.uid = 0;
	is_int(plan_validate(&p, err, sizeof(err)), -1, "uid 0 refused");
	ok(strstr(err, "uid 0") != NULL, "names uid (%s)", err);
	full_plan(&p);
	p.fs[0].path = "/usr";
	is_int(plan_validate(&p, err, sizeof(err)), -1, "two intents");
	ok(strstr(err, "same path also given as") != NULL, "names it (%s)",
	    err);
	p.fs[0].path = "/tmp/b";
	full_plan(&p);
	p.env[1] = "PATH=again";
	is_int(plan_validate(&p, err, sizeof(err)), -1, "duplicate env");
	ok(strstr(err, "env PATH: same name given twice") != NULL,
	    "names env (%s)", err);
	p.env[1] = "A1=x";

	/* What --preset sys withholds beneath /etc: secrets by name,
	 * whatever their mode, and nothing above or beside /etc. */
	{
		static const char *const sec[] = { "shadow", "gshadow-",
		    "sudoers", "sudoers.d", "ssh/ssh_host_ed25519_key",
		    "ssl/private", "krb5.keytab", "wireguard" };
		static const char *const pub[] = { "passwd", "group",
		    "ssh/ssh_host_ed25519_key.pub", "ssh/ssh_config",
		    "ssl/certs", "shadowx", "hostname", "ssh" };
		size_t k;

		for (k = 0; k < sizeof(sec) / sizeof(sec[0]); k++)
			is_int(plan_preset_secret_name(sec[k]), 1,
			    "preset: %s is a secret by name", sec[k]);
		for (k = 0; k < sizeof(pub) / sizeof(pub[0]); k++)
			is_int(plan_preset_secret_name(pub[k]), 0,
			    "preset: %s is not", pub[k]);
		is_int(plan_preset_withheld("/etc"), 0,
		    "preset: /etc itself is not withheld");
		is_int(plan_preset_withheld("/usr/shadow"), 0,
		    "preset: only beneath a withholding entry");
		is_int(plan_preset_withheld("/etc/sudoers.d/x"), 1,
		    "preset: beneath a secret directory");
		is_int(plan_preset_withheld("/etc/ssh/ssh_host_rsa_key"), 1,
		    "preset: a host key, present or not");
	}
	return done_testing();
}
