/* SPDX-License-Identifier: ISC */
/* cgprobe: report which confinement mechanisms this host can enforce for
 * the caller, as key=value lines or JSON; --require answers yes or no.
 * Read-only: it writes nothing but its report. */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "llabi.h"
#include "probe.h"
#include "usage.h"

#define USAGE "cgprobe [--json] | cgprobe --require MECHANISM[,MECHANISM...]"

/* What the command line asked for. */
struct cmdline {
	int json;
	const char *req;	/* --require's list, or NULL */
};

/* Every option, what it sets and its one help line (--help prints them). */
static const struct usage_opt options[] = {
	USAGE_FLAG("json", 'j', struct cmdline, json, "one JSON object instead of key=value lines"),
	USAGE_STR("require", 'r', "LIST", struct cmdline, req, "exit 0 when every mechanism of LIST can be enforced, else 1"),
	USAGE_STD_ROWS,
};

/* ---- the report: an ordered list of typed keys ---- */

enum kv_type { KV_BOOL, KV_INT, KV_STR };

struct kv {
	char key[64];
	enum kv_type type;
	long long i;
	char s[PATH_MAX + 64];
};

#define KV_MAX 128
static struct kv kvs[KV_MAX];
static size_t nkv;

static struct kv *
kv_new(const char *key, enum kv_type t)
{
	struct kv *k;

	if (nkv >= KV_MAX)
		die(EXIT_FAIL, "internal error: too many report keys");
	k = &kvs[nkv++];
	snprintf(k->key, sizeof(k->key), "%s", key);
	k->type = t;
	return k;
}

static void
kv_bool(const char *key, int v)
{
	kv_new(key, KV_BOOL)->i = v != 0;
}

static void
kv_int(const char *key, long long v)
{
	kv_new(key, KV_INT)->i = v;
}

static void
kv_str(const char *key, const char *v)
{
	snprintf(kv_new(key, KV_STR)->s, sizeof(kvs[0].s), "%s", v);
}

static void
ranges(char *buf, size_t size, int n, const uint64_t *start,
    const uint64_t *count)
{
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%llu:%llu",
		    i ? "," : "", (unsigned long long)start[i],
		    (unsigned long long)count[i]);
}

/* A run of the probe's fields, each printed under its key: an int as a
 * boolean or an integer, a char array as a string. */
struct field {
	const char *key;
	enum kv_type type;
	size_t off;		/* in struct probe */
};

#define F_BOOL(k, m) { k, KV_BOOL, offsetof(struct probe, m) }
#define F_INT(k, m) { k, KV_INT, offsetof(struct probe, m) }
#define F_STR(k, m) { k, KV_STR, offsetof(struct probe, m) }

static const struct field cgroup_fields[] = {
	F_INT("cgroup2.v1_hierarchies", cg2_v1),
	F_STR("cgroup2.self", cg2_self),
	F_STR("cgroup2.dir", cg2_dir),
	F_BOOL("cgroup2.writable", cg2_writable),
	F_STR("cgroup2.controllers.available", cg2_available),
	F_STR("cgroup2.controllers.enabled", cg2_enabled),
	F_BOOL("cgroup2.kill", cg2_kill),
	F_STR("cgroup2.kill_evidence", cg2_kill_how),
	F_BOOL("cgroup2.clone_into_cgroup", cg2_clone_into),
};

static const struct field seccomp_fields[] = {
	F_BOOL("seccomp.filter", seccomp_filter),
	F_INT("seccomp.mode", seccomp_mode),
	F_BOOL("seccomp.action.kill_process", seccomp_kill_process),
	F_BOOL("seccomp.action.kill_thread", seccomp_kill_thread),
	F_BOOL("seccomp.action.trap", seccomp_trap),
	F_BOOL("seccomp.action.errno", seccomp_errno),
	F_BOOL("seccomp.action.user_notif", seccomp_user_notif),
	F_BOOL("seccomp.action.trace", seccomp_trace),
	F_BOOL("seccomp.action.log", seccomp_log),
};

