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
note "kernel $(uname -r), series $series"

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

# ---- confexec: the limits and layers a hybrid host cannot show ---------
# Plans are made by planenc; the payloads are static (busybox, helpers), so
# read-execute on /bin and /borne is all they need.
CX=$BIN/confexec
E=$HELP/escape
oom_kills() { dmesg | grep -c 'Memory cgroup out of memory' || true; }
cg_left() { ls -d /sys/fs/cgroup/borne-* 2>/dev/null | wc -l; }
flat() { tr -d ' \n' <"$1"; }

# Below Landlock ABI 3 there is no truncate right: the seccomp program
# stands in for it (truncate(2), O_TRUNC opens without write access,
# openat2), the layer is seccomp-truncate, and strict plans with only
# filesystem rules run with this ABI's rights.
if [ "$want_abi" -lt 3 ]; then
	tl=seccomp-truncate
else
	tl=landlock-truncate
fi
# cxrun ARG...: confexec with its standard output and error through
# pipes.  A file on this tmpfs cannot be handed to the run before Linux 6.3
# (no idmapped mounts there: confexec refuses, confexec(1)), and the
# suite's OUT and ERR are such files.
cxrun() {
	rm -f "$TMP/.o" "$TMP/.e"
	mkfifo "$TMP/.o" "$TMP/.e" || return 99
	cat "$TMP/.o" &
	co=$!
	cat "$TMP/.e" >&2 &
	ce=$!
	"$CX" "$@" >"$TMP/.o" 2>"$TMP/.e"
	rc=$?
	wait "$co" "$ce"
	return "$rc"
}
"$BIN/planenc" --rox /bin -- /bin/true >"$TMP/p0"
t_exit 0 "ABI $want_abi: a strict fs-only plan runs" cxrun <"$TMP/p0"
t_eq "with nothing on stderr (no refusal, no warning)" "$(cat "$ERR")" ""
"$CX" --dry-run <"$TMP/p0" >"$TMP/dry0" 2>&1
flat "$TMP/dry0" >"$TMP/flat0"
t_grep "dry run: the truncate layer is $tl, enforced" \
    "\"layer\":\"$tl\",\"verdict\":\"enforce\"" "$TMP/flat0"
t_grep "dry run: strict would run" '"would_run":true' "$TMP/flat0"
t_eq "no cgroup left behind" "$(cg_left)" 0
CXOPTS=
cx() { # cx PLANENC-ARGS... -- PROG ARGS: encode, then run under confexec
	"$BIN/planenc" --rox /bin --rox /borne "$@" >"$TMP/.plan" ||
	    { echo "guest: planenc failed" >&2; return 99; }
	cxrun $CXOPTS <"$TMP/.plan"
}

# Filesystem: an fs-only plan is enforced with this kernel's Landlock rights.
mkdir -p "$TMP/rw" "$TMP/other"
echo secret >"$TMP/other/secret"
t_exit 0 "fs-only plan runs (Landlock ABI $want_abi, strict)" \
    cx --rw "$TMP/rw" -- "$E" write "$TMP/rw/f"
t_eq "write inside --rw allowed" "$(cat "$OUT")" OK
t_exit 0 "fs-only plan, write elsewhere" \
    cx --rw "$TMP/rw" -- "$E" write "$TMP/other/f"
t_eq "write outside every rule: ENOENT (not in the run's view)" \
    "$(cat "$OUT")" ENOENT
t_exit 0 "fs-only plan, read of an ungranted file" \
    cx -- "$E" read "$TMP/other/secret"
t_eq "read outside every rule: ENOENT (not in the run's view)" \
    "$(cat "$OUT")" ENOENT

