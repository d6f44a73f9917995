#!/bin/sh
# confexec: the escape matrix, proved from inside.  A helper (escape) tries
# one thing inside the boundary and prints the errno it got; each test
# asserts the exact answer of the layer meant to stop it.
# Plans are written in launchplan(5) text by mkplan below, so that this
# file depends on confexec and the codec only.
. "$(dirname "$0")/lib.sh"

needs root landlock=4 cgroup2 unshare strace flock


# ---- plan construction -------------------------------------------------
# mkplan LINE... -- PROGRAM ARGS...: a canonical plan on stdout.  Each LINE
# is one "key value" line of launchplan(5); mkplan orders them by key rank
# (and by value within a key), adds program/arg lines, "mode strict" unless
# a mode line is given, and the end line.
rank() {
	case $1 in
	sha256) echo 02 ;; ro) echo 03 ;; rw) echo 04 ;; rox) echo 05 ;;
	rwx) echo 05a ;; follow) echo 05b ;; tmp) echo 05c ;;
	socket) echo 06 ;; connect-tcp) echo 07 ;; bind-tcp) echo 08 ;;
	env) echo 09 ;; rlimit) echo 10 ;; memory-max) echo 11 ;;
	pids-max) echo 12 ;; cpu-max) echo 13 ;; timeout-ms) echo 14 ;;
	uid) echo 15 ;; gid) echo 16 ;; ack-daemon) echo 17 ;;
	keep-fd) echo 18 ;; mode) echo 19 ;; *) echo 99 ;;
	esac
}
mkplan() {
	lines=$TMP/.lines
	: >"$lines"
	mode=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		k=${1%% *}
		[ "$k" = mode ] && mode=1
		printf '%s %s\n' "$(rank "$k")" "$1" >>"$lines"
		shift
	done
	shift
	[ -n "$mode" ] || printf '19 mode strict\n' >>"$lines"
	echo "borne-plan 1"
	echo "program $1"
	i=0
	for a in "$@"; do
		if [ -z "$a" ]; then echo "arg"; else echo "arg $a"; fi
	done
	LC_ALL=C sort "$lines" | cut -d' ' -f2-
	echo "end"
}
# mkplan_prompt FILE LINE... -- PROGRAM ARGS: same, with FILE as the prompt.
mkplan_prompt() {
	pf=$1; shift
	mkplan "$@" | sed '$d'
	echo "prompt $(wc -c <"$pf" | tr -d ' ')"
	echo "end"
	cat "$pf"
}

# What every payload needs to load: the dynamic loader and libraries
# (read + execute), /proc for the helper's own introspection, and an
# environment that keeps the sanitizer runtime quiet in the asan build
# (LeakSanitizer needs ptrace, which the filter denies; the int 0x80 probe
# must die of its signal, not be caught by the sanitizer).
# Where /bin/sh and its utilities live is added when /usr does not cover
# it (a busybox /bin, as in the VM tier's guest).  /lib and /lib64 may be
# symlinks into /usr (merged /usr): follow says the plan accepts that.
BASE="rox /usr|rox /lib|rox /lib64|follow /lib|follow /lib64|ro /etc|ro /proc|env ASAN_OPTIONS=detect_leaks=0:handle_segv=0"
SHDIR=$(dirname "$(readlink -f /bin/sh)")
case $SHDIR in /usr | /usr/*) ;; *) BASE="$BASE|rox $SHDIR" ;; esac
base() {
	IFS='|'
	set -- $BASE
	unset IFS
	for l in "$@"; do printf '%s\n' "$l"; done
}
# cxp LINES... -- PROG ARGS: build a plan with the base grants, run it.
cxp() {
	plan=$TMP/.plan
	( IFS='
'; set -- $(base) "$@"; unset IFS; mkplan "$@" ) >"$plan"
	$CXIN "$CX" <"$plan"
}
CXIN=
# cxn: cxp in the cgroup with nothing delegated (NOCTL, below).
cxn() { CXIN=in_noctl; cxp "$@"; r=$?; CXIN=; return $r; }

CG2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo |
	head -n 1)
SELF=$(sed -n 's/^0:://p' /proc/self/cgroup)
CGDIR=$CG2${SELF%/}
# Where no memory, pids or cpu controller is there to pass on, this file
# runs in a cgroup of its own: the run cgroups it counts are its alone,
# whatever other runs on the machine make or leave meanwhile.  (A cgroup
# that holds processes cannot give those controllers to its children, so
# where the host has them the file stays where it was started.)
if ! grep -qwE 'memory|pids|cpu' "$CGDIR/cgroup.controllers" 2>/dev/null; then
	ORIG=$CGDIR
	SELF=${SELF%/}/bornetest-confexec-$$
	CGDIR=$ORIG/bornetest-confexec-$$
	mkdir "$CGDIR" && echo $$ >"$CGDIR/cgroup.procs" || {
		echo "Bail out! cannot make a cgroup of this test's own: $CGDIR"
		exit 1
	}
	at_exit "echo \$\$ >'$ORIG/cgroup.procs'; rmdir '$CGDIR' 2>/dev/null"
fi
# NOCTL: a cgroup below ours whose leaf gets no controller: there memory
# and pids cannot be enforced on any host, so the refusals are shown on
# every host (cgprobe agrees, asserted below).  in_noctl CMD runs CMD there.
NOCTL=$CGDIR/t-confexec-noctl.$$
mkdir "$NOCTL" "$NOCTL/leaf" &&
	at_exit "rmdir '$NOCTL/leaf' '$NOCTL' 2>/dev/null"
in_noctl() {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh \
		"$NOCTL/leaf" "$@"
}
cg_list() {
	(cd "$CGDIR" && ls -1d borne-* "${NOCTL##*/}"/leaf/borne-*) \
		2>/dev/null | sort
}
# cg_same DESC: no borne- cgroup appeared since cg.before, other than
# those of confexec runs still alive (other test runs on the same machine
# share the cgroup2 root): a new one whose confexec is gone is a residue.
cg_same() {
	left=
	for c in $(comm -13 "$TMP/cg.before" "$TMP/cg.after"); do
		p=${c##*/}; p=${p#borne-}; p=${p%%-*}
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = confexec ]; then
			continue
		fi
		left="$left $c"
	done
	if [ -z "$left" ]; then pass "$1"; else
		fail "$1"; diag "left behind:$left"
	fi
}
cg_list >"$TMP/cg.before"

