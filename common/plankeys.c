/* SPDX-License-Identifier: ISC */
/* plankeys: the keys of launchplan(5), in canonical order, one row each
 * (planint.h says what a row holds).  A new key is its row here and the
 * functions the row names: its decoder (plandec.c), its lines (plan.c),
 * its rules (planrules.c) and its JSON member (planjson.c), or for a
 * number or a port list its value's shared ones (the row says where its
 * field is) and its rule; a list's array is sorted and released by its
 * kind of entry (plan.c). */
#include <stddef.h>
#include <stdint.h>

#include "planint.h"

static size_t one(const struct plan *p) { return 1; }
static size_t n_arg(const struct plan *p) { return p->argv ? p->argc : 0; }
static size_t n_fs(const struct plan *p) { return p->nfs; }
static size_t n_fs_once(const struct plan *p) { return 0; }
static size_t n_follow(const struct plan *p) { return p->nfollow; }
static size_t n_connect(const struct plan *p) { return p->nconnect; }
static size_t n_bind(const struct plan *p) { return p->nbind; }
static size_t n_egress(const struct plan *p) { return p->negress; }
static size_t n_env(const struct plan *p) { return p->nenv; }
static size_t n_rlim(const struct plan *p) { return p->nrlim; }
static size_t n_ack(const struct plan *p) { return p->nack; }
static size_t n_keep(const struct plan *p) { return p->nkeep; }

/* A key's functions by their suffix x (planint.h); its value's v and
 * its own rule r. */
#define FNS(x) FNS2(x, x)
#define FNS2(v, r) .dec = plan_dec_##v, .enc = plan_enc_##v, \
	.rule = plan_rule_##r, .tojson = plan_json_##v
/* A key given at most once. */
#define SINGLE(n, j, x) { .name = n, .json = j, .at = PLAN_AT_NONE, \
	.count = one, FNS(x) }
/* A list key: its bound (max, group, what), where faults are reported
 * (at), its length (c), its array: entries of kind e in struct plan's
 * fields f and n (a list shared by several keys: under the first). */
#define LIST(n, j, x, m, g, w, a, c, e, f, nf) LIST2(n, j, x, x, m, g, w, \
	a, c, e, f, nf)
#define LIST2(n, j, v, r, m, g, w, a, c, e, f, nf) { .name = n, .json = j, \
	.list = 1, .max = m, .group = g, .what = w, .at = a, .count = c, \
	.elem = e, .arr = offsetof(struct plan, f), \
	.len = offsetof(struct plan, nf), FNS2(v, r) }
/* The offset of field f of struct plan, which must be of type T (the
 * shared functions read it as one): else char[-1], no build. */
#define TYPED(f, T) (offsetof(struct plan, f) + \
	0 * sizeof(char[_Generic(((struct plan *)0)->f, T: 1, default: -1)]))
/* A single number: a uint64_t at field f, 0 (none) or lo..hi, else
 * refused as "<n> V: <range>"; a uint32_t id at f with its presence
 * flag h. */
#define U64(n, j, f, l, h, range_) { .name = n, .json = j, \
	.at = PLAN_AT_NONE, .count = one, .val = TYPED(f, uint64_t), \
	.lo = l, .hi = h, .range = range_, FNS(u64) }
#define ID(n, f, h) { .name = n, .json = n, .at = PLAN_AT_NONE, \
	.count = one, .val = TYPED(f, uint32_t), .has = TYPED(h, int), \
	FNS(id) }
#define LIST_SHARED(n, j, x, m, g, w, a, c) { .name = n, .json = j, \
	.list = 1, .max = m, .group = g, .what = w, .at = a, .count = c, \
	FNS(x) }
#define FS "ro/rw/rox/rwx"
#define STR(x) STR_(x)
#define STR_(x) #x

