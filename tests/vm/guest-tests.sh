#!/bin/sh
# tests/vm/guest-tests.sh: TAP tests run by busybox sh as PID 1's child
# inside a VM booted on one of Debian's kernels (tests/vm/run.sh), against
# the static binaries.  The guest has a pure cgroup v2 hierarchy at
# /sys/fs/cgroup with memory, pids and cpu enabled for children.
#
# The host names the kernel series on the command line (borne.kernel=6.1);
# BORNE_VM_kernel carries it here, and the expectations below are what that
# series is known to offer.  Each answer of cgprobe is also checked against
# an independent probe where one exists (landlock-abi helper, the cgroup
# files themselves).
. "$(dirname "$0")/../lib.sh"

series=${BORNE_VM_kernel:-}
case $series in
6.1)	want_abi=2 want_fchmodat2=no want_memfd_exec=no ;;
6.12)	want_abi=6 want_fchmodat2=yes want_memfd_exec=yes ;;
*)	fail "known kernel series (got '$series')"; done_testing ;;
esac
diag "kernel $(uname -r), series $series"

CG=$BIN/cgprobe

# ---- cgprobe: this kernel's truth --------------------------------------
t_exit 0 "cgprobe runs" "$CG"
cp "$OUT" "$TMP/kv"
key() { sed -n "s/^$1=//p" "$TMP/kv"; }

abi=$("$HELP/landlock-abi")
t_eq "landlock-abi helper: ABI $want_abi on $series" "$abi" "$want_abi"
t_eq "cgprobe landlock.abi matches the helper" "$(key landlock.abi)" "$abi"
for f in fs:1 refer:2 truncate:3 tcp:4 ioctl_dev:5 scope:6 log_flags:7; do
	n=${f#*:}; k=${f%:*}
	if [ "$want_abi" -ge "$n" ]; then want=yes; else want=no; fi
	t_eq "landlock.$k is $want at ABI $want_abi" "$(key "landlock.$k")" "$want"
done

t_eq "cgroup2.mount is /sys/fs/cgroup" "$(key cgroup2.mount)" /sys/fs/cgroup
t_eq "cgroup2.mode is pure" "$(key cgroup2.mode)" pure
t_eq "no cgroup v1 hierarchy" "$(key cgroup2.v1_hierarchies)" 0
t_eq "cgroup2.self is /" "$(key cgroup2.self)" /
t_eq "available controllers are the root's cgroup.controllers" \
    "$(key cgroup2.controllers.available)" \
    "$(cat /sys/fs/cgroup/cgroup.controllers)"
t_eq "enabled controllers are the root's cgroup.subtree_control" \
    "$(key cgroup2.controllers.enabled)" \
    "$(cat /sys/fs/cgroup/cgroup.subtree_control)"
for c in memory pids cpu; do
	t_grep "controller $c available" "(^| )$c( |\$)" \
	    /sys/fs/cgroup/cgroup.controllers
	case " $(key cgroup2.controllers.enabled) " in
	*" $c "*) pass "cgprobe: $c enabled for children" ;;
	*) fail "cgprobe: $c enabled for children" ;;
	esac
done
t_eq "cgroup2.writable" "$(key cgroup2.writable)" yes
t_eq "cgroup2.kill" "$(key cgroup2.kill)" yes
t_eq "cgroup2.kill decided from the kernel (root cgroup, no child)" \
    "$(key cgroup2.kill_evidence)" kernel
t_eq "cgroup2.clone_into_cgroup" "$(key cgroup2.clone_into_cgroup)" yes
t_eq "seccomp.arch is x86_64" "$(key seccomp.arch)" x86_64
t_eq "seccomp user notification" "$(key seccomp.action.user_notif)" yes
t_eq "syscall.fchmodat2 ($want_fchmodat2 on $series)" \
    "$(key syscall.fchmodat2)" "$want_fchmodat2"
t_eq "syscall.xattrat (6.13) absent" "$(key syscall.xattrat)" no
t_eq "memfd.exec_flag ($want_memfd_exec on $series)" \
    "$(key memfd.exec_flag)" "$want_memfd_exec"
if [ -e /proc/sys/vm/memfd_noexec ]; then
	t_eq "memfd.noexec is vm.memfd_noexec" "$(key memfd.noexec)" \
	    "$(cat /proc/sys/vm/memfd_noexec)"
else
	t_eq "memfd.noexec is -1 without vm.memfd_noexec" \
	    "$(key memfd.noexec)" -1
fi

# --require: the mode selector agrees with the kernel.
t_exit 0 "--require memory,pids,cpu,cgroup-kill,landlock-refer" \
    "$CG" --require memory,pids,cpu,cgroup-kill,landlock-refer
req() { # req MECH MIN_ABI
	if [ "$want_abi" -ge "$2" ]; then w=0; else w=1; fi
	t_exit "$w" "--require $1 exits $w at ABI $want_abi" "$CG" --require "$1"
	if [ "$w" -eq 1 ]; then
		t_grep "--require $1 names what is missing" "$1" "$ERR"
	fi
}
req landlock-truncate 3
req landlock-tcp 4
req landlock-scope 6
req landlock-log 7

# ---- fdclose-verify on this kernel (close_range, /proc/self/fd) --------
t_exit 0 "fdclose-verify runs a program" "$BIN/fdclose-verify" -- /bin/true
exec 7</dev/null
t_exit 0 "fdclose-verify closes fd 7" "$BIN/fdclose-verify" --keep 0,1,2 \
    -- "$HELP/fd-list"
t_nogrep "fd 7 is gone in the program" '^7( |$)' "$OUT"
exec 7<&-

done_testing
