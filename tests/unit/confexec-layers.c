/* SPDX-License-Identifier: ISC */
/* Unit tests of confexec's layer modules: the Landlock ABI table and
 * intents, the built-in seccomp programs against a fresh libseccomp
 * compile, the truncate stand-in of Landlock ABI < 3 (run for real at
 * ABI 2 rights in a child), and the sealed image. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hash.h"
#include "image.h"
#include "landlock.h"
#include "sysfilter.h"
#include "bpfrun.h"
#include "tap.h"
#include "uapi.h"
#include "plan.h"
#include <stdint.h>

static void
test_landlock(void)
{
	const struct ll_abi_rights *r;
	uint64_t ro = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	int abi;

	ok(ll_rights(0) == NULL, "no rights at ABI 0");
	r = ll_rights(1);
	is_int(r->fs, (1ULL << 13) - 1, "ABI 1: fs rights 0..12");
	is_int(r->net, 0, "ABI 1: no net");
	is_int(ll_rights(2)->fs, (1ULL << 14) - 1, "ABI 2: + REFER");
	is_int(ll_rights(3)->fs, (1ULL << 15) - 1, "ABI 3: + TRUNCATE");
	is_int(ll_rights(4)->net, 3, "ABI 4: TCP bind + connect");
	is_int(ll_rights(5)->fs, (1ULL << 16) - 1, "ABI 5: + IOCTL_DEV");
	is_int(ll_rights(6)->scoped, 3, "ABI 6: scopes");
	ok(ll_rights(7)->restrict_flags != 0, "ABI 7: log flags");
	ok(ll_rights(99) == ll_rights(7), "a newer ABI gets the newest row");

	is_int(ll_intent_rights(PLAN_RO, 1, 7), ro, "ro on a dir");
	is_int(ll_intent_rights(PLAN_RO, 0, 7), LANDLOCK_ACCESS_FS_READ_FILE,
	    "ro on a file: no dir-only right");
	is_int(ll_intent_rights(PLAN_ROX, 1, 7),
	    ro | LANDLOCK_ACCESS_FS_EXECUTE, "rox = ro + execute");
	ok(!(ll_intent_rights(PLAN_RW, 1, 7) & LANDLOCK_ACCESS_FS_EXECUTE),
	    "rw never grants execute");
	ok(!(ll_intent_rights(PLAN_RW, 1, 7) &
	       (LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK)),
	    "rw never grants device nodes");
	ok(ll_intent_rights(PLAN_RW, 1, 7) & LANDLOCK_ACCESS_FS_TRUNCATE,
	    "rw grants truncate at ABI 3+");
	ok(!(ll_intent_rights(PLAN_RW, 1, 2) & LANDLOCK_ACCESS_FS_TRUNCATE),
	    "but not at ABI 2");
	is_int(ll_intent_rights(PLAN_RW, 0, 7) & ~(uint64_t)(
	    LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
	    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV), 0,
	    "rw on a file: file rights only");

	abi = ll_abi();
	ok(abi >= 1, "Landlock is live here (ABI %d)", abi);
}

static void
test_seccomp(void)
{
	struct sock_fprog a, b;
	char err[256];
	unsigned v;

	for (v = 0; v < SF_NVARIANTS; v++) {
		err[0] = '\0';
		is_int(sf_compile(v, &a, err, sizeof(err)), 0,
		    "variant %u compiles%s%s", v, err[0] ? ": " : "", err);
		is_int(sf_build(v, &b, err, sizeof(err)), 0,
		    "variant %u is built in", v);
		ok(a.len == b.len && a.len > 0 &&
		    memcmp(a.filter, b.filter, a.len * sizeof(*a.filter)) == 0,
		    "variant %u: built-in program equals a fresh compile", v);
		sf_free(&a);
		sf_free(&b);
	}
	is_int(sf_build(SF_NVARIANTS, &b, err, sizeof(err)), -1,
	    "unknown variant refused");
	is_int(sf_compile(SF_NVARIANTS, &b, err, sizeof(err)), -1,
	    "unknown variant not compiled");

	/* Program selection: the truncate stand-in below Landlock ABI 3. */
	is_int(sf_variant(0, 2, 0, 0), SF_DENY_TRUNCATE, "ABI 2, no socket: "
	    "truncate stand-in");
	is_int(sf_variant(PLAN_SOCK_TCP, 2, 0, 0),
	    PLAN_SOCK_TCP | SF_DENY_TRUNCATE,
	    "ABI 2, tcp: tcp + truncate stand-in");
	is_int(sf_variant(PLAN_SOCK_UNIX | PLAN_SOCK_TCP, 1, 0, 0),
	    PLAN_SOCK_UNIX | PLAN_SOCK_TCP | SF_DENY_TRUNCATE,
	    "ABI 1, unix + tcp: both + truncate stand-in");
	is_int(sf_variant(PLAN_SOCK_TCP, 3, 0, 0), PLAN_SOCK_TCP,
	    "ABI 3: Landlock handles truncate, no stand-in");
	is_int(sf_variant(PLAN_SOCK_UNIX, 7, 0, 0), PLAN_SOCK_UNIX,
	    "ABI 7: none");
	is_int(sf_variant(0, 0, 0, 0), SF_DENY_TRUNCATE,
	    "no Landlock at all: stand-in (confexec refuses anyway)");
	/* The run's namespaces. */
	is_int(sf_variant(PLAN_SOCK_TCP, 7, 1, 1),
	    PLAN_SOCK_TCP | SF_OWN_IPC | SF_HOST_NET,
	    "its own IPC, the host's network: both bits");
	is_int(sf_variant(0, 7, 1, 0), SF_OWN_IPC, "its own IPC and network");
}