static const struct field call_fields[] = {
	F_BOOL("memfd.seal", memfd_seal),
	F_BOOL("memfd.exec_flag", memfd_exec_flag),
	F_INT("memfd.noexec", memfd_noexec),
	F_BOOL("syscall.execveat", execveat),
	F_BOOL("syscall.close_range", close_range),
	F_BOOL("syscall.pidfd", pidfd),
	F_BOOL("syscall.openat2", openat2),
	F_BOOL("syscall.fchmodat2", fchmodat2),
	F_BOOL("syscall.xattrat", xattrat),
	F_BOOL("syscall.clone3", clone3),
};

static void
kv_fields(const struct probe *p, const struct field *f, size_t n)
{
	size_t i;
	int v;

	for (i = 0; i < n; i++) {
		if (f[i].type == KV_STR) {
			kv_str(f[i].key, (const char *)p + f[i].off);
			continue;
		}
		memcpy(&v, (const char *)p + f[i].off, sizeof(v));
		if (f[i].type == KV_BOOL)
			kv_bool(f[i].key, v);
		else
			kv_int(f[i].key, v);
	}
}

/* The ABI, each feature of the ABI table, and the rights of the ABI. */
static void
report_landlock(const struct probe *p)
{
	const struct ll_abi_rights *l;
	char key[64], buf[64];

	kv_int("landlock.abi", p->landlock_abi);
	for (l = ll_abi_table; l->abi != 0; l++) {
		snprintf(key, sizeof(key), "landlock.%s", l->key);
		kv_bool(key, p->landlock_abi >= l->abi);
	}
	l = ll_rights(p->landlock_abi);
	snprintf(buf, sizeof(buf), "0x%llx", l ? (unsigned long long)l->fs :
	    0ULL);
	kv_str("landlock.fs_rights", buf);
	snprintf(buf, sizeof(buf), "0x%llx", l ? (unsigned long long)l->net :
	    0ULL);
	kv_str("landlock.net_rights", buf);
	snprintf(buf, sizeof(buf), "0x%llx", l ?
	    (unsigned long long)l->scoped : 0ULL);
	kv_str("landlock.scopes", buf);
	snprintf(buf, sizeof(buf), "0x%x", l ? l->restrict_flags : 0U);
	kv_str("landlock.restrict_flags", buf);
}

/* no_new_privs, user namespaces and the caller's subordinate ids. */
static void
report_ids(const struct probe *p)
{
	char buf[PATH_MAX + 64];

	kv_bool("no_new_privs.available", p->no_new_privs);
	kv_bool("no_new_privs.set", p->no_new_privs_set);
	kv_bool("userns.available", p->userns &&
	    !(p->ns_probed && p->userns_errno > 0));
	kv_int("userns.max", p->userns_max);
	kv_int("userns.unprivileged_clone", p->userns_unpriv);
	ranges(buf, sizeof(buf), p->subuid_n, p->subuid_start,
	    p->subuid_count);
	kv_str("subuid.ranges", buf);
	ranges(buf, sizeof(buf), p->subgid_n, p->subgid_start,
	    p->subgid_count);
	kv_str("subgid.ranges", buf);
	kv_bool("subid.truncated", p->subid_truncated);
}

/* The run's namespaces, as confexec would make them (probens.c);
 * namespace.why: why the pid namespace cannot be made, or "". */
static void
report_namespaces(const struct probe *p)
{
	char why[1024];

	kv_bool("namespace.pid", probe_can(p, "pid-namespace", why,
	    sizeof(why)) == 1);
	kv_str("namespace.why", why);
	kv_bool("namespace.mount", probe_can(p, "mount-namespace", NULL,
	    0) == 1);
	kv_bool("namespace.ipc", probe_can(p, "ipc-namespace", NULL, 0) ==
	    1);
	kv_bool("namespace.net", probe_can(p, "net-namespace", NULL, 0) ==
	    1);
}