# ---- the two-layer proof ----------------------------------------------
t_exit 0 "tcp granted, no port: runs" cxp "socket tcp" -- "$E" tcp-udp 9
t_grep "connect to 127.0.0.1:9 refused by Landlock (EACCES)" \
	'^connect:EACCES' "$OUT"
t_grep "UDP refused earlier, at socket(), by seccomp (EPERM)" \
	'udp:EPERM$' "$OUT"
"$E" listen "$TMP/port" &
LPID=$!
at_exit "kill_ours $LPID 2>/dev/null"
wait_for test -s "$TMP/port"
PORT=$(cat "$TMP/port")
t_exit 0 "connect to a granted port" \
	cxp "socket tcp" "connect-tcp $PORT" -- "$E" connect "$PORT"
t_grep "granted port connects" '^OK$' "$OUT"
t_exit 0 "same port, not granted" cxp "socket tcp" -- "$E" connect "$PORT"
t_grep "ungranted listening port: EACCES" '^EACCES$' "$OUT"
t_exit 0 "bind without bind-tcp" cxp "socket tcp" -- "$E" bind 0
t_grep "bind to an ungranted port: EACCES" '^EACCES$' "$OUT"

# ---- filesystem --------------------------------------------------------
mkdir -p "$TMP/ro" "$TMP/rw" "$TMP/x" "$TMP/none"
echo data >"$TMP/ro/f"
echo secret >"$TMP/none/secret"
cp /bin/true "$TMP/ro/true"
cp /bin/true "$TMP/x/true"
cxfs_run() { # cxfs_run ESCAPE-ARGS...
	plan=$TMP/.plan
	( IFS='
'; set -- $(base) "ro $TMP/ro" "rw $TMP/rw" "rox $TMP/x" -- "$E" "$@"
	unset IFS; mkplan "$@" ) >"$plan"
	"$CX" <"$plan"
}
# fs_try WANT DESC ARGS...: cxfs_run ARGS prints WANT alone.
fs_try() {
	_fw=$1 _fd=$2
	shift 2
	cxfs_run "$@" >"$OUT" 2>"$ERR"
	t_grep "$_fd" "^$_fw\$" "$OUT"
}
# Writes beneath a ro rule meet the run's read-only mount view before
# Landlock (the mount's write check comes first): EROFS; outside every
# rule there is nothing (the view holds only what the plan names).
fs_try EROFS "write under --ro: EROFS (the mount view)" write "$TMP/ro/g"
fs_try ENOENT "write outside any rule: ENOENT (not in the view)" write "$TMP/none/g"
fs_try OK "write under --rw: OK" write "$TMP/rw/g"
ok "the file was written" test -f "$TMP/rw/g"
fs_try OK "mkdir under --rw: OK" mkdir "$TMP/rw/d"
fs_try EROFS "mkdir under --ro: EROFS" mkdir "$TMP/ro/d"
fs_try ENOENT "read outside any rule: ENOENT (not in the view)" read "$TMP/none/secret"
fs_try OK "read under --ro: OK" read "$TMP/ro/f"
fs_try EACCES "exec under --ro (no x right): EACCES" exec "$TMP/ro/true"
t_exit 0 "exec under --rox runs the program" cxfs_run exec "$TMP/x/true"
t_eq "and it printed nothing (exec replaced the helper)" "$(cat "$OUT")" ""

# Truncation at this ABI (>= 3) is Landlock's, behind the mount view
# (EROFS first): --ro files cannot be truncated by path, by O_TRUNC with
# any access mode, nor opened for writing; --rw files can.  (Below ABI 3 the seccomp program stands in:
# tests/unit/confexec-layers.c runs it at ABI 2 rights on this host,
# tests/vm/guest-tests.sh on Linux 6.1.)
cxfs_run truncate "$TMP/ro/f" >"$OUT" 2>"$ERR"
t_eq "truncate(2) under --ro: EROFS (the view, then Landlock)" \
	"$(cat "$OUT")" EROFS
cxfs_run open-trunc rdonly "$TMP/ro/f" >"$OUT" 2>"$ERR"
t_eq "O_RDONLY|O_TRUNC under --ro: EROFS (openat and open)" \
	"$(tr '\n' ' ' <"$OUT")" "openat:EROFS open:EROFS "
cxfs_run open-trunc 3 "$TMP/none/secret" >"$OUT" 2>"$ERR"
t_eq "access mode 3 with O_TRUNC outside every rule: EACCES" \
	"$(tr '\n' ' ' <"$OUT")" "openat:EACCES open:EACCES "
t_eq "the --ro and unruled files are intact" \
	"$(cat "$TMP/ro/f" "$TMP/none/secret")" "$(printf 'data\nsecret')"
echo mine >"$TMP/rw/t"
cxfs_run truncate "$TMP/rw/t" >"$OUT" 2>"$ERR"
t_eq "truncate(2) under --rw: OK at ABI >= 3" "$(cat "$OUT")" OK
echo mine >"$TMP/rw/t"
cxfs_run ftruncate "$TMP/rw/t" >"$OUT" 2>"$ERR"
t_eq "ftruncate on a --rw file opened for writing: OK" "$(cat "$OUT")" OK
t_eq "and it is empty" "$(wc -c <"$TMP/rw/t" | tr -d ' ')" 0
cxfs_run openat2 "$TMP/ro/f" >"$OUT" 2>"$ERR"
t_eq "openat2 answers ENOSYS (access mode 3 hides in its struct); libcs fall back to openat" \
	"$(cat "$OUT")" ENOSYS

echo single >"$TMP/none/one-file"
cxp "ro $TMP/none/one-file" -- "$E" read "$TMP/none/one-file" >"$OUT" 2>"$ERR"
t_eq "a rule on a single file (dir-only rights masked): read OK" \
	"$(cat "$OUT")" OK
cxp "ro $TMP/none/one-file" -- "$E" read "$TMP/none/secret" >"$OUT" 2>"$ERR"
t_eq "its sibling is not in the view: ENOENT" "$(cat "$OUT")" ENOENT
t_exit 0 "rlimits" cxp "rlimit nofile 64 128" "rlimit core 0 0" -- \
	/bin/cat /proc/self/limits
t_grep "RLIMIT_NOFILE applied" '^Max open files +64 +128 ' "$OUT"
t_grep "RLIMIT_CORE applied" '^Max core file size +0 +0 ' "$OUT"