#define AUDIT_X86_64 0xc000003eu
#define AUDIT_I386 0x40000003u
#define RET_KILL_PROCESS 0x80000000u
#define RET_ERRNO(e) (0x00050000u | (e))
#define RET_ALLOW 0x7fff0000u

static long long
ask(unsigned v, uint32_t arch, int32_t nr, uint64_t a0, uint64_t a1,
    uint64_t a2)
{
	struct sock_fprog p;
	struct sdata d;
	char err[256];
	long long r;

	sdata_set(&d, arch, nr, a0, a1, a2, 0);
	if (sf_build(v, &p, err, sizeof(err)) == -1)
		return -2;
	r = bpf_run(&p, &d);
	sf_free(&p);
	return r;
}

static void
test_seccomp_answers(void)
{
	const unsigned tcp = PLAN_SOCK_TCP, unx = PLAN_SOCK_UNIX;

	is_int(ask(0, AUDIT_I386, 20, 0, 0, 0), RET_KILL_PROCESS,
	    "i386 getpid: kill process");
	is_int(ask(3, AUDIT_I386, 102, 0, 0, 0), RET_KILL_PROCESS,
	    "i386 socketcall, everything granted: kill process");
	is_int(ask(0, 0xc00000b7u, 172, 0, 0, 0), RET_KILL_PROCESS,
	    "aarch64: kill process");
	is_int(ask(0, AUDIT_X86_64, 0x40000000 | 39, 0, 0, 0),
	    RET_KILL_PROCESS, "x32 getpid: kill process");
	is_int(ask(3, AUDIT_X86_64, 0x40000000 | 41, 2, 1, 0),
	    RET_KILL_PROCESS, "x32 socket with tcp granted: kill process");
	is_int(ask(0, AUDIT_X86_64, 39, 0, 0, 0), RET_ALLOW, "getpid: allow");
	is_int(ask(0, AUDIT_X86_64, 101, 0, 0, 0), RET_ERRNO(EPERM),
	    "ptrace: EPERM");
	is_int(ask(0, AUDIT_X86_64, 435, 0, 0, 0), RET_ERRNO(ENOSYS),
	    "clone3: ENOSYS");
	is_int(ask(0, AUDIT_X86_64, 56, 0x10000000 | 17, 0, 0),
	    RET_ERRNO(EPERM), "clone(CLONE_NEWUSER): EPERM");
	is_int(ask(0, AUDIT_X86_64, 56, 0x3d0f00, 0, 0), RET_ALLOW,
	    "clone as pthread_create calls it: allow");
	is_int(ask(0, AUDIT_X86_64, 600, 0, 0, 0), RET_ERRNO(EPERM),
	    "a syscall beyond the table: EPERM");
	is_int(ask(0, AUDIT_X86_64, 41, 1, 1, 0), RET_ERRNO(EPERM),
	    "no grant: AF_UNIX socket EPERM");
	is_int(ask(unx, AUDIT_X86_64, 41, 1, 1 | 0x80000, 0), RET_ALLOW,
	    "unix: AF_UNIX SOCK_STREAM|SOCK_CLOEXEC allow");
	is_int(ask(unx, AUDIT_X86_64, 53, 1, 5, 0), RET_ALLOW,
	    "unix: socketpair seqpacket allow");
	is_int(ask(unx, AUDIT_X86_64, 41, 1, 3, 0), RET_ERRNO(EPERM),
	    "unix: AF_UNIX SOCK_RAW EPERM");
	is_int(ask(unx, AUDIT_X86_64, 41, 2, 1, 0), RET_ERRNO(EPERM),
	    "unix: TCP EPERM");
	is_int(ask(tcp, AUDIT_X86_64, 41, 10, 1 | 0x800, 6), RET_ALLOW,
	    "tcp: AF_INET6 stream nonblock IPPROTO_TCP allow");
	is_int(ask(tcp, AUDIT_X86_64, 41, 2, 1, 262), RET_ERRNO(EPERM),
	    "tcp: MPTCP EPERM");
	is_int(ask(tcp, AUDIT_X86_64, 41, 2, 2, 0), RET_ERRNO(EPERM),
	    "tcp: UDP EPERM");
	is_int(ask(tcp, AUDIT_X86_64, 53, 2, 1, 0), RET_ERRNO(EPERM),
	    "tcp: socketpair(AF_INET) EPERM");
	is_int(ask(tcp, AUDIT_X86_64, 41, 0x100000002ULL, 1, 0), RET_ALLOW,
	    "tcp: high bits of the domain ignored, as the kernel does");
	is_int(ask(tcp, AUDIT_X86_64, 41, 0x100000011ULL, 3, 0),
	    RET_ERRNO(EPERM), "tcp: AF_PACKET behind high bits EPERM");
	is_int(ask(tcp, AUDIT_X86_64, 41, 2, 0x500000001ULL, 0), RET_ALLOW,
	    "tcp: high bits of the type ignored");
}