static void
report_caller(const struct probe *p)
{
	kv_int("caller.uid", p->uid);
	kv_int("caller.euid", p->euid);
	kv_int("caller.gid", p->gid);
	kv_int("caller.egid", p->egid);
	kv_bool("caller.root", p->root);
	kv_str("caller.caps", p->caps);
	kv_bool("caller.cap_sys_admin", p->cap_sys_admin);
}

/* For the caller's effective ids without supplementary groups: what a
 * confexec payload started by this caller would hold.  Only E2BIG can
 * come back (more than 32 sockets): the first 32 shown.  A name seen
 * before gets its rank as a suffix (daemon.NAME.2). */
static void
report_daemons(const struct probe *p)
{
	struct daemon_hit hits[32];
	char key[64], buf[PATH_MAX + 64];
	size_t n = 0, i, j;

	if (probe_daemons(p->euid, p->egid, hits, 32, &n) == -1 &&
	    errno != E2BIG)
		die_sys(EXIT_FAIL, "unable to list daemon sockets");
	kv_int("daemon.count", (long long)n);
	for (i = 0; i < n; i++) {
		int same = 0;

		for (j = 0; j < i; j++)
			same += strcmp(hits[j].name, hits[i].name) == 0;
		if (same)
			snprintf(key, sizeof(key), "daemon.%s.%d",
			    hits[i].name, same + 1);
		else
			snprintf(key, sizeof(key), "daemon.%s", hits[i].name);
		snprintf(buf, sizeof(buf), "%s %s", hits[i].path,
		    hits[i].connectable ? "connectable" : "not-connectable");
		kv_str(key, buf);
	}
}

/* The report's keys, group by group, in the order they are printed. */
static void
report(const struct probe *p)
{
	kv_str("cgroup2.mount", p->cg2_mount);
	kv_str("cgroup2.mode", !p->cg2 ? "none" :
	    p->cg2_pure ? "pure" : "hybrid");
	kv_fields(p, cgroup_fields, sizeof(cgroup_fields) /
	    sizeof(cgroup_fields[0]));
	report_landlock(p);
	kv_fields(p, seccomp_fields, sizeof(seccomp_fields) /
	    sizeof(seccomp_fields[0]));
	kv_str("seccomp.arch", p->arch);
	kv_bool("seccomp.arch_supported", p->arch_x86_64);
	report_ids(p);
	kv_fields(p, call_fields, sizeof(call_fields) /
	    sizeof(call_fields[0]));
	report_namespaces(p);
	report_caller(p);
	report_daemons(p);
}

static void
print_kv(void)
{
	static char buf[ESC_SIZE(PATH_MAX + 64)];
	size_t i;

	for (i = 0; i < nkv; i++) {
		switch (kvs[i].type) {
		case KV_BOOL:
			printf("%s=%s\n", kvs[i].key, kvs[i].i ? "yes" : "no");
			break;
		case KV_INT:
			printf("%s=%lld\n", kvs[i].key, kvs[i].i);
			break;
		case KV_STR:
			esc_name(kvs[i].s, buf, sizeof(buf));
			printf("%s=%s\n", kvs[i].key, buf);
			break;
		default:
			die(EXIT_FAIL, "internal error: key type");
		}
	}
}