# Truncation: EACCES from the seccomp stand-in below ABI 3 (before the
# call); at ABI >= 3 the run's read-only mount view answers first (EROFS),
# Landlock behind it.  The control first: Landlock alone (landlock-ro: read and execute
# beneath /, every fs right of this ABI handled) on a root-owned 0644 file.
mkdir -p "$TMP/ro"
echo data >"$TMP/ro/f"
echo data >"$TMP/ctl"
"$HELP/landlock-ro" "$E" open-trunc rdonly "$TMP/ctl" >"$OUT" 2>&1
if [ "$want_abi" -lt 3 ]; then
	t_eq "control: Landlock ABI $want_abi alone lets O_RDONLY|O_TRUNC through" \
	    "$(tr '\n' ' ' <"$OUT")" "openat:OK open:OK "
	t_eq "control: and the read-only file was emptied" \
	    "$(wc -c <"$TMP/ctl" | tr -d ' ')" 0
else
	t_eq "control: Landlock ABI $want_abi refuses O_RDONLY|O_TRUNC itself" \
	    "$(tr '\n' ' ' <"$OUT")" "openat:EACCES open:EACCES "
fi
t_exit 0 "strict plan: truncate(2) of a --ro file" \
    cx --ro "$TMP/ro" -- "$E" truncate "$TMP/ro/f"
if [ "$want_abi" -lt 3 ]; then ro_trunc=EACCES; else ro_trunc=EROFS; fi
t_eq "truncate(2) under --ro: $ro_trunc ($tl)" "$(cat "$OUT")" "$ro_trunc"
t_exit 0 "strict plan: O_RDONLY|O_TRUNC of a --ro file" \
    cx --ro "$TMP/ro" -- "$E" open-trunc rdonly "$TMP/ro/f"
t_eq "O_RDONLY|O_TRUNC under --ro: $ro_trunc, openat and open ($tl)" \
    "$(tr '\n' ' ' <"$OUT")" "openat:$ro_trunc open:$ro_trunc "
t_exit 0 "strict plan: access mode 3 with O_TRUNC outside every rule" \
    cx -- "$E" open-trunc 3 "$TMP/other/secret"
t_eq "access mode 3 with O_TRUNC: EACCES ($tl)" \
    "$(tr '\n' ' ' <"$OUT")" "openat:EACCES open:EACCES "
t_eq "the --ro file and the ungranted one are intact" \
    "$(cat "$TMP/ro/f" "$TMP/other/secret")" "$(printf 'data\nsecret')"
echo mine >"$TMP/rw/t"
t_exit 0 "strict plan: ftruncate of a --rw file opened for writing" \
    cx --rw "$TMP/rw" -- "$E" ftruncate "$TMP/rw/t"
t_eq "ftruncate under --rw works" "$(cat "$OUT")" OK
t_eq "and emptied the file" "$(wc -c <"$TMP/rw/t" | tr -d ' ')" 0
echo mine >"$TMP/rw/t"
t_exit 0 "strict plan: truncate(2) of a --rw file" \
    cx --rw "$TMP/rw" -- "$E" truncate "$TMP/rw/t"
if [ "$want_abi" -lt 3 ]; then
	t_eq "truncate(2) under --rw: EACCES (the documented loss below ABI 3)" \
	    "$(cat "$OUT")" EACCES
else
	t_eq "truncate(2) under --rw: allowed by Landlock" "$(cat "$OUT")" OK
fi
t_exit 0 "strict plan: openat2 of a --ro file" \
    cx --ro "$TMP/ro" -- "$E" openat2 "$TMP/ro/f"
t_eq "openat2: ENOSYS at every ABI (its access mode 3 is out of BPF's reach)" \
    "$(cat "$OUT")" ENOSYS

# The limits are in the run's cgroup, read back by the payload itself.
t_exit 0 "payload reads its cgroup's limit files" \
    cx --ro /proc --ro /sys/fs/cgroup --memory-max 32M --pids-max 16 \
    --cpu-max 50000/100000 -- /bin/busybox sh -c \
    'cg=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)
    for f in memory.max pids.max cpu.max; do echo "$f $(cat "$cg/$f")"; done'
t_grep "memory.max is 32 MiB" '^memory.max 33554432$' "$OUT"
t_grep "pids.max is 16" '^pids.max 16$' "$OUT"
t_grep "cpu.max is half a CPU" '^cpu.max 50000 100000$' "$OUT"