/* The truncate stand-in, answer by answer, in every socket variant. */
static void
test_seccomp_truncate(void)
{
	const unsigned T = SF_DENY_TRUNCATE;
	const uint64_t TR = O_TRUNC;
	unsigned s;

	for (s = 0; s < 4; s++) {
		is_int(ask(s, AUDIT_X86_64, __NR_truncate, 0, 0, 0), RET_ALLOW,
		    "sock %u, ABI 3+: truncate allowed (Landlock decides)", s);
		is_int(ask(s, AUDIT_X86_64, __NR_openat, 0, 0, TR), RET_ALLOW,
		    "sock %u, ABI 3+: openat O_RDONLY|O_TRUNC allowed", s);
		is_int(ask(s, AUDIT_X86_64, __NR_openat2, 0, 0, 0),
		    RET_ERRNO(ENOSYS), "sock %u, ABI 3+: openat2 ENOSYS (its "
		    "access mode 3 is out of BPF's reach)", s);
		is_int(ask(s | T, AUDIT_X86_64, __NR_truncate, 0, 0, 0),
		    RET_ERRNO(EACCES), "sock %u, ABI < 3: truncate EACCES", s);
		is_int(ask(s | T, AUDIT_X86_64, __NR_openat2, 0, 0, 0),
		    RET_ERRNO(ENOSYS), "sock %u, ABI < 3: openat2 ENOSYS", s);
		is_int(ask(s | T, AUDIT_X86_64, __NR_ftruncate, 3, 0, 0),
		    RET_ALLOW, "sock %u, ABI < 3: ftruncate allowed", s);
		is_int(ask(s | T, AUDIT_X86_64, __NR_creat, 0, 0644, 0),
		    RET_ALLOW, "sock %u, ABI < 3: creat allowed (write_file)",
		    s);
	}
	/* openat: flags are argument 2; open: argument 1. */
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0, O_RDONLY), RET_ALLOW,
	    "openat O_RDONLY allowed");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0,
	    O_WRONLY | O_CREAT | O_CLOEXEC), RET_ALLOW,
	    "openat O_WRONLY|O_CREAT allowed");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0,
	    O_WRONLY | O_CREAT | O_TRUNC), RET_ALLOW,
	    "openat O_WRONLY|O_CREAT|O_TRUNC allowed (write_file bounds it)");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0, O_RDWR | O_TRUNC),
	    RET_ALLOW, "openat O_RDWR|O_TRUNC allowed");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0, O_RDONLY | O_TRUNC),
	    RET_ERRNO(EACCES), "openat O_RDONLY|O_TRUNC EACCES");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0,
	    O_RDONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW), RET_ERRNO(EACCES),
	    "openat O_RDONLY|O_TRUNC with other flags EACCES");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0, 3 | O_TRUNC),
	    RET_ERRNO(EACCES), "openat access mode 3 with O_TRUNC EACCES");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0, O_PATH | 3 | O_TRUNC),
	    RET_ERRNO(EACCES), "openat O_PATH|3|O_TRUNC EACCES (the mask is "
	    "the kernel's 3, not a libc O_ACCMODE holding O_PATH)");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0,
	    O_PATH | O_WRONLY | O_TRUNC), RET_ALLOW,
	    "openat O_PATH|O_WRONLY|O_TRUNC allowed");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0, 3), RET_ERRNO(EACCES),
	    "openat access mode 3 without O_TRUNC EACCES (ioctls, leases)");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0,
	    0xffffffff00000000ULL | O_RDONLY | O_TRUNC), RET_ERRNO(EACCES),
	    "openat: high bits of the flags ignored, as the kernel does");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, 0,
	    0xffffffff00000000ULL | O_WRONLY), RET_ALLOW,
	    "openat: high bits do not turn an allow into a deny");
	is_int(ask(T, AUDIT_X86_64, __NR_open, 0, O_RDONLY | O_TRUNC, 0),
	    RET_ERRNO(EACCES), "open O_RDONLY|O_TRUNC EACCES");
	is_int(ask(T, AUDIT_X86_64, __NR_open, 0, 3 | O_TRUNC, 0),
	    RET_ERRNO(EACCES), "open access mode 3 with O_TRUNC EACCES");
	is_int(ask(T, AUDIT_X86_64, __NR_open, 0, O_WRONLY | O_TRUNC, 0),
	    RET_ALLOW, "open O_WRONLY|O_TRUNC allowed");
	is_int(ask(T, AUDIT_X86_64, __NR_open, 0, O_RDONLY, O_TRUNC),
	    RET_ALLOW, "open: the flags are argument 1, not 2");
	is_int(ask(T, AUDIT_X86_64, __NR_openat, 0, O_TRUNC, O_RDONLY),
	    RET_ALLOW, "openat: the flags are argument 2, not 1");
	is_int(ask(T | PLAN_SOCK_TCP, AUDIT_X86_64, 41, 2, 1, 0), RET_ALLOW,
	    "tcp + stand-in: the socket grant still holds");
	is_int(ask(T, AUDIT_X86_64, 101, 0, 0, 0), RET_ERRNO(EPERM),
	    "stand-in: ptrace still EPERM");
	is_int(ask(T, AUDIT_I386, 20, 0, 0, 0), RET_KILL_PROCESS,
	    "stand-in: i386 still killed");
}