# ---- always-denied syscalls (seccomp) -----------------------------------
deny() { # deny WANT DESC ESCAPE-ARGS...
	want=$1; desc=$2; shift 2
	cxp -- "$E" "$@" >"$OUT" 2>"$ERR"
	t_eq "$desc" "$(cat "$OUT")" "$want"
}
deny EPERM "ptrace: EPERM" ptrace
deny EPERM "process_vm_readv: EPERM" vmread
deny EPERM "process_vm_writev: EPERM" vmwrite
deny EPERM "pidfd_getfd: EPERM" pidfd_getfd
deny EPERM "unshare(CLONE_NEWUSER): EPERM" unshare 0x10000000
deny EPERM "unshare(0): EPERM (the call itself is denied)" unshare 0
deny EPERM "setns: EPERM" setns
deny EPERM "clone(CLONE_NEWUSER): EPERM" clone 0x10000000
deny EPERM "clone(CLONE_NEWNS): EPERM" clone 0x20000
deny EPERM "clone(CLONE_NEWNET): EPERM" clone 0x40000000
deny EPERM "clone(CLONE_NEWPID): EPERM" clone 0x20000000
deny OK "clone without namespace flags: allowed" clone 0
deny ENOSYS "clone3: ENOSYS" clone3
deny OK "pthread_create still works (libc falls back to clone)" pthread
deny EPERM "io_uring_setup: EPERM" io_uring
deny EPERM "bpf: EPERM" bpf
deny EPERM "mount: EPERM" mount
# i386 entry: when this kernel runs int 0x80 (the control returns), the
# filter must kill it with SIGSYS; when the kernel has the 32-bit entry
# disabled (ia32_emulation off: int 0x80 faults with SIGSEGV before any
# syscall, outside as inside), the filter is never reached and the test
# asserts that the payload still cannot make the call (tests/unit/
# confexec-layers.c runs the filter on an i386 record: KILL_PROCESS).
"$E" int80 >"$TMP/int80.out" 2>&1
if grep -q '^int80 returned' "$TMP/int80.out"; then
	t_exit 159 "i386 int 0x80: killed by SIGSYS (128+31)" cxp -- "$E" int80
else
	note "this kernel has no i386 entry (int 0x80 faults outside too)"
	t_exit 139 "i386 int 0x80: no 32-bit entry here, SIGSEGV (128+11)" \
		cxp -- "$E" int80
fi
t_eq "int 0x80 never returned" "$(cat "$OUT")" ""
# This kernel has no x32 ABI (the call would be ENOSYS without the filter,
# see the control below); the filter kills it before the kernel looks.
t_exit 159 "x32 syscall number: killed by SIGSYS" cxp -- "$E" x32
# Controls: the same probes outside confexec get other answers, so the
# answers above come from the boundary.
"$E" clone3 >"$OUT" 2>&1
t_eq "control: clone3 outside works" "$(cat "$OUT")" OK
"$E" io_uring >"$OUT" 2>&1
t_eq "control: io_uring_setup outside works" "$(cat "$OUT")" OK
# x32 outside: ENOSYS where the kernel has no x32 ABI (or it is off),
# OK where it runs it (the VM tier boots with syscall.x32=y); never killed.
"$E" x32 >"$OUT" 2>&1
x32=$?:$(cat "$OUT")
case $x32 in
0:ENOSYS | 0:OK) pass "control: x32 outside is not killed (${x32#*:})" ;;
*) fail "control: x32 outside is not killed"; diag "got exit:output $x32" ;;
esac

# ---- socket shapes -------------------------------------------------------
sock() { # sock WANT DESC GRANT ESCAPE-ARGS...
	want=$1; desc=$2; g=$3; shift 3
	if [ -n "$g" ]; then cxp "$g" -- "$E" "$@"
	else cxp -- "$E" "$@"; fi >"$OUT" 2>"$ERR"
	t_eq "$desc" "$(cat "$OUT")" "$want"
}
sock EPERM "AF_UNIX stream without --unix: EPERM" "" socket 1 1 0
sock EPERM "socketpair(AF_UNIX) without --unix: EPERM" "" socketpair 1 1 0
sock OK "AF_UNIX stream with --unix" "socket unix" socket 1 1 0
sock OK "AF_UNIX dgram with --unix" "socket unix" socket 1 2 0
sock OK "AF_UNIX seqpacket with --unix" "socket unix" socket 1 5 0
sock OK "socketpair(AF_UNIX) with --unix" "socket unix" socketpair 1 1 0
sock EPERM "AF_UNIX raw type with --unix: EPERM" "socket unix" socket 1 3 0
sock EPERM "TCP with only --unix: EPERM" "socket unix" socket 2 1 0
sock OK "TCP stream with --tcp" "socket tcp" socket 2 1 0
sock OK "TCP stream, IPPROTO_TCP, with --tcp" "socket tcp" socket 2 1 6
sock OK "TCP6 stream with --tcp" "socket tcp" socket 10 1 0
sock OK "SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC with --tcp" "socket tcp" \
	socket 2 0x80801 0
sock EPERM "raw IPv4 with --tcp: EPERM" "socket tcp" socket 2 3 1
sock EPERM "SCTP with --tcp: EPERM" "socket tcp" socket 2 1 132
sock EPERM "MPTCP with --tcp: EPERM" "socket tcp" socket 2 1 262
sock EPERM "UDP with --tcp: EPERM" "socket tcp" socket 2 2 0
sock EPERM "AF_PACKET with --tcp: EPERM" "socket tcp" socket 17 3 0
sock EPERM "AF_NETLINK with --tcp: EPERM" "socket tcp" socket 16 2 0
sock EPERM "AF_UNIX with --tcp: EPERM" "socket tcp" socket 1 1 0
sock OK "domain 0x100000002 is AF_INET to the kernel (low 32 bits)" \
	"socket tcp" socket 0x100000002 1 0
sock EPERM "domain 0x100000011 is AF_PACKET to the kernel: EPERM" \
	"socket tcp" socket 0x100000011 3 0
sock EPERM "protocol 0x100000084 is SCTP to the kernel: EPERM" \
	"socket tcp" socket 2 1 0x100000084

# ---- capabilities, no_new_privs, seccomp mode ----------------------------
t_exit 0 "status as root without a uid switch" cxp -- "$E" status
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
	t_grep "$f empty" "^$f:[[:space:]]+0000000000000000$" "$OUT"
done
t_grep "NoNewPrivs: 1" '^NoNewPrivs:[[:space:]]+1$' "$OUT"
t_grep "Seccomp: 2 (filter)" '^Seccomp:[[:space:]]+2$' "$OUT"
t_exit 0 "securebits" cxp -- "$E" securebits
# NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE and their locks, plus
# KEEP_CAPS_LOCKED: 0x1|0x2|0x4|0x8|0x20|0x40|0x80.
t_eq "securebits locked (0xef)" "$(cat "$OUT")" "securebits 0xef"