static void
print_json(void)
{
	static char buf[ESC_SIZE(PATH_MAX + 64)];
	json_t *o, *v;
	char *s;
	size_t i;

	o = json_object();
	if (o == NULL)
		die(EXIT_FAIL, "unable to build JSON: out of memory");
	for (i = 0; i < nkv; i++) {
		switch (kvs[i].type) {
		case KV_BOOL:
			v = json_boolean(kvs[i].i);
			break;
		case KV_INT:
			v = json_integer(kvs[i].i);
			break;
		case KV_STR:
			v = json_string(kvs[i].s);
			if (v == NULL) {	/* not UTF-8: escape bytes */
				esc_name(kvs[i].s, buf, sizeof(buf));
				v = json_string(buf);
			}
			break;
		default:
			v = NULL;
			break;
		}
		if (v == NULL || json_object_set_new(o, kvs[i].key, v) == -1)
			die(EXIT_FAIL, "unable to build JSON: %s", kvs[i].key);
	}
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (s == NULL)
		die(EXIT_FAIL, "unable to build JSON: out of memory");
	printf("%s\n", s);
	free(s);
	json_decref(o);
}

/* Split list at commas into names[], checking each against
 * probe_mechanisms[].  Exits 2 on an empty or unknown name. */
static size_t
parse_require(char *list, char **names, size_t max)
{
	const char *const *m;
	size_t n = 0;
	char *p = list, *c, e[ESC_SIZE(64)];

	for (;;) {
		c = strchr(p, ',');
		if (c)
			*c = '\0';
		if (*p == '\0')
			die_usage_hint(EXIT_USAGE, "--require: empty "
			    "mechanism name in list");
		for (m = probe_mechanisms; *m; m++)
			if (strcmp(*m, p) == 0)
				break;
		if (*m == NULL) {
			esc_name(p, e, sizeof(e));
			die_usage_hint(EXIT_USAGE, "--require: unknown "
			    "mechanism: %s (see MECHANISMS in cgprobe(1))", e);
		}
		if (n >= max)
			die_usage_hint(EXIT_USAGE, "--require: more than %zu "
			    "mechanisms", max);
		names[n++] = p;
		if (c == NULL)
			break;
		p = c + 1;
	}
	return n;
}

/* Options anywhere (GNU style): the leading '-' makes getopt_long hand
 * over each operand in place (c == 1), whatever POSIXLY_CORRECT says, so
 * "cgprobe x --json" is the usage error it is, not a report; cgprobe
 * takes no operand, before or after "--". */
static void
parse(struct cmdline *cl, int argc, char *argv[])
{
	struct usage_cli u = USAGE_CLI(options, "-", USAGE, EXIT_USAGE, cl);
	char e[ESC_SIZE(64)];
	const char *operand = NULL;

	/* every option of the table is usage_next's: only operands here */
	while (usage_next(&u, argc, argv) != -1)
		if (operand == NULL)
			operand = optarg;
	if (operand == NULL && optind < argc)
		operand = argv[optind];
	if (operand != NULL) {
		esc_name(operand, e, sizeof(e));
		die_usage_hint(EXIT_USAGE, "unexpected operand: %s (cgprobe "
		    "takes none)", e);
	}
}

int
main(int argc, char *argv[])
{
	static struct probe p;
	struct cmdline cl = { .json = 0, .req = NULL };
	char *names[64], why[1024];
	size_t n = 0, i;
	int missing = 0, r;

	prog_set("cgprobe");
	parse(&cl, argc, argv);
	/* validation, before probing anything */
	if (cl.json && cl.req != NULL)
		die_usage_hint(EXIT_USAGE, "--json and --require exclude each "
		    "other");
	if (cl.req != NULL)	/* argv's own words: cut in place */
		n = parse_require((char *)cl.req, names, sizeof(names) /
		    sizeof(names[0]));

	if (probe_host(&p) == -1)
		die_sys(EXIT_FAIL, "unable to probe the host");
	if (cl.req != NULL) {
		for (i = 0; i < n; i++) {
			r = probe_can(&p, names[i], why, sizeof(why));
			if (r == 1)
				continue;
			missing = 1;
			warning("%s: not enforceable: %s", names[i],
			    r == 0 ? why : "unknown mechanism");
		}
		return missing ? EXIT_NO : EXIT_OK;
	}
	report(&p);
	if (cl.json)
		print_json();
	else
		print_kv();
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_FAIL, "unable to write the report");
	return EXIT_OK;
}
