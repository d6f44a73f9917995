/* SPDX-License-Identifier: ISC */
/* Unit tests of confexec's layer modules: the Landlock ABI table and
 * intents, the built-in seccomp programs against a fresh libseccomp
 * compile, and the sealed image. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "image.h"
#include "landlock.h"
#include "sysfilter.h"
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
		is_int(sf_compile(v, &a, err, sizeof(err)), 0,
		    "variant %u compiles (%s)", v, err);
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
}

/* A classic-BPF evaluator for the opcodes libseccomp emits (load word,
 * and, jumps, return), to ask the built-in programs what they answer for
 * an architecture or a syscall this kernel cannot produce (i386 int 0x80
 * faults on this machine; x32 is compiled out).  Unknown opcode: -1. */
struct sdata {
	int32_t nr;
	uint32_t arch;
	uint64_t ip;
	uint64_t args[6];
};

static long long
bpf_run(const struct sock_fprog *p, const struct sdata *d)
{
	uint32_t a = 0, w;
	unsigned pc = 0, steps = 0;

	while (pc < p->len && steps++ < 100000) {
		const struct sock_filter *f = &p->filter[pc];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k + 4 > sizeof(*d))
				return -1;
			memcpy(&w, (const char *)d + f->k, 4);
			a = w;
			pc++;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			pc++;
			break;
		case BPF_JMP | BPF_JA:
			pc += 1 + f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += 1 + (a == f->k ? f->jt : f->jf);
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += 1 + (a > f->k ? f->jt : f->jf);
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += 1 + (a >= f->k ? f->jt : f->jf);
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			return -1;
		}
	}
	return -1;
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

	memset(&d, 0, sizeof(d));
	d.nr = nr;
	d.arch = arch;
	d.args[0] = a0;
	d.args[1] = a1;
	d.args[2] = a2;
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

static void
test_image(void)
{
	char path[] = "/tmp/borne-unit-image.XXXXXX", err[512];
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
	test_image();
	return done_testing();
}