/* ---- the stand-in for real: Landlock at ABI 2 rights, in a child ---- */

enum { R_TRUNC_RO, R_OTRUNC_RO, R_ACC3_NONE, R_WRITE_RO, R_FTRUNC_RW,
	R_TRUNC_RW, R_WTRUNC_RW, R_OPENAT2, R_READ_NONE, R_N };

static void
put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd == -1 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		printf("# writing %s: %s\n", path, strerror(errno));
	if (fd != -1)
		close(fd);
}

static long long
fsize(const char *path)
{
	struct stat st;

	return stat(path, &st) == -1 ? -1 : (long long)st.st_size;
}

/* 0 or the errno of one attempt (raw syscalls: the flags as given). */
static int
try(long rc)
{
	int e = errno;

	if (rc >= 0 && rc < 1024)
		close((int)rc);
	return rc < 0 ? e : 0;
}

/* In a child: the plan's ruleset built for ABI 2 (no truncate right,
 * the rights a 6.1 kernel has), the stand-in program if filter, then the
 * attempts; their errnos come back over a pipe.  -1 on setup failure. */
static int
abi2_child(const struct plan *p, int filter, const char *d, int *res)
{
	struct sock_fprog prog = {0, NULL};
	char err[512], f[4][512];
	uint64_t how[3] = {O_RDONLY, 0, 0};
	int pfd[2], rfd, st;
	ssize_t n;
	pid_t pid;

	snprintf(f[0], sizeof(f[0]), "%s/ro/f", d);
	snprintf(f[1], sizeof(f[1]), "%s/ro/f2", d);
	snprintf(f[2], sizeof(f[2]), "%s/none/g", d);
	snprintf(f[3], sizeof(f[3]), "%s/rw/h", d);
	if (ll_build(p, 2, &rfd, err, sizeof(err)) == -1) {
		printf("# ll_build: %s\n", err);
		return -1;
	}
	if (filter && sf_build(sf_variant(0, 2, 0, 0), &prog, err,
		sizeof(err)) == -1) {
		printf("# sf_build: %s\n", err);
		return -1;
	}
	if (pipe2(pfd, O_CLOEXEC) == -1)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int r[R_N];

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    ll_enforce(rfd, 2) == -1 ||
		    (filter && sf_load(&prog) == -1))
			_exit(3);
		r[R_TRUNC_RO] = try(syscall(SYS_truncate, f[0], 0));
		r[R_OTRUNC_RO] = try(syscall(SYS_openat, AT_FDCWD, f[1],
		    O_RDONLY | O_TRUNC));
		r[R_ACC3_NONE] = try(syscall(SYS_openat, AT_FDCWD, f[2],
		    3 | O_TRUNC));
		r[R_WRITE_RO] = try(syscall(SYS_openat, AT_FDCWD, f[0],
		    O_WRONLY));
		{
			int fd = open(f[3], O_WRONLY | O_CLOEXEC);

			r[R_FTRUNC_RW] = fd == -1 ? errno :
			    try(ftruncate(fd, 0));
			if (fd != -1)
				close(fd);
		}
		r[R_TRUNC_RW] = try(syscall(SYS_truncate, f[3], 0));
		r[R_WTRUNC_RW] = try(syscall(SYS_openat, AT_FDCWD, f[3],
		    O_WRONLY | O_TRUNC));
		r[R_OPENAT2] = try(syscall(__NR_openat2, AT_FDCWD, f[0], how,
		    sizeof(how)));
		r[R_READ_NONE] = try(syscall(SYS_openat, AT_FDCWD, f[2],
		    O_RDONLY));
		/* _exit: no sanitizer exit hooks under the filter. */
		_exit(write(pfd[1], r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 :
		    4);
	}
	close(pfd[1]);
	close(rfd);
	sf_free(&prog);
	if (pid == -1) {
		close(pfd[0]);
		return -1;
	}
	n = read(pfd[0], res, R_N * sizeof(int));
	close(pfd[0]);
	if (waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0 || n != (ssize_t)(R_N * sizeof(int))) {
		printf("# child status 0x%x, read %zd\n", st, n);
		return -1;
	}
	return 0;
}