# ---- signals: default dispositions, the caller's mask --------------------
# The caller ignores and blocks every signal it can (sigign), libc's own
# 32 to 34 included, which signal(3) and sigprocmask(3) leave alone.
# confexec still reaps the run: an ignored SIGCHLD had the kernel reap
# init first, and confexec ended 125, "waitid: No child processes".  The
# payload starts with no signal ignored, and with the caller's mask.
CXIN=$HELP/sigign
t_exit 0 "a caller that ignores and blocks every signal: the run ends 0" \
	cxp -- "$E" status
CXIN=
t_grep "the payload ignores no signal, 32 to 34 included" \
	'^SigIgn:[[:space:]]+0000000000000000$' "$OUT"
t_grep "its mask is the caller's: all but SIGKILL and SIGSTOP" \
	'^SigBlk:[[:space:]]+fffffffffffbfeff$' "$OUT"

# ---- Landlock scopes (ABI 6+): no signal out of the domain --------------
sleep 30 &
SPID=$!
at_exit "kill_ours $SPID 2>/dev/null"
# The payload runs in its own pid namespace: a host pid names nothing
# there (ESRCH).  Its init (pid 1) is visible but outside the payload's
# Landlock domain: the scope answers EPERM (without it, pid 1 would
# silently ignore the signal: kill would return 0).
t_exit 0 "signal a host process by pid" cxp -- "$E" signal "$SPID"
t_eq "SIGTERM to a host pid: ESRCH (pid namespace)" "$(cat "$OUT")" ESRCH
ok "the outside process is alive" kill -0 "$SPID"
t_exit 0 "signal the run's init (pid 1)" cxp -- "$E" signal 1
t_eq "SIGTERM to init, outside the domain: EPERM from the scope" \
	"$(cat "$OUT")" EPERM
kill "$SPID" 2>/dev/null

# ---- uid/gid switch ------------------------------------------------------
# /etc/subuid and /etc/subgid are machine-wide: every test or bench that
# edits them takes this lock first (and restores them before releasing it).
if subid_lock; then pass "subid lock taken"; else fail "subid lock taken"; fi
cxp "uid 100123" "gid 100456" -- "$E" ids >"$OUT" 2>"$ERR"
t_eq "uid switch without subuid entries refused (125)" "$?" 125
t_grep "the refusal names /etc/subuid" 'subuid' "$ERR"
subid_add
t_exit 0 "uid switch with temporary subuid/subgid entries" \
	cxp "uid 100123" "gid 100456" -- "$E" ids
t_eq "getresuid/getresgid all equal, no supplementary groups" \
	"$(cat "$OUT")" "uid 100123 100123 100123 gid 100456 100456 100456 groups 0"
t_exit 0 "status after a uid switch" \
	cxp "uid 100123" "gid 100456" -- "$E" status
t_grep "CapBnd empty after a uid switch" '^CapBnd:[[:space:]]+0000000000000000$' "$OUT"
t_grep "CapPrm empty after a uid switch" '^CapPrm:[[:space:]]+0000000000000000$' "$OUT"
subid_restore
cxp "uid 100123" -- "$E" ids >"$OUT" 2>"$ERR"
t_eq "entries restored: refused again" "$?" 125
subid_unlock

# ---- descriptors, environment, prompt -----------------------------------
echo inherited >"$TMP/inh"
exec 7<"$TMP/inh"
t_exit 0 "fds with fd 7 inherited" cxp -- "$E" fds
t_eq "only 0 1 2 are open in the payload" "$(cat "$OUT")" "0 1 2 "
t_exit 0 "keep-fd 7" cxp "keep-fd 7" -- "$E" readfd 7
t_eq "a kept fd stays usable (outside the boundary, by design)" \
	"$(cat "$OUT")" inherited
exec 7<&-
cxp "keep-fd 7" -- "$E" fds >"$OUT" 2>"$ERR"
t_eq "keep-fd of a closed fd refused (125)" "$?" 125
t_grep "naming the fd" 'kept fd 7' "$ERR"
SECRET=leak; export SECRET
t_exit 0 "env" cxp "env A=1" "env B=two words" -- /usr/bin/env
printf 'A=1\nASAN_OPTIONS=detect_leaks=0:handle_segv=0\nB=two words\n' >"$TMP/env.want"
cp "$OUT" "$TMP/env.got"
ok "environment is exactly the allow-list" cmp -s "$TMP/env.got" "$TMP/env.want"
unset SECRET
printf 'the prompt \000 with a NUL\n' >"$TMP/prompt"
( IFS='
'; set -- $(base) -- /bin/cat; unset IFS
  mkplan_prompt "$TMP/prompt" "$@" ) >"$TMP/pp"
t_exit 0 "prompt plan runs /bin/cat" "$CX" <"$TMP/pp"
cp "$OUT" "$TMP/prompt.got"
ok "stdin carries the prompt, byte for byte" cmp -s "$TMP/prompt.got" "$TMP/prompt"
( IFS='
'; set -- $(base) -- "$E" stdin; unset IFS
  mkplan_prompt "$TMP/prompt" "$@" ) >"$TMP/pp"
t_exit 0 "prompt plan, stdin link" "$CX" <"$TMP/pp"
t_grep "stdin is a memfd, not a path" '^/memfd:borne-prompt' "$OUT"
( IFS='
'; set -- $(base) -- /bin/cat /proc/self/cmdline /proc/self/environ
  unset IFS; mkplan_prompt "$TMP/prompt" "$@" ) >"$TMP/pp"
"$CX" <"$TMP/pp" >"$TMP/ce" 2>"$ERR"
t_grep "cmdline and environ were read" 'ASAN_OPTIONS' "$TMP/ce"
ok "the prompt is not in cmdline or environ" sh -c \
	'! tr "\0" "\n" <"$1" | grep -q "the prompt"' sh "$TMP/ce"
# The device, not its name: the reopened /dev/null is on a detached clone
# of /dev's mount, whose name some kernels print as "/".
t_exit 0 "no prompt: stdin" cxp -- "$E" stdin-dev
t_eq "no prompt: stdin is /dev/null (char 1:3)" "$(cat "$OUT")" "char 1:3"

