/* SPDX-License-Identifier: ISC */
/* bpfrun.h: a classic-BPF evaluator for the opcodes libseccomp emits
 * (load word, and, jumps, return; the bit test sf_observe_watch emits),
 * shared by the unit tests that ask the
 * built-in seccomp programs what they answer for a syscall, an argument
 * or an architecture this kernel cannot produce (i386 int 0x80 faults on
 * this machine; x32 is compiled out).  Unknown opcode: -1. */
#ifndef BORNE_TEST_BPFRUN_H
#define BORNE_TEST_BPFRUN_H

#include <stdint.h>
#include <string.h>
#include <linux/filter.h>

/* struct seccomp_data, as the filter reads it. */
struct sdata {
	int32_t nr;
	uint32_t arch;
	uint64_t ip;
	uint64_t args[6];
};

/* d: the call nr of arch with its first four arguments, the rest 0. */
static inline void
sdata_set(struct sdata *d, uint32_t arch, int32_t nr, uint64_t a0,
    uint64_t a1, uint64_t a2, uint64_t a3)
{
	memset(d, 0, sizeof(*d));
	d->nr = nr;
	d->arch = arch;
	d->args[0] = a0;
	d->args[1] = a1;
	d->args[2] = a2;
	d->args[3] = a3;
}

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
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += 1 + ((a & f->k) != 0 ? f->jt : f->jf);
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			return -1;
		}
	}
	return -1;
}

#endif