# memory.max: a 64 MiB buffer under a 16 MiB limit is OOM-killed.
k0=$(oom_kills)
t_exit 0 "control: 64 MiB dd with no memory limit" \
    cx --ro /dev/zero --rw /dev/null -- \
    /bin/busybox dd if=/dev/zero of=/dev/null bs=64M count=1
t_exit 137 "memory-max 16M: dd of a 64 MiB buffer killed by SIGKILL (137)" \
    cx --memory-max 16M --ro /dev/zero --rw /dev/null -- \
    /bin/busybox dd if=/dev/zero of=/dev/null bs=64M count=1
k1=$(oom_kills)
t_eq "the kernel logged one memory-cgroup OOM kill" "$((k1 - k0))" 1
t_grep "confexec names the OOM killer and memory.max" \
    '^confexec: the OOM killer killed 1 process of the run \(memory\.max 16777216\)$' \
    "$ERR"
t_exit 0 "control: the same dd under memory-max 256M" \
    cx --memory-max 256M --ro /dev/zero --rw /dev/null -- \
    /bin/busybox dd if=/dev/zero of=/dev/null bs=64M count=1
t_nogrep "no OOM message without an OOM kill" 'OOM' "$ERR"
CXOPTS="--journal $TMP/j"
t_exit 137 "the same run with a journal" \
    cx --memory-max 16M --ro /dev/zero --rw /dev/null -- \
    /bin/busybox dd if=/dev/zero of=/dev/null bs=64M count=1
CXOPTS=
t_exit 0 "journalchain verifies the run's journal" "$BIN/journalchain" verify "$TMP/j"
t_grep "two records" '^2 records, head 2:' "$OUT"
"$BIN/journalchain" show --json "$TMP/j" >"$TMP/jshow" 2>&1
t_grep "the start record lists the memory layer as applied" \
    '"event":"start".*"layers":\[[^]]*"memory"' "$TMP/jshow"
t_grep "the end record carries 137" '"event":"end".*"exit":137' "$TMP/jshow"
t_grep "the end record carries the OOM kill count (>= 1)" \
    '"event":"end".*"oom_kill":[1-9]' "$TMP/jshow"
t_grep "the start record lists $tl among the layers applied" \
    "\"event\":\"start\".*\"layers\":\\[[^]]*\"$tl\"" "$TMP/jshow"
t_grep "and nothing degraded (strict)" '"degraded":\[\]' "$TMP/jshow"

# pids.max: the fifth process of the run cannot be forked.
t_exit 0 "control: 6 background sleeps under pids-max 32" \
    cx --pids-max 32 -- /bin/busybox sh -c \
    'for i in 1 2 3 4 5 6; do sleep 1 & done; wait'
cx --pids-max 4 -- /bin/busybox sh -c \
    'for i in 1 2 3 4 5 6; do sleep 5 & done; wait' >"$OUT" 2>"$ERR"
rc=$?
t_eq "pids-max 4: the shell fails" "$([ "$rc" -ne 0 ] && echo failed)" failed
t_grep "fork refused with EAGAIN (pids.max)" \
    "can't fork: Resource temporarily unavailable" "$ERR"

# cgroup.kill: a setsid grandchild ends with the run.
t_exit 0 "payload leaves a setsid grandchild" \
    cx --rw "$TMP/rw" -- "$E" grandchild "$TMP/rw/gc.pid"
gc=$(cat "$TMP/rw/gc.pid" 2>/dev/null || echo 0)
ok "grandchild pid recorded" test "$gc" -gt 1
ok "the grandchild is gone (cgroup.kill; its lock is free)" \
    flock -n "$TMP/rw/gc.pid.lock" true
t_eq "no borne- cgroup left behind" "$(cg_left)" 0