static void
test_abi2_truncate(void)
{
	char d[] = "/tmp/borne-unit-trunc.XXXXXX", path[4][512];
	struct plan_fsrule fs[2];
	struct plan p;
	int res[R_N], i, rc;

	if (mkdtemp(d) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path[0], sizeof(path[0]), "%s/ro", d);
	snprintf(path[1], sizeof(path[1]), "%s/rw", d);
	snprintf(path[2], sizeof(path[2]), "%s/none", d);
	for (i = 0; i < 3; i++)
		mkdir(path[i], 0755);
	memset(&p, 0, sizeof(p));
	memset(fs, 0, sizeof(fs));
	fs[0].intent = PLAN_RO;
	fs[0].path = path[0];
	fs[1].intent = PLAN_RW;
	fs[1].path = path[1];
	p.fs = fs;
	p.nfs = 2;
#define F(name) (snprintf(path[3], sizeof(path[3]), "%s/%s", d, name), \
	path[3])
#define FILL() do {							\
	put(F("ro/f"), "data\n");					\
	put(F("ro/f2"), "data\n");					\
	put(F("none/g"), "secret\n");					\
	put(F("rw/h"), "mine\n");					\
} while (0)

	/* Control: Landlock alone at ABI 2 lets three truncations through
	 * (so the host, ABI 7, shows what a 6.1 kernel would allow). */
	FILL();
	rc = abi2_child(&p, 0, d, res);
	is_int(rc, 0, "control child (Landlock ABI 2 rights, no filter) ran");
	if (rc == 0) {
		is_int(res[R_WRITE_RO], EACCES,
		    "control: Landlock is on (write under ro: EACCES)");
		is_int(res[R_READ_NONE], EACCES,
		    "control: read outside every rule: EACCES");
		is_int(res[R_TRUNC_RO], 0,
		    "control: truncate(2) under ro goes through at ABI 2");
		is_int(fsize(F("ro/f")), 0, "control: and emptied ro/f");
		is_int(res[R_OTRUNC_RO], 0,
		    "control: O_RDONLY|O_TRUNC under ro goes through");
		is_int(fsize(F("ro/f2")), 0, "control: and emptied ro/f2");
		is_int(res[R_ACC3_NONE], 0, "control: access mode 3 with "
		    "O_TRUNC outside every rule goes through");
		is_int(fsize(F("none/g")), 0, "control: and emptied none/g");
	}

	/* With the stand-in program: each of them EACCES, files intact. */
	FILL();
	rc = abi2_child(&p, 1, d, res);
	is_int(rc, 0, "child with the ABI < 3 program ran");
	if (rc == 0) {
		is_int(res[R_TRUNC_RO], EACCES, "truncate(2) under ro: EACCES");
		is_int(fsize(F("ro/f")), 5, "ro/f intact");
		is_int(res[R_OTRUNC_RO], EACCES,
		    "O_RDONLY|O_TRUNC under ro: EACCES");
		is_int(fsize(F("ro/f2")), 5, "ro/f2 intact");
		is_int(res[R_ACC3_NONE], EACCES,
		    "access mode 3 with O_TRUNC outside every rule: EACCES");
		is_int(fsize(F("none/g")), 7, "none/g intact");
		is_int(res[R_WRITE_RO], EACCES, "write under ro: EACCES");
		is_int(res[R_READ_NONE], EACCES, "read outside: EACCES");
		is_int(res[R_OPENAT2], ENOSYS, "openat2: ENOSYS");
		is_int(res[R_FTRUNC_RW], 0,
		    "ftruncate of a file opened for writing under rw: works");
		is_int(fsize(F("rw/h")), 0, "rw/h emptied by ftruncate");
		is_int(res[R_WTRUNC_RW], 0, "O_WRONLY|O_TRUNC under rw: works");
		is_int(res[R_TRUNC_RW], EACCES, "truncate(2) under rw: EACCES "
		    "(the documented loss below ABI 3)");
	}
	const char *rm[] = {"ro/f", "ro/f2", "none/g", "rw/h", "ro", "rw",
		"none"};
	for (i = 0; i < 7; i++)
		if (i < 4)
			unlink(F(rm[i]));
		else
			rmdir(F(rm[i]));
	rc = rmdir(d);
	ok(rc == 0, "temporary directory removed");