# ---- cgroup, tree kill ---------------------------------------------------
t_exit 0 "cgroup membership" cxp -- /bin/cat /proc/self/cgroup
t_grep "the payload runs in the run's cgroup" "^0::${SELF%/}/borne-[0-9]+-" "$OUT"
RUNCG=$(sed -n 's/^0:://p' "$OUT")
ok "that cgroup is gone after the run" test ! -e "$CG2$RUNCG"
t_exit 0 "payload leaves a setsid grandchild" \
	cxp "rw $TMP" -- "$E" grandchild "$TMP/gc.pid"
GC=$(cat "$TMP/gc.pid" 2>/dev/null || echo 0)
ok "grandchild pid recorded" test "$GC" -gt 1
ok "the grandchild was killed with the payload (its lock is free)" \
	flock -n "$TMP/gc.pid.lock" true
t_exit 124 "timeout: 124" cxp "rw $TMP" "timeout-ms 700" -- \
	"$E" grandchild-sleep "$TMP/gc2.pid"
GC=$(cat "$TMP/gc2.pid" 2>/dev/null || echo 0)
ok "grandchild pid recorded (timeout)" test "$GC" -gt 1
ok "the timeout killed the setsid grandchild (its lock is free)" \
	flock -n "$TMP/gc2.pid.lock" true
cg_list >"$TMP/cg.after"
cg_same "no borne- cgroup left behind"

# ---- sealed image, pinned digest -----------------------------------------
cp "$E" "$TMP/prog"
GOOD=$(sha256sum "$TMP/prog" | cut -d' ' -f1)
BAD=$(printf '%s' "$GOOD" | tr 0123456789abcdef 123456789abcdef0)
cxp "sha256 $BAD" "rw $TMP" -- "$TMP/prog" write "$TMP/marker" \
	>"$OUT" 2>"$ERR"
t_eq "wrong pinned digest: 125" "$?" 125
t_grep "the refusal names the digest" 'SHA-256 differs' "$ERR"
ok "the payload did not run (no marker)" test ! -e "$TMP/marker"
t_exit 0 "right pinned digest runs" cxp "sha256 $GOOD" "rw $TMP" -- \
	"$TMP/prog" write "$TMP/marker"
ok "marker written" test -e "$TMP/marker"
t_exit 0 "exe" cxp -- "$E" exe
t_grep "what executes is the sealed image (as root: the cached copy)" \
    '^(/memfd:borne-image|/var/cache/borne/images/[0-9a-f]{64})' "$OUT"

# ---- exit statuses ------------------------------------------------------
t_exit 7 "payload status passes through" cxp -- "$E" exit 7
t_exit 143 "killed by SIGTERM: 128+15" cxp -- "$E" kill 15
t_exit 137 "killed by SIGKILL: 128+9" cxp -- "$E" kill 9
cp /bin/true "$TMP/noexec"; chmod 644 "$TMP/noexec"
t_exit 126 "not executable: 126" cxp -- "$TMP/noexec"
printf '#!/bin/sh\necho hi\n' >"$TMP/script"; chmod 755 "$TMP/script"
t_exit 126 "#! script: 126" cxp -- "$TMP/script"
t_grep "with a clear message: what planenc does" \
	'scripts \(#!\) cannot run from a sealed image; planenc makes a #! PROGRAM.s interpreter the program' "$ERR"
t_exit 127 "missing program: 127" cxp -- "$TMP/does-not-exist"

# ---- memory and pids: enforced where cgprobe says the host can --------
# The payload reads the limit back from its own cgroup.
cglimit() { # cglimit FILE PLAN-LINE: a run printing its cgroup's FILE
	cxp "ro $CG2" "$2" -- /bin/sh -c \
		'/bin/cat "$1$(/bin/sed -n "s/^0:://p" /proc/self/cgroup)/$2"' \
		sh "$CG2" "$1"
}
for l in "memory memory-max 67108864 memory.max" "pids pids-max 64 pids.max"
do
	set -- $l
	if host_can "$1"; then
		t_exit 0 "strict $2 $3 (cgprobe: $1 enforceable): runs" \
			cglimit "$4" "$2 $3"
		t_eq "the payload's cgroup has $4 $3" "$(cat "$OUT")" "$3"
	else
		t_exit 125 "strict $2 $3 (cgprobe: $1 not enforceable): 125" \
			cxp "$2 $3" -- /bin/true
		t_grep "the refusal names the $1 layer" "refusing: $1" "$ERR"
	fi
done
# memory-max: no swap beyond it; cpu-max as asked.
if host_can memory; then
	t_exit 0 "memory-max: the payload reads its cgroup's memory.swap.max" \
		cglimit memory.swap.max "memory-max 67108864"
	t_eq "  0: no swap beyond memory.max" "$(cat "$OUT")" 0
fi
if host_can cpu; then
	t_exit 0 "cpu-max 50000 100000: the payload reads its cgroup's cpu.max" \
		cglimit cpu.max "cpu-max 50000 100000"
	t_eq "  the run's cgroup has cpu.max 50000 100000" "$(cat "$OUT")" \
		"50000 100000"
fi
if host_can pids; then
	cxp "pids-max 4" -- /bin/sh -c \
		'for i in 1 2 3 4 5 6; do /bin/sleep 5 & done; wait' \
		>"$OUT" 2>"$ERR"
	rc=$?
	t_eq "pids-max 4: the payload's shell fails" \
		"$([ "$rc" -ne 0 ] && echo failed)" failed
	t_grep "because fork failed (pids.max)" '[Ff]ork' "$ERR"
fi

# ---- refusals ------------------------------------------------------------
# In NOCTL, where no host can enforce memory or pids.
t_exit 1 "cgprobe in NOCTL: memory and pids not enforceable" \
	in_noctl "$BIN/cgprobe" --require memory,pids
cg_list >"$TMP/cg.before"
t_exit 125 "strict, memory limit, no memory controller: 125" \
	cxn "memory-max 67108864" -- /bin/true
t_grep "the refusal names the memory layer" 'refusing: memory' "$ERR"
t_exit 125 "strict, pids limit, no pids controller: 125" \
	cxn "pids-max 64" -- /bin/true
t_grep "the refusal names the pids layer" 'refusing: pids' "$ERR"
t_exit 125 "strict, memory and pids limits, neither controller: 125" \
	cxn "memory-max 67108864" "pids-max 64" -- /bin/true
t_eq "one line on stderr per missing layer" "$(wc -l <"$ERR" | tr -d ' ')" 2
t_grep "naming every missing layer: memory" \
	'^confexec: refusing: memory limit: ' "$ERR"
t_grep "then pids, the last line saying --degrade would run without them" \
	'^confexec: refusing: pids limit: .*\(use --degrade to run without them\)$' \
	"$ERR"
