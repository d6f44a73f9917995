/* SPDX-License-Identifier: ISC */
/* cgprobe: report which confinement mechanisms this host can enforce for
 * the caller, as key=value lines or JSON; --require answers yes or no.
 * Read-only: it writes nothing but its report. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "llabi.h"
#include "probe.h"

#define USAGE "cgprobe [--json] | cgprobe --require MECHANISM[,MECHANISM...]"

static const struct option longopts[] = {
	{ "json", no_argument, NULL, 'j' },		/* one JSON object */
	{ "require", required_argument, NULL, 'r' },	/* exit 0 or 1 */
	{ "help", no_argument, NULL, 'h' },		/* usage, exit 0 */
	{ NULL, 0, NULL, 0 },
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

static void
report(const struct probe *p)
{
	const struct ll_abi_rights *l;
	struct daemon_hit hits[32];
	char key[64], buf[PATH_MAX + 64];
	size_t n = 0, i, j;

	kv_str("cgroup2.mount", p->cg2_mount);
	kv_str("cgroup2.mode", !p->cg2 ? "none" :
	    p->cg2_pure ? "pure" : "hybrid");
	kv_int("cgroup2.v1_hierarchies", p->cg2_v1);
	kv_str("cgroup2.self", p->cg2_self);
	kv_str("cgroup2.dir", p->cg2_dir);
	kv_bool("cgroup2.writable", p->cg2_writable);
	kv_str("cgroup2.controllers.available", p->cg2_available);
	kv_str("cgroup2.controllers.enabled", p->cg2_enabled);
	kv_bool("cgroup2.kill", p->cg2_kill);
	kv_str("cgroup2.kill_evidence", p->cg2_kill_how);
	kv_bool("cgroup2.clone_into_cgroup", p->cg2_clone_into);

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

	kv_bool("seccomp.filter", p->seccomp_filter);
	kv_int("seccomp.mode", p->seccomp_mode);
	kv_bool("seccomp.action.kill_process", p->seccomp_kill_process);
	kv_bool("seccomp.action.kill_thread", p->seccomp_kill_thread);
	kv_bool("seccomp.action.trap", p->seccomp_trap);
	kv_bool("seccomp.action.errno", p->seccomp_errno);
	kv_bool("seccomp.action.user_notif", p->seccomp_user_notif);
	kv_bool("seccomp.action.trace", p->seccomp_trace);
	kv_bool("seccomp.action.log", p->seccomp_log);
	kv_str("seccomp.arch", p->arch);
	kv_bool("seccomp.arch_supported", p->arch_x86_64);

	kv_bool("no_new_privs.available", p->no_new_privs);
	kv_bool("no_new_privs.set", p->no_new_privs_set);
	kv_bool("userns.available", p->userns);
	kv_int("userns.max", p->userns_max);
	kv_int("userns.unprivileged_clone", p->userns_unpriv);
	ranges(buf, sizeof(buf), p->subuid_n, p->subuid_start,
	    p->subuid_count);
	kv_str("subuid.ranges", buf);
	ranges(buf, sizeof(buf), p->subgid_n, p->subgid_start,
	    p->subgid_count);
	kv_str("subgid.ranges", buf);
	kv_bool("subid.truncated", p->subid_truncated);

	kv_bool("memfd.seal", p->memfd_seal);
	kv_bool("memfd.exec_flag", p->memfd_exec_flag);
	kv_int("memfd.noexec", p->memfd_noexec);
	kv_bool("syscall.execveat", p->execveat);
	kv_bool("syscall.close_range", p->close_range);
	kv_bool("syscall.pidfd", p->pidfd);
	kv_bool("syscall.openat2", p->openat2);
	kv_bool("syscall.fchmodat2", p->fchmodat2);
	kv_bool("syscall.xattrat", p->xattrat);

	kv_int("caller.uid", p->uid);
	kv_int("caller.euid", p->euid);
	kv_int("caller.gid", p->gid);
	kv_int("caller.egid", p->egid);
	kv_bool("caller.root", p->root);
	kv_str("caller.caps", p->caps);

	/* For the caller's effective ids without supplementary groups:
	 * what a confexec payload started by this caller would hold.  Only
	 * E2BIG can come back (more than 32 sockets): the first 32 shown. */
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
	char *p = list, *c;

	for (;;) {
		c = strchr(p, ',');
		if (c)
			*c = '\0';
		if (*p == '\0')
			die(EXIT_USAGE, "--require: empty mechanism name in "
			    "list");
		for (m = probe_mechanisms; *m; m++)
			if (strcmp(*m, p) == 0)
				break;
		if (*m == NULL)
			die(EXIT_USAGE, "--require: unknown mechanism: %s "
			    "(see cgprobe(1))", p);
		if (n >= max)
			die(EXIT_USAGE, "--require: too many mechanisms");
		names[n++] = p;
		if (c == NULL)
			break;
		p = c + 1;
	}
	return n;
}

int
main(int argc, char *argv[])
{
	static struct probe p;
	char *names[64], why[512], *req = NULL;
	size_t n = 0, i;
	int c, json = 0, missing = 0, r;

	prog_set("cgprobe");
	while ((c = getopt_long(argc, argv, "+hjr:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'r':
			if (req != NULL)
				die(EXIT_USAGE, "--require given twice");
			req = optarg;
			break;
		case 'h':
			puts("usage: " USAGE);
			return EXIT_OK;
		default:
			die_usage(USAGE);
		}
	}
	/* validation, before probing anything */
	if (optind != argc)
		die_usage(USAGE);
	if (json && req != NULL)
		die(EXIT_USAGE, "--json and --require exclude each other");
	if (req != NULL)
		n = parse_require(req, names, sizeof(names) / sizeof(names[0]));

	if (probe_host(&p) == -1)
		die_sys(EXIT_FAIL, "unable to probe the host");
	if (req != NULL) {
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
	if (json)
		print_json();
	else
		print_kv();
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_FAIL, "unable to write the report");
	return EXIT_OK;
}
