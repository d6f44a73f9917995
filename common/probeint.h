/* SPDX-License-Identifier: ISC */
/* probeint: what the parts of the probe share, and nothing outside them
 * may use (probe.h is the contract).  Each fills its fields of *p and
 * leaves 0 ("cannot be enforced") where a probe fails. */
#ifndef BORNE_PROBEINT_H
#define BORNE_PROBEINT_H

#include "probe.h"

/* probecg.c: cg2_* (exact: see PROBE_EXACT; ctl: PROBE_CONTROLLERS). */
void probe_cgroup(struct probe *p, int exact, int ctl);

/* 1 when the running kernel release (uname -r) is at least maj.min. */
int probe_kernel_at_least(int maj, int min);

/* probesys.c: seccomp_* and arch; execveat, close_range, pidfd; openat2,
 * fchmodat2, xattrat; memfd_*. */
void probe_seccomp(struct probe *p);
void probe_syscalls(struct probe *p);
void probe_newcalls(struct probe *p);
void probe_memfd(struct probe *p);

/* probens.c: clone3, ns_*, cap_sys_admin (exact: PROBE_EXACT). */
void probe_ns(struct probe *p, int exact);

/* The number in the small file at path (a sysctl), or -1. */
long probe_read_long(const char *path);

#endif
