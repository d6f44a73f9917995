/* SPDX-License-Identifier: ISC */
/* caps: uid/gid switch, capability drop, securebits lock (libcap). */
#include <errno.h>
#include <grp.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/securebits.h>

#include "caps.h"

int
caps_have_setpcap(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c;

	c = cap_get_proc();
	if (c == NULL)
		return 0;
	if (cap_get_flag(c, CAP_SETPCAP, CAP_EFFECTIVE, &v) == -1)
		v = CAP_CLEAR;
	cap_free(c);
	return v == CAP_SET;
}

int
caps_lock_securebits(void)
{
	unsigned bits;

	/* KEEP_CAPS stays clear and locked; NO_SETUID_FIXUP keeps the
	 * capabilities the next steps need across the uid switch; NOROOT
	 * makes uid 0 get nothing at execve (capabilities(7),
	 * "The securebits flags"). */
	bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
	    SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
	    SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	if (cap_set_secbits(bits) == -1)
		return -1;
	if ((unsigned)cap_get_secbits() != bits) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
caps_drop_bounding(void)
{
	cap_value_t c, max;

	max = (cap_value_t)cap_max_bits();	/* CAP_LAST_CAP + 1, at run time */
	for (c = 0; c < max; c++)
		if (cap_drop_bound(c) == -1 && errno != EINVAL)
			return -1;
	/* One PR_CAP_AMBIENT_CLEAR_ALL (cap_reset_ambient() first asks
	 * about every capability, one prctl each); caps_verify_empty()
	 * still reads every ambient bit back.  EINVAL: a kernel without
	 * ambient sets (before 4.3) has none to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1 &&
	    errno != EINVAL)
		return -1;
	return 0;
}

int
creds_switch(int has_uid, uid_t uid, int has_gid, gid_t gid)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	if (!has_uid && !has_gid)
		return 0;
	/* Supplementary groups first: they would survive the switch.  The
	 * system calls themselves: a child sharing its parent's memory
	 * (confexec's payload, CLONE_VM) would have libc broadcast the
	 * change to the threads of that parent (glibc's setxid, musl's
	 * synccall). */
	if (syscall(SYS_setgroups, 0, NULL) == -1)
		return -1;
	if (has_gid && syscall(SYS_setresgid, gid, gid, gid) == -1)
		return -1;
	if (has_uid && syscall(SYS_setresuid, uid, uid, uid) == -1)
		return -1;
	if (getresgid(&rg, &eg, &sg) == -1 || getresuid(&r, &e, &s) == -1)
		return -1;
	if ((has_gid && (rg != gid || eg != gid || sg != gid)) ||
	    (has_uid && (r != uid || e != uid || s != uid)) ||
	    getgroups(0, NULL) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

cap_t
caps_empty(void)
{
	return cap_init();	/* all three sets clear */
}

int
caps_clear(cap_t empty)
{
	return cap_set_proc(empty);
}

int
caps_verify_empty(int bounding)
{
	/* capget(2) into the stack: cap_get_proc() would allocate. */
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	cap_value_t v, max;
	int i;

	if (syscall(SYS_capget, &h, d) == -1)
		return -1;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable) {
			errno = EPERM;
			return -1;
		}
	max = (cap_value_t)cap_max_bits();
	for (v = 0; v < max; v++) {
		if (cap_get_ambient(v) > 0 ||
		    (bounding && cap_get_bound(v) > 0)) {
			errno = EPERM;
			return -1;
		}
	}
	return 0;
}