#undef F
#undef FILL
}

static void
test_image(void)
{
	char path[] = "/tmp/borne-unit-image.XXXXXX", err[512] = "";
	uint8_t d[32], want[32];
	int fd, m, seals;
	enum image_err k;

	int rc;

	/* (ok() evaluates its condition twice: no side effects in it.) */
	fd = open("/bin/true", O_RDONLY);
	rc = fd >= 0 ? sha256_fd(fd, want, NULL) : -1;
	ok(rc == 0, "hash /bin/true");
	close(fd);
	k = image_seal("/bin/true", want, &m, d, err, sizeof(err));
	is_int(k, IMAGE_OK, "/bin/true seals with its own pin (%s)", err);
	ok(memcmp(d, want, 32) == 0, "digest of the sealed copy");
	seals = fcntl(m, F_GET_SEALS);
	ok((seals & (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK |
		F_SEAL_SEAL)) == (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK |
		F_SEAL_SEAL), "sealed against change (0x%x)", seals);
	rc = (int)write(m, "x", 1);
	ok(rc == -1, "the image cannot be written");
	ok(fcntl(m, F_GETFD) & FD_CLOEXEC, "close-on-exec");
	close(m);
	want[0] ^= 1;
	is_int(image_seal("/bin/true", want, &m, d, err, sizeof(err)),
	    IMAGE_MISMATCH, "wrong pin refused");
	is_int(m, -1, "no fd left on refusal");
	is_int(image_seal("/nonexistent/x", NULL, &m, d, err, sizeof(err)),
	    IMAGE_NOTFOUND, "missing program");
	is_int(image_seal("/etc", NULL, &m, d, err, sizeof(err)),
	    IMAGE_NOEXEC, "a directory is not a program");
	fd = mkstemp(path);
	rc = fd >= 0 && write(fd, "#!/bin/sh\n", 10) == 10 &&
	    fchmod(fd, 0755) == 0;
	ok(rc, "script written");
	close(fd);
	is_int(image_seal(path, NULL, &m, d, err, sizeof(err)), IMAGE_NOEXEC,
	    "#! script refused (%s)", err);
	unlink(path);

	m = prompt_memfd((const unsigned char *)"abc", 3);
	ok(m >= 0, "prompt memfd");
	{
		char buf[8];
		ssize_t n = read(m, buf, sizeof(buf));

		ok(n == 3 && memcmp(buf, "abc", 3) == 0, "prompt reads back");
		n = write(m, "x", 1);
		ok(n == -1, "prompt sealed");
	}
	close(m);
}

int
main(void)
{
	test_landlock();
	test_seccomp();
	test_seccomp_answers();
	test_seccomp_truncate();
	test_abi2_truncate();
	test_image();
	return done_testing();
}