cg_list >"$TMP/cg.after"
cg_same "strict refusals created no cgroup"
t_exit 0 "degrade mode runs without the memory limit" \
	cxn "memory-max 67108864" "pids-max 64" "mode degrade" -- /bin/true
t_grep "with a WARNING naming memory" 'WARNING: running without memory' "$ERR"
t_grep "and one naming pids" 'WARNING: running without pids' "$ERR"
t_exit 125 "a --ro path missing at run time: 125" \
	cxp "ro $TMP/missing" -- /bin/true
t_grep "naming the path" "$TMP/missing" "$ERR"
t_exit 125 "garbage on stdin: 125" sh -c 'echo garbage | "$1"' sh "$CX"
t_exit 125 "empty stdin: 125" "$CX" </dev/null
t_grep "one clear line" '^confexec: refusing: plan' "$ERR"
cg_list >"$TMP/cg.after"
cg_same "no cgroup created by any refusal"
# Not even for a moment: no mkdir at all on these refusal paths.
for g in "memory-max 67108864" "ro $TMP/missing"; do
	( IFS='
'; set -- $(base) "$g" -- /bin/true; unset IFS; mkplan "$@" ) >"$TMP/nm"
	in_noctl strace -f -qq -e trace=mkdir,mkdirat -o "$TMP/strace" \
		"$CX" <"$TMP/nm" >/dev/null 2>&1
	t_nogrep "refusal ($g): no mkdir was even attempted" 'mkdir' \
		"$TMP/strace"
done
t_exit 125 "usage error: 125" "$CX" extra-arg
t_eq "usage error: the operand named, then the hint" "$(cat "$ERR")" \
    "confexec: unexpected operand: extra-arg (the plan comes on stdin)
try 'confexec --help'"
t_exit 125 "--reap with --dry-run: usage error, 125" "$CX" --reap --dry-run
t_eq "--reap with --dry-run: two lines on stderr" \
    "$(wc -l <"$ERR" | tr -d ' ')" 2

# Trust handoff: a docker socket on a private /run.
cat >"$TMP/handoff.sh" <<'EOF'
set -u
mount -t tmpfs tmpfs /run || exit 99
"$ESC" unix-bind /run/docker.sock >/dev/null || exit 98
"$@"
EOF
handoff() { ESC=$E unshare -m sh "$TMP/handoff.sh" "$@"; }
( IFS='
'; set -- $(base) "socket unix" -- /bin/true; unset IFS; mkplan "$@" ) >"$TMP/h1"
( IFS='
'; set -- $(base) "socket unix" "ack-daemon docker" -- /bin/true; unset IFS
  mkplan "$@" ) >"$TMP/h2"
( IFS='
'; set -- $(base) "socket unix" "mode degrade" -- /bin/true; unset IFS
  mkplan "$@" ) >"$TMP/h3"
t_exit 125 "unix granted, docker socket connectable: strict refuses" \
	handoff sh -c '"$1" <"$2"' sh "$CX" "$TMP/h1"
t_grep "naming docker" 'docker socket /run/docker.sock' "$ERR"
t_exit 0 "--ack-daemon docker runs" handoff sh -c '"$1" <"$2"' sh "$CX" "$TMP/h2"
t_exit 0 "degrade runs" handoff sh -c '"$1" <"$2"' sh "$CX" "$TMP/h3"
t_grep "with a warning naming docker" 'WARNING: .*docker' "$ERR"

# ---- dry run -------------------------------------------------------------
( IFS='
'; set -- $(base) -- /bin/true; unset IFS; mkplan "$@" ) >"$TMP/d1"
t_exit 0 "dry run of a runnable plan: 0" "$CX" --dry-run <"$TMP/d1"
t_grep "prints the plan" '"program": "/bin/true"' "$OUT"
t_grep "and the verdicts" '"verdict": "enforce"' "$OUT"
( IFS='
'; set -- $(base) "memory-max 67108864" -- /bin/true; unset IFS
  mkplan "$@" ) >"$TMP/d2"
t_exit 125 "dry run of a plan strict would refuse: 125" \
	in_noctl "$CX" --dry-run <"$TMP/d2"
t_grep "verdict refuse for memory" '"verdict": "refuse"' "$OUT"
( IFS='
'; set -- $(base) "memory-max 67108864" "pids-max 64" -- /bin/true; unset IFS
  mkplan "$@" ) >"$TMP/d3"
t_exit 125 "dry run, memory and pids missing: 125" \
	in_noctl "$CX" --dry-run <"$TMP/d3"
tr -d ' \n' <"$OUT" >"$TMP/d3.flat"
t_grep "dry run: memory refused" '"layer":"memory","verdict":"refuse"' \
	"$TMP/d3.flat"
t_grep "dry run: pids refused" '"layer":"pids","verdict":"refuse"' \
	"$TMP/d3.flat"
t_grep "dry run: landlock-truncate enforced by Landlock here (ABI >= 3)" \
	'"layer":"landlock-truncate","verdict":"enforce"' "$TMP/d3.flat"
t_grep "the dry run's warning names memory" \
	'strict mode would refuse: memory limit: ' "$ERR"
t_grep "and pids, one line each" 'strict mode would refuse: pids limit: ' \
	"$ERR"

# ---- cancel: SIGTERM to confexec ends the whole tree --------------------
( IFS='
'; set -- $(base) "rw $TMP" -- "$E" grandchild-sleep "$TMP/gc3.pid"
  unset IFS; mkplan "$@" ) >"$TMP/c1"
"$CX" <"$TMP/c1" >"$OUT" 2>"$ERR" &
CXPID=$!
at_exit "kill_ours $CXPID 2>/dev/null"
wait_for test -s "$TMP/gc3.pid"
GC=$(cat "$TMP/gc3.pid" 2>/dev/null || echo 0)
ok "payload and grandchild running (its lock is held)" \
	sh -c '! flock -n "$1" true' sh "$TMP/gc3.pid.lock"
kill -TERM "$CXPID"
wait "$CXPID"
t_eq "SIGTERM to confexec: exit 128+15" "$?" 143
t_grep "says it was cancelled" 'cancelled by signal 15' "$ERR"
ok "the grandchild was killed on cancel (its lock is free)" \
	flock -n "$TMP/gc3.pid.lock" true
cg_list >"$TMP/cg.after"
cg_same "no cgroup left after a cancel"

# ---- the real pipeline: planenc | confexec --------------------------------
if [ -x "$BIN/planenc" ]; then
	PE="$BIN/planenc $ROOTFS --ro /etc --ro /proc $ASANQ"
	t_exit 0 "planenc --tcp | confexec: two layers" sh -c \
		"$PE --tcp -- \"\$1\" tcp-udp 9 | \"\$2\"" sh "$E" "$CX"
	t_eq "pipeline: EACCES from Landlock, EPERM from seccomp" \
		"$(tr '\n' ' ' <"$OUT")" "connect:EACCES udp:EPERM "
	t_exit 124 "planenc --timeout 1s | confexec: 124" sh -c \
		"$PE --timeout 1s -- \"\$1\" sleep 10 | \"\$2\"" sh "$E" "$CX"
	t_exit 125 "planenc --memory-max | confexec (strict): 125" in_noctl sh -c \
		"$PE --memory-max 64M -- /bin/true | \"\$1\"" sh "$CX"
	t_exit 0 "planenc --degrade --memory-max | confexec: runs" in_noctl sh -c \
		"$PE --degrade --memory-max 64M -- /bin/true | \"\$1\"" sh "$CX"
	t_grep "with the warning" 'WARNING: running without memory' "$ERR"
else
	fail "planenc is not built"
fi

# ---- documented gaps, shown ---------------------------------------------
plan=$TMP/gap
# Read (not execute) on /bin/true wherever it lives; execute on the
# dynamic loader when there is one (a static /bin/true needs none).
gap=
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null)
[ -n "$LDSO" ] && [ -e "$LDSO" ] && gap="rox $LDSO"
TRUEDIR=$(dirname "$(readlink -f /bin/true)")
case $TRUEDIR in /usr | /usr/*) ;; *) gap="$gap${gap:+
}ro $TRUEDIR" ;; esac
( IFS='
'; set -- "ro /usr" "ro /lib" "ro /lib64" "follow /lib" "follow /lib64" \
	"ro /etc" "ro /proc" $gap \
	"env ASAN_OPTIONS=detect_leaks=0:handle_segv=0" -- "$E" exec /bin/true
  unset IFS; mkplan "$@" ) >"$plan"
"$CX" <"$plan" >"$OUT" 2>"$ERR"
t_eq "no --rox: exec of /bin/true refused (EACCES)" "$(cat "$OUT")" EACCES
sed 's/^arg exec$/arg memfd-exec/; /^arg \/bin\/true$/d' "$plan" >"$plan.2"
t_exit 0 "GAP: a memfd the payload fills itself executes anyway" \
	"$CX" <"$plan.2"
t_eq "(true ran from the memfd: no output)" "$(cat "$OUT")" ""

mkdir -p "$TMP/sockdir"
"$E" unix-listen "$TMP/sockdir/s" &
UPID=$!
at_exit "kill_ours $UPID 2>/dev/null"
wait_for test -S "$TMP/sockdir/s"
t_exit 0 "unix socket outside every rule, unix not granted" \
	cxp -- "$E" unix-connect "$TMP/sockdir/s"
t_eq "without --unix: no socket at all (EPERM)" "$(cat "$OUT")" "socket:EPERM"
t_exit 0 "unix granted" cxp "socket unix" -- "$E" unix-connect "$TMP/sockdir/s"
t_eq "with --unix, connect() to a pathname socket outside every rule: ENOENT (not in the view)" \
	"$(cat "$OUT")" ENOENT
kill "$UPID" 2>/dev/null

# ---- journal -------------------------------------------------------------
J=$TMP/runs.jnl
( IFS='
'; set -- $(base) -- /bin/true; unset IFS; mkplan "$@" ) >"$TMP/j1"
( IFS='
'; set -- $(base) "timeout-ms 1000" -- "$E" sleep 5; unset IFS
  mkplan "$@" ) >"$TMP/j2"
( IFS='
'; set -- $(base) "memory-max 67108864" -- /bin/true; unset IFS
  mkplan "$@" ) >"$TMP/j3"
t_exit 0 "journaled run" "$CX" --journal "$J" <"$TMP/j1"
t_exit 124 "journaled timeout" "$CX" --journal "$J" <"$TMP/j2"
# Its end by the run's own clock: not before the timeout, and well before
# a doubled or a 1 s later one (a loaded machine delays the kill and the
# reaping a little, never by a second).
t_within "  the 1 s timeout ended it after 1 s, before 1.7 s (the run's clock)" \
	"$(end_ms "$J")" 1000 1700
t_exit 125 "journaled refusal" in_noctl "$CX" --journal "$J" <"$TMP/j3"
t_eq "six records: a start/end pair per run" "$(wc -l <"$J" | tr -d ' ')" 6
t_eq "three starts" "$(grep -c '"event":"start"' "$J")" 3
t_eq "three ends" "$(grep -c '"event":"end"' "$J")" 3
t_grep "the timeout's end says so" '"exit":124.*"timeout":true' "$J"
t_grep "the refusal's end carries 125 and the reason" \
	'"exit":125.*"refused":"memory' "$J"
t_grep "start records the program digest" \
	'"program_sha256":"[0-9a-f]{64}"' "$J"
t_grep "end records cpu time" '"cpu_usec":"[0-9]+"' "$J"
# oom_kill comes from the run's memory.events.  Where cgprobe says memory
# can be enforced, a run pushed over memory.max must count its kill (null
# there is a failure); where not, there is no memory.events: null.
if host_can memory; then
	( IFS='
'; set -- $(base) "memory-max 16777216" "ro /dev/zero" "rw /dev/null" -- \
		/bin/dd if=/dev/zero of=/dev/null bs=64M count=1
	  unset IFS; mkplan "$@" ) >"$TMP/j8"
	t_exit 137 "memory-max 16M: dd of a 64 MiB buffer OOM-killed (137)" \
		"$CX" --journal "$TMP/oom.jnl" <"$TMP/j8"
	t_grep "its end record counts the OOM kill (>= 1, not null)" \
		'"event":"end".*"exit":137,.*"oom_kill":[1-9]' "$TMP/oom.jnl"
else
	t_grep "end records oom_kill null (no memory controller)" \
		'"event":"end".*"oom_kill":null' "$J"
fi
( IFS='
'; set -- $(base) "memory-max 67108864" "mode degrade" -- /bin/true; unset IFS
  mkplan "$@" ) >"$TMP/j4"
t_exit 0 "journaled degraded run" in_noctl "$CX" --journal "$J" <"$TMP/j4"
t_grep "the start record lists the degraded layer" \
	'"degraded":\["memory"\]' "$J"
t_grep "and carries the warning" '"warnings":\["running without memory' "$J"
( IFS='
'; set -- $(base) -- "$TMP/no-such-program"; unset IFS; mkplan "$@" ) >"$TMP/j5"
# Not a valid ELF image: the kernel refuses it only at the child's execveat.
printf '\177ELF\002\001\001\000' >"$TMP/bogus"
head -c 120 /dev/zero >>"$TMP/bogus"
chmod 755 "$TMP/bogus"
printf 'borne-plan 1\nprogram %s\narg %s\nro /\nmode strict\nend\n' \
	"$TMP/bogus" "$TMP/bogus" >"$TMP/j6"
t_exit 127 "journaled missing program" "$CX" --journal "$J" <"$TMP/j5"
t_exit 126 "journaled exec failure in the child (not a valid ELF image)" \
	"$CX" --journal "$J" <"$TMP/j6"
t_grep "which names the stage" 'child: execveat: Exec format error' "$ERR"
t_eq "a start/end pair for every run: 12 records" \
	"$(wc -l <"$J" | tr -d ' ')" 12
t_eq "six starts, six ends" \
	"$(grep -c '"event":"start"' "$J") $(grep -c '"event":"end"' "$J")" "6 6"
t_grep "the 127 end" '"exit":127.*"refused":"[^"]*no-such-program' "$J"
t_grep "the child failure end" '"exit":126.*"refused":"child: execveat' "$J"
if [ -x "$BIN/journalchain" ]; then
	t_exit 0 "journalchain verify accepts the journal" \
		"$BIN/journalchain" verify "$J"
else
	fail "journalchain is not built"
fi
t_exit 125 "strict: a journal that cannot be written refuses the run" \
	"$CX" --journal /proc/version <"$TMP/j1"
t_grep "naming the journal and the cause, in one line" '^confexec: refusing: journal /proc/version: start record: ' "$ERR"
( IFS='
'; set -- $(base) "rw $TMP/rw" "mode degrade" -- "$E" write \
	"$TMP/rw/degraded-ran"
  unset IFS; mkplan "$@" ) >"$TMP/j7"
t_exit 0 "degrade: an unwritable journal warns, the run goes on" \
	"$CX" --journal /proc/version <"$TMP/j7"
t_grep "the payload ran" '^OK$' "$OUT"


# ---- cgroup placement without clone3 ------------------------------------
# Where clone3 answers ENOSYS (a filter, as a container runtime's default
# profile), confexec uses clone, and the payload joins its cgroup itself
# before any other step (cgroup-join-before-exec in the records).
J2=$TMP/clone3.jnl
cg_list >"$TMP/cg.before"
( IFS='
'; set -- $(base) "rw $TMP/rw" -- /bin/sh -c 'cat /proc/self/cgroup'
  unset IFS; mkplan "$@" ) >"$TMP/j8"
t_exit 0 "clone3 failing (ENOSYS under a filter): runs with clone" \
	"$HELP/deny-clone3" "$CX" --journal "$J2" <"$TMP/j8"
CLCG=$(sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p' "$J2" | head -n 1)
t_grep "the payload ran in it" "^0::.*/${CLCG##*/}\$" "$OUT"
ok "the journal names the run's cgroup" test -n "$CLCG"
t_grep "the start record says how it was placed" \
	'"layers":\[[^]]*"cgroup-join-before-exec"' "$J2"
ok "that cgroup was removed" test ! -e "${CLCG:-/}"
cg_list >"$TMP/cg.after"
cg_same "no cgroup left by the run"

# ---- a dry run reaches the real run's verdict, and writes nothing ------------
# Each cause confexec can know before it creates anything: the same exit
# status as the real run, a line saying why, and no journal file made.
dry_same() {
	dsc=$1; shift
	"$BIN/planenc" "$@" >"$TMP/dry.plan" 2>/dev/null || { fail "$dsc: planenc"; return; }
	"$CX" --journal "$TMP/dry.jnl" <"$TMP/dry.plan" >/dev/null 2>&1
	real=$?
	rm -f "$TMP/dry.jnl"
	"$CX" --dry-run --journal "$TMP/dry.jnl" <"$TMP/dry.plan" >"$TMP/dry.out" 2>"$TMP/dry.err"
	t_eq "dry run, $dsc: the real run's status ($real)" "$?" "$real"
	t_eq "dry run, $dsc: would_run says the same" "$(jq .would_run "$TMP/dry.out")" \
	    "$([ "$real" -eq 0 ] && echo true || echo false)"
	if [ -e "$TMP/dry.jnl" ]; then fail "dry run, $dsc: nothing written"
	else pass "dry run, $dsc: nothing written"; fi
}
DRYSYS="--rox /usr --rox /lib --rox /lib64 --ro /etc"
dry_same "a runnable plan" $DRYSYS -- /bin/true
dry_same "a missing rule path" $DRYSYS --ro "$TMP/nonexistent" -- /bin/true
t_grep "  names the path" "ro $TMP/nonexistent: No such file" "$TMP/dry.err"
dry_same "a missing program" $DRYSYS -- "$TMP/nonexistent-prog"
dry_same "a program without execute permission" $DRYSYS -- /etc/passwd
# A dynamic program of this host (its ELF names an interpreter), granted
# its own directory only.
DYN=
for p in /usr/bin/true /bin/true "$(command -v jq)" "$(command -v strace)"; do
	[ -f "$p" ] && grep -q 'ld-linux' "$p" 2>/dev/null && DYN=$p && break
done
if [ -n "$DYN" ]; then
	dry_same "its interpreter outside the rules" --rox "$(dirname "$DYN")" -- "$DYN"
	# (126 unless its interpreter lies in that directory too, as where
	# a program is copied beside its loader: then both runs are 0.)
	[ "$real" -eq 126 ] && t_grep "  names the interpreter" \
	    "ELF interpreter .* not executable under the plan's rules" "$TMP/dry.err"
else
	skip "dry run, its interpreter outside the rules" "no dynamic program here"
fi
dry_same "a pin that differs" $DRYSYS \
	--sha256 0000000000000000000000000000000000000000000000000000000000000000 -- /bin/true
t_exit 125 "dry run: a journal that cannot be written refuses, as the run would" \
	sh -c '"$1" $2 -- /bin/true | "$3" --dry-run --journal "$4/no/such/dir/j"' sh \
	"$BIN/planenc" "$DRYSYS" "$CX" "$TMP"
t_grep "  and says so" "journal .*/no/such/dir/j cannot be written" "$ERR"

done_testing