# TCP: Landlock ABI 4 is needed for port rules.
ip link set lo up
"$E" listen "$TMP/port" &
lpid=$!
for i in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
port=$(cat "$TMP/port" 2>/dev/null || echo 0)
ok "a listener on loopback (port $port)" test "$port" -gt 0
if [ "$want_abi" -ge 4 ]; then
	t_exit 0 "strict TCP plan runs at ABI $want_abi" \
	    cx --tcp --connect-tcp "$port" -- "$E" connect "$port"
	t_eq "granted port connects" "$(cat "$OUT")" OK
	t_exit 0 "strict TCP plan, port not granted" \
	    cx --tcp -- "$E" connect "$port"
	t_eq "ungranted port: EACCES from Landlock" "$(cat "$OUT")" EACCES
else
	"$BIN/planenc" --rox /borne --tcp --connect-tcp "$port" -- \
	    "$E" connect "$port" >"$TMP/pt"
	t_exit 125 "strict TCP plan refused at ABI $want_abi (125)" cxrun <"$TMP/pt"
	t_grep "the refusal is one clear line" '^confexec: refusing: ' "$ERR"
	t_eq "one line only" "$(wc -l <"$ERR" | tr -d ' ')" 1
	t_grep "naming Landlock TCP and ABI 4" \
	    '^confexec: refusing: landlock-tcp \(TCP port rules\): needs Landlock ABI 4, kernel has 2 \(use --degrade to run without it\)$' \
	    "$ERR"
	t_nogrep "and not truncate (the stand-in enforces it)" 'truncate' "$ERR"
	"$CX" --dry-run <"$TMP/pt" >"$TMP/dry" 2>&1
	flat "$TMP/dry" >"$TMP/flat"
	t_grep "dry run: landlock-tcp verdict refuse" \
	    '"layer":"landlock-tcp","verdict":"refuse"' "$TMP/flat"
	"$BIN/planenc" --degrade --rox /borne --tcp --connect-tcp "$port" -- \
	    "$E" connect "$port" >"$TMP/pd"
	t_exit 0 "degrade: the TCP plan runs" cxrun <"$TMP/pd"
	t_grep "with a loud warning naming Landlock TCP" \
	    'WARNING: running without landlock-tcp' "$ERR"
	t_eq "unbounded by Landlock, the connect succeeds" "$(cat "$OUT")" OK
fi
kill "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null

# x32: this kernel runs x32 syscalls (syscall.x32=y); the filter stops them.
"$E" x32 >"$OUT" 2>&1
t_eq "control: an x32 getpid outside the filter succeeds" "$(cat "$OUT")" OK
t_exit 159 "x32 syscall inside: killed by SIGSYS (128+31)" cx -- "$E" x32
"$E" int80 >"$OUT" 2>&1
t_grep "control: i386 int 0x80 outside works" '^int80 returned' "$OUT"
t_exit 159 "i386 int 0x80 inside: killed by SIGSYS" cx -- "$E" int80

# ---- suidstrip: no fchmodat2 before 6.6, no getxattrat/removexattrat
# before 6.13, so the walk takes its /proc/self/fd paths here for real.
W=$TMP/ss
mkdir -p "$W/d"
for f in su sg cap plain; do echo x >"$W/d/$f"; done
chmod 4750 "$W/d/su"; chmod 2755 "$W/d/sg"; chmod 755 "$W/d/plain"
t_exit 0 "fcapset writes security.capability on tmpfs" "$HELP/fcapset" "$W/d/cap" 2
t_exit 1 "suidstrip --check finds the privileged files" "$BIN/suidstrip" --check "$W"
t_grep "setuid file named" "privileged: $W/d/su: mode 04750" "$OUT"
t_grep "setgid file named" "privileged: $W/d/sg: mode 02755" "$OUT"
t_grep "capability named" "privileged: $W/d/cap: .*cap_net_raw=ep" "$OUT"
t_exit 0 "suidstrip strips" "$BIN/suidstrip" "$W"
t_eq "setuid bit gone, rest of the mode kept" "$(stat -c %a "$W/d/su")" 750
t_eq "setgid bit gone" "$(stat -c %a "$W/d/sg")" 755
t_eq "plain file untouched" "$(stat -c %a "$W/d/plain")" 755
t_exit 0 "--check afterwards finds nothing (capability removed)" \
    "$BIN/suidstrip" --check "$W"

done_testing