const struct plan_keydef plan_keys[K_NKEYS] = {
	[K_PROGRAM] = SINGLE("program", "program", program),
	/* "arg" alone: an empty argument. */
	[K_ARG] = { .name = "arg", .json = "argv", .list = 1, .empty = 1,
	    .max = PLAN_MAX_ARGS, .group = "arg", .what = "arguments",
	    .at = PLAN_AT_ARG, .count = n_arg, .elem = PLAN_ELEM_ARGV,
	    .arr = offsetof(struct plan, argv),
	    .len = offsetof(struct plan, argc), FNS(arg) },
	[K_SHA256] = SINGLE("sha256", "sha256", sha256),
	[K_SCRIPT] = SINGLE("script", "script", script),
	[K_RO] = LIST("ro", "ro", fs, PLAN_MAX_PATHS, FS, "paths",
	    PLAN_AT_FS, n_fs, PLAN_ELEM_FS, fs, nfs),
	[K_RW] = LIST_SHARED("rw", "rw", fs, PLAN_MAX_PATHS, FS, "paths",
	    PLAN_AT_FS, n_fs_once),
	[K_ROX] = LIST_SHARED("rox", "rox", fs, PLAN_MAX_PATHS, FS, "paths",
	    PLAN_AT_FS, n_fs_once),
	[K_RWX] = LIST_SHARED("rwx", "rwx", fs, PLAN_MAX_PATHS, FS, "paths",
	    PLAN_AT_FS, n_fs_once),
	[K_FOLLOW] = LIST("follow", "follow_symlinks", follow,
	    PLAN_MAX_PATHS, "follow", "paths", PLAN_AT_FOLLOW, n_follow,
	    PLAN_ELEM_STR, follow, nfollow),
	[K_PRESET] = SINGLE("preset", "preset", preset),
	[K_TMP] = SINGLE("tmp", "tmp", tmp),
	/* "socket unix", "socket tcp": two lines, one field (a bit set). */
	[K_SOCKET] = { .name = "socket", .json = "socket", .list = 1,
	    .at = PLAN_AT_NONE, .count = one, FNS(socket) },
	[K_CONNECT] = LIST2("connect-tcp", "connect_tcp", ports, connect,
	    PLAN_MAX_PORTS, "connect-tcp", "ports", PLAN_AT_CONNECT,
	    n_connect, PLAN_ELEM_U16, connect_tcp, nconnect),
	[K_BIND] = LIST2("bind-tcp", "bind_tcp", ports, bind, PLAN_MAX_PORTS,
	    "bind-tcp", "ports", PLAN_AT_BIND, n_bind, PLAN_ELEM_U16,
	    bind_tcp, nbind),
	[K_EGRESS] = LIST("egress", "egress", egress,
	    PLAN_MAX_EGRESS, "egress", "destinations", PLAN_AT_EGRESS,
	    n_egress, PLAN_ELEM_EGRESS, egress, negress),
	[K_ENV] = LIST("env", "env", env, PLAN_MAX_ENV, "env", "entries",
	    PLAN_AT_ENV, n_env, PLAN_ELEM_ENV, env, nenv),
	[K_RLIMIT] = LIST("rlimit", "rlimit", rlimit,
	    PLAN_MAX_RLIMITS, "rlimit", "entries", PLAN_AT_RLIMIT, n_rlim,
	    PLAN_ELEM_RLIM, rlim, nrlim),
	[K_MEMORY] = U64("memory-max", "memory_max", mem_max, PLAN_MIN_MEMORY,
	    PLAN_MAX_MEMORY, "outside 1M..1P bytes"),
	[K_PIDS] = U64("pids-max", "pids_max", pids_max, 1, PLAN_MAX_PIDS,
	    "over " STR(PLAN_MAX_PIDS)),
	[K_CPU] = SINGLE("cpu-max", "cpu_max", cpu),
	[K_TIMEOUT] = U64("timeout-ms", "timeout_ms", timeout_ms, 1,
	    PLAN_MAX_TIMEOUT_MS, "over 31 days"),
	[K_UID] = ID("uid", uid, has_uid),
	[K_GID] = ID("gid", gid, has_gid),
	[K_ACK] = LIST("ack-daemon", "ack_daemon", ack, PLAN_MAX_ACK,
	    "ack-daemon", "names", PLAN_AT_ACK, n_ack, PLAN_ELEM_STR,
	    ack_daemons, nack),
	[K_KEEP] = LIST("keep-fd", "keep_fd", keep, PLAN_MAX_KEEP,
	    "keep-fd", "descriptors", PLAN_AT_KEEP, n_keep, PLAN_ELEM_INT,
	    keep_fds, nkeep),
	[K_MODE] = SINGLE("mode", "mode", mode),
	[K_PROMPT] = SINGLE("prompt", "prompt", prompt),
};
