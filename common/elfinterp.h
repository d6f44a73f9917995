/* SPDX-License-Identifier: ISC */
/* elfinterp: what a program image asks of the kernel before it runs: its ELF
 * interpreter (PT_INTERP), which must be executable inside the payload's
 * Landlock domain too.  Read with pread(2) from an open image, in the
 * parent, before the clone (the child must not allocate).  Nothing here
 * prints or allocates. */
#ifndef BORNE_ELFINTERP_H
#define BORNE_ELFINTERP_H

#include <stddef.h>

/* The PT_INTERP path of the ELF image open at fd (64- or 32-bit, either
 * byte order) into out (size bytes, NUL-terminated).  Returns 1 when the
 * image names an interpreter (a dynamic executable), 0 when it does not
 * (static, or not ELF: out is ""), -1 with errno on a read error or a
 * malformed header (EINVAL; out is ""). */
int elf_interp(int fd, char *out, size_t size);

#endif
