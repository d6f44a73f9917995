#!/bin/sh
# confexec: supervision that cannot be outlived.  The run's processes
# die with confexec (its pid namespace's init has a parent-death signal)
# and with confexec's caller (unless --outlive-caller); stale run cgroups
# are reaped, live ones never; every child stage and supervisor step
# fails once (tests/helpers/faultinj for the stages of init and the
# payload, strace -e inject for the supervisor's own calls); a caller
# that is not root runs in degrade mode and is told the fix in strict
# mode.
#
# The run's processes are found by a marker in their argv (a path under
# $TMP), never by program name; cgroups by confexec's pid or by the path
# the journal's start record names: the machine is shared.
. "$(dirname "$0")/lib.sh"
journal_dir

needs root landlock=1 cgroup2 strace setpriv

FI=$HELP/faultinj
BASE="$ROOTFS --ro /etc --ro /proc $ASANQ"

CG2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo |
	head -n 1)
SELF=$(sed -n 's/^0:://p' /proc/self/cgroup)
CGDIR=$CG2${SELF%/}
# The machine is shared, and so is the caller's cgroup: other runs of
# confexec reap stale run cgroups there, and other tests count what
# appears there.  This file runs in a cgroup of its own, so that the
# run cgroups it makes (stale ones included, on purpose) are its alone.
ORIG=$CGDIR
CGDIR=$ORIG/bornetest-supervise-$$
mkdir "$CGDIR" || skip_all "cannot create $CGDIR"
echo $$ >"$CGDIR/cgroup.procs"
at_exit "echo \$\$ >'$ORIG/cgroup.procs'; rmdir '$CGDIR'/* '$CGDIR' 2>/dev/null"

# alive MARK: how many processes have MARK in their argv (grep reads the
# marker from a file, so that its own argv does not hold it).
alive() {
	printf '%s\n' "$1" >"$TMP/.mark"
	grep -lsF -f "$TMP/.mark" /proc/[0-9]*/cmdline 2>/dev/null | wc -l |
		tr -d ' '
}
# run_cgroups PID: the run cgroups confexec PID made that still exist.
run_cgroups() { ls -d "$CGDIR"/borne-"$1"-* 2>/dev/null; }
# populated_cgroups PID: how many of them hold a process.
populated_cgroups() {
	n=0
	for c in $(run_cgroups "$1"); do
		grep -q '^populated 1' "$c/cgroup.events" 2>/dev/null &&
			n=$((n + 1))
	done
	echo $n
}
# wait_file FILE: until FILE has something (10 s at most).
wait_file() { wait_for -t 10 test -s "$1"; }
# gone MARK...: no process has any MARK in its argv.  A tree that must
# end is waited for with it (10 s at most), then counted.
gone() {
	for g in "$@"; do [ "$(alive "$g")" = 0 ] || return 1; done
}
# cgroup of the journal's start record (the last one).
jcg() { sed -n 's/.*"cgroup":"\([^"]*\)".*/\1/p' "$1" | tail -n 1; }
chmod 711 "$TMP"

# ---- the payload's place: pid 2 under init, its own session ----------
plan --rw /dev/tty -- "$E" session >"$TMP/p.sess"
t_exit 0 "session probe" "$CX" <"$TMP/p.sess"
t_eq "the payload leads its own session and has no terminal (ENXIO)" \
	"$(cat "$OUT")" "leader ENXIO"
if command -v script >/dev/null 2>&1; then
	script -qec "$CX <$TMP/p.sess" /dev/null >"$TMP/sess.tty" 2>&1
	t_grep "under a terminal too: leader, /dev/tty is ENXIO" \
		'^leader ENXIO' "$TMP/sess.tty"
	script -qec "$E session" /dev/null >"$TMP/sess.ctl" 2>&1
	t_grep "control: outside, that terminal opens (OK)" 'OK' "$TMP/sess.ctl"
else
	skip "under a terminal" "no script(1)"
	skip "control: outside, that terminal opens" "no script(1)"
fi
plan -- "$E" pid >"$TMP/p.pid"
t_exit 0 "pid probe" "$CX" <"$TMP/p.pid"
t_eq "the payload is pid 2 of its namespace; its parent is outside (0)" \
	"$(cat "$OUT")" "2 0"

# ---- confexec SIGKILLed during supervision: the tree dies with it ------
# kill_run PID RUNNING KILLED: once the run ($M) has written $M.pid, its
# payload and grandchild alive; PID SIGKILLed; then no process of the run
# (10 s at most).
kill_run() {
	wait_file "$M.pid"
	t_eq "$2" "$(alive "$M")" 2
	kill -KILL "$1"
	wait "$1" 2>/dev/null
	wait_for -t 10 gone "$M"
	t_eq "$3: no process of the run (10 s at most)" "$(alive "$M")" 0
}
M=$TMP/mk-die
plan --rw "$TMP" -- "$E" grandchild-sleep "$M.pid" >"$TMP/p.die"
"$CX" <"$TMP/p.die" >/dev/null 2>&1 &
CXPID=$!
kill_run "$CXPID" "payload and setsid grandchild running" \
	"SIGKILL of confexec"
t_eq "its cgroup holds nothing" "$(populated_cgroups "$CXPID")" 0
STALE=$CXPID

# ---- SIGKILL at random points of setup and supervision ----------------
ROUNDS=${KILL_ROUNDS:-30}
left=0
pop=0
pids=
r=0
while [ $r -lt "$ROUNDS" ]; do
	M=$TMP/mk-round-$r
	plan --rw "$TMP" -- "$E" grandchild-sleep "$M.pid" >"$TMP/p.round"
	"$CX" <"$TMP/p.round" >/dev/null 2>&1 &
	CXPID=$!
	pids="$pids $CXPID"
	# 0 to 39 ms: the clone happens within the first few.
	d=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40 ))
	sleep "0.0$(printf '%02d' "$d")"
	kill -KILL "$CXPID" 2>/dev/null
	wait "$CXPID" 2>/dev/null
	r=$((r + 1))
done
r=0
marks=
while [ $r -lt "$ROUNDS" ]; do marks="$marks $TMP/mk-round-$r"; r=$((r + 1)); done
# shellcheck disable=SC2086
wait_for -t 10 gone $marks
r=0
for p in $pids; do
	n=$(alive "$TMP/mk-round-$r")
	left=$((left + n))
	pop=$((pop + $(populated_cgroups "$p")))
	r=$((r + 1))
done
t_eq "$ROUNDS random SIGKILLs: no process of any run alive (10 s at most)" \
	"$left" 0
t_eq "$ROUNDS random SIGKILLs: no populated run cgroup" "$pop" 0

# ---- reaping -----------------------------------------------------------
# Live runs first: they must survive every reaper below.  Each writes in
# a directory of its own: a run refuses to start when a file beneath its
# rw rules changes while it looks for privileged files there (another
# run's pid file being written and renamed).
LIVE=
for i in 1 2 3; do
	mkdir "$TMP/mk-live-$i.d"
	plan --rw "$TMP/mk-live-$i.d" -- "$E" grandchild-sleep \
		"$TMP/mk-live-$i.d/pid" >"$TMP/p.live$i"
	"$CX" --outlive-caller <"$TMP/p.live$i" >/dev/null \
		2>"$TMP/live$i.err" &
	LIVE="$LIVE $!"
	at_exit "kill_ours $! 2>/dev/null"
done
for i in 1 2 3; do
	wait_file "$TMP/mk-live-$i.d/pid" || diag_file "$TMP/live$i.err"
done
# A stale cgroup of a dead supervisor with a process still inside (what
# an older confexec could leave): pid of a process that has exited, a
# start time that cannot be its.
sh -c 'exit 0' &
DEAD=$!
wait "$DEAD"
SC=$CGDIR/borne-$DEAD-t1-0
mkdir "$SC"
M=$TMP/mk-stale
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" grandchild-sleep "$3"' sh \
	"$SC" "$E" "$M.pid" &
at_exit "kill_ours $! 2>/dev/null; rmdir '$SC' 2>/dev/null"
wait_file "$M.pid"
t_eq "a stale populated cgroup with its processes" "$(alive "$M")" 2
# And an empty one (what a SIGKILLed confexec leaves; the runs since
# have reaped those of the rounds above at their start).
SE=$CGDIR/borne-$DEAD-t1-1
mkdir "$SE"
# An older name whose pid is alive (this shell): must stay.
OLDLIVE=$CGDIR/borne-$$-abc0
mkdir "$OLDLIVE"
at_exit "rmdir '$OLDLIVE' 2>/dev/null"
J=$JD/reap.jnl
t_exit 0 "confexec --reap" "$CX" --reap --journal "$J"
t_grep "lists the empty stale cgroup" "^reaped $SE\$" "$OUT"
t_grep "and the populated one, its processes killed" \
	"^reaped $SC \\(processes killed\\)\$" "$OUT"
ok "the stale cgroups are gone" sh -c '! ls -d "$1"/borne-"$2"-* "$3" "$4" \
	2>/dev/null' sh "$CGDIR" "$STALE" "$SC" "$SE"
t_eq "the stale cgroup's process was killed" "$(alive "$M")" 0
t_grep "journaled as a reaped residue" \
	"\"event\":\\{\"event\":\"reaped\",\"populated\":true,\"removed\":true,\"residue\":\"$SC\"" \
	"$J"
ok "an older name with a live pid is left alone" test -d "$OLDLIVE"
rmdir "$OLDLIVE"
n=0
for i in 1 2 3; do n=$((n + $(alive "$TMP/mk-live-$i"))); done
t_eq "the three live runs are untouched (six processes)" "$n" 6
n=0
for p in $LIVE; do [ -n "$(run_cgroups "$p")" ] && n=$((n + 1)); done
t_eq "and so are their cgroups" "$n" 3
left=
for p in $pids; do left="$left$(run_cgroups "$p")"; done
t_eq "after --reap no cgroup of the $ROUNDS killed runs is left" "$left" ""
# At start: a new stale cgroup is reaped by the next run.
sh -c 'exit 0' &
DEAD=$!
wait "$DEAD"
mkdir "$CGDIR/borne-$DEAD-t1-7"
plan -- /bin/true >"$TMP/p.true"
J=$JD/start.jnl
t_exit 0 "a run after a supervisor died" "$CX" --journal "$J" <"$TMP/p.true"
ok "it reaped the stale cgroup" test ! -e "$CGDIR/borne-$DEAD-t1-7"
t_grep "and journaled it" "\"residue\":\"$CGDIR/borne-$DEAD-t1-7\"" "$J"
n=0
for i in 1 2 3; do n=$((n + $(alive "$TMP/mk-live-$i"))); done
t_eq "the live runs are still untouched" "$n" 6
for p in $LIVE; do kill -TERM "$p"; done
for p in $LIVE; do wait "$p"; done
n=0
for i in 1 2 3; do n=$((n + $(alive "$TMP/mk-live-$i"))); done
t_eq "SIGTERM ended them" "$n" 0

# ---- the caller dies: the run is cancelled -----------------------------
M=$TMP/mk-caller
J=$JD/caller.jnl
plan --rw "$TMP" -- "$E" grandchild-sleep "$M.pid" >"$TMP/p.caller"
# The trailing command keeps sh from exec'ing confexec: sh is the caller.
sh -c '"$1" --journal "$2" <"$3"; echo done' sh "$CX" "$J" "$TMP/p.caller" \
	>/dev/null 2>&1 &
SH=$!
kill_run "$SH" "run started under a shell" "caller SIGKILLed"
t_grep "end record: cancelled by the parent, 129" \
	'"cancel":"parent",.*"exit":129' "$J"
C=$(jcg "$J")
ok "its cgroup was removed" test -n "$C" -a ! -e "$C"
M=$TMP/mk-outlive
plan --rw "$TMP" -- "$E" grandchild-sleep "$M.pid" >"$TMP/p.outlive"
sh -c '"$1" --outlive-caller <"$2"; echo done' sh "$CX" "$TMP/p.outlive" \
	>/dev/null 2>&1 &
SH=$!
wait_file "$M.pid"
CXO=$(pgrep -P "$SH" -x confexec)
at_exit "kill_same $CXO $(pid_start "$CXO")"
kill -KILL "$SH"
wait "$SH" 2>/dev/null
# Nothing happens to wait for: 1 s in which a cancel would have ended it.
sleep 1
t_eq "--outlive-caller: the run outlives its caller" "$(alive "$M")" 2
kill -TERM "$CXO"
wait_for -t 10 gone "$M"
t_eq "and ends when confexec is told to" "$(alive "$M")" 0

# ---- a run moved out of its cgroup is still ended ----------------------
M=$TMP/mk-moved
SIB=$CGDIR/bornetest-sib-$$
mkdir "$SIB"
at_exit "rmdir '$SIB' 2>/dev/null"
plan --rw "$TMP" --timeout 1500ms -- "$E" grandchild-sleep "$M.pid" \
	>"$TMP/p.moved"
"$CX" <"$TMP/p.moved" >"$OUT" 2>"$ERR" &
CXPID=$!
wait_file "$M.pid"
# Every process of the run's cgroup, as the host names them (the pid
# file holds the run's own pid: its /proc is its pid namespace's).
for p in $(cat $(run_cgroups "$CXPID" | sed 's,$,/cgroup.procs,')); do
	echo "$p" >"$SIB/cgroup.procs"
done
wait "$CXPID"
t_eq "moved to a sibling cgroup, the timeout still applies: 124" "$?" 124
t_grep "and says the run had left its cgroup" 'had left its cgroup' "$ERR"
t_eq "the timeout kill happened: no process of the run" "$(alive "$M")" 0
rmdir "$SIB"

# ---- a dry run writes nothing anywhere -----------------------------------
printf 'borne-plan 1\nprogram /bin/true\narg /bin/true\nro /\nuid 100123\ngid 100123\nmode strict\nend\n' \
	>"$TMP/p.dry"
# /etc/subuid is shared: under the lock of every test that edits it.
subid_lock
t_exit 125 "dry run of a plan refused for its uid: 125" \
	"$CX" --dry-run --journal "$JD/dry.jnl" <"$TMP/p.dry"
subid_unlock
t_grep "the dry run says why" 'strict mode would refuse: uid 100123' "$ERR"
ok "and journals nothing" test ! -e "$JD/dry.jnl"

# ---- rlimit nproc for a uid-0 payload ---------------------------------
plan --rlimit nproc=16 -- /bin/true >"$TMP/p.nproc"
t_exit 125 "strict: rlimit nproc for a uid-0 payload is refused" \
	"$CX" <"$TMP/p.nproc"
t_grep "naming why" \
	'^confexec: refusing: rlimit-nproc: the kernel does not enforce RLIMIT_NPROC for a uid-0 payload' \
	"$ERR"
plan --degrade --rlimit nproc=16 -- /bin/true >"$TMP/p.nproc2"
t_exit 0 "degrade: it runs" "$CX" <"$TMP/p.nproc2"
t_grep "loudly" 'WARNING: running without rlimit-nproc' "$ERR"

# ---- the caller's cgroup writable by another user ---------------------
OWN=$CGDIR/bornetest-owner-$$
mkdir "$OWN"
at_exit "rmdir '$OWN' 2>/dev/null"
chown 65534 "$OWN/cgroup.procs"
plan -- /bin/true >"$TMP/p.own"
plan --degrade -- /bin/true >"$TMP/p.own2"
inown() { sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" <"$3"' sh \
	"$OWN" "$CX" "$1"; }
t_exit 125 "strict: a parent cgroup another uid can write refuses" \
	inown "$TMP/p.own"
t_grep "naming the file and its owner" \
	"refusing: $OWN/cgroup.procs is writable by uid 65534" "$ERR"
t_exit 0 "degrade: it runs" inown "$TMP/p.own2"
# (a long path: the line is cut, the start record has it whole)
t_grep "with a warning, who first, in one line" \
	"^confexec: WARNING: uid 65534 can write $(printf %.40s "$OWN")" "$ERR"
# (the last run's cgroup is removed as its confexec ends)
wait_for -t 10 rmdir "$OWN"

# ---- every stage fails once ------------------------------------------
# Under the sanitizers: LeakSanitizer cannot run under ptrace (it says
# so and exits 1), and ASan warns on stderr when a child that runs on its
# own stack calls a noreturn function; neither is a confexec message.
if [ "$VARIANT" = asan ]; then
	ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
	export ASAN_OPTIONS
fi
lines() { grep -Evc '^(==[0-9]+==|False positive|For details)' "$1"; }
# fault DESC WANT STAGE-RE INJECTOR...: a run of the fault plan under
# INJECTOR exits WANT, prints exactly one line matching STAGE-RE, leaves
# no process and no cgroup, and journals an end record with that exit.
M=$TMP/mk-fault
# /etc's loader cache alone, not /etc: the view's idmapped /etc would
# have confexec fork for its id map first, and shift the processes the
# injectors count (1.1 init, 1.2 the payload).
FBASE=$(printf '%s\n' "$BASE" | sed 's|--ro /etc |--ro /etc/ld.so.cache |')
"$PE" $FBASE --rw "$TMP" --timeout 1s --rlimit nofile=64 -- "$E" \
	grandchild-sleep "$M.pid" >"$TMP/p.fault"
"$PE" $FBASE -- "$E" exit 0 >"$TMP/p.ok"
FP=$TMP/p.fault
CXOPT=
fault() {
	fd=$1; want=$2; re=$3; shift 3
	J=$JD/fault.jnl
	rm -f "$J" "$M.pid"
	# stderr through a pipe: a regular file handed in would have
	# confexec fork for its id map first, and shift the processes the
	# injectors count (1.1 init, 1.2 the payload).
	{ "$@" "$CX" $CXOPT --journal "$J" <"$FP" 2>&1 >/dev/null
	  echo $? >"$TMP/fault.rc"; } | cat >"$ERR"
	got=$(cat "$TMP/fault.rc")
	sleep 0.2
	t_eq "$fd: exit $want" "$got" "$want"
	t_eq "$fd: one line" "$(lines "$ERR")" 1
	t_grep "$fd: names the stage" "$re" "$ERR"
	t_eq "$fd: no process left" "$(alive "$M")" 0
	C=$(jcg "$J")
	ok "$fd: no cgroup left" test ! -e "${C:-/nonexistent}"
	t_grep "$fd: end record" "\"exit\":$want" "$J"
}
# fi_ DEPTH SYSCALL N ERRNO CMD...; st_ SYSCALL ERRNAME N CMD...
fi_() { d=$1 s=$2 n=$3 e=$4; shift 4; "$FI" "$d" "$s" "$n" "$e" -- "$@"; }
st_() {
	s=$1 e=$2 w=$3; shift 3
	strace -f -qq -o /dev/null -e trace="$s" \
		-e inject="$s:error=$e:when=$w" "$@"
}
# init is confexec's first child (1.1 under the tracer), the payload
# its second (1.2).
fault "init: parent-death signal" 125 'child: init: parent-death signal' \
	fi_ 1.1 prctl 1 1
fault "init: parent check" 125 'child: init: parent-death signal: Permission' \
	fi_ 1.1 open 1 13
fault "init: IPC namespace" 125 'child: init: IPC namespace: Invalid argument' \
	fi_ 1.1 unshare 1 22
fault "init: closing descriptors" 125 'child: init: closing descriptors' \
	fi_ 1.1 close_range 1 22
fault "init: signals" 125 'child: init: signals' fi_ 1.1 rt_sigaction 1 22
# the payload, before execveat
# Where the libc's own calls differ (musl, the static build: epoll_pwait
# for epoll_wait), the fault goes to the call the stage makes; the
# messages are strerror's, which differ in wording.  The cgroup check
# reads /proc/self/cgroup with openat(2) in both.
if [ "$VARIANT" = static ]; then
	C_EPWAIT=epoll_pwait
	E_NOMEM='Out of memory' E_IO='I/O error'
else
	C_EPWAIT=epoll_wait
	E_NOMEM='Cannot allocate memory' E_IO='Input/output error'
fi
fault "cgroup membership" 125 'child: cgroup membership' fi_ 1.2 openat 1 13
fault "setsid" 125 'child: setsid: Operation not permitted' \
	fi_ 1.2 setsid 1 1
fault "IPC namespace (joining init's)" 125 \
	'child: IPC namespace: Operation not permitted' fi_ 1.2 setns 1 1
fault "signals (a disposition)" 125 'child: signals: Invalid argument' \
	fi_ 1.2 rt_sigaction 1 22
fault "signals (the mask)" 125 'child: signals: Invalid argument' \
	fi_ 1.2 rt_sigprocmask 1 22
fault "securebits" 125 'child: securebits' fi_ 1.2 prctl:28 1 1
fault "bounding set" 125 'child: bounding set' fi_ 1.2 prctl:24 1 1
fault "stdin" 125 'child: stdin' fi_ 1.2 dup2 1 9
fault "closing descriptors" 125 'child: closing descriptors' \
	fi_ 1.2 close_range 1 22
fault "verifying descriptors" 125 'child: verifying descriptors' \
	fi_ 1.2 fstatfs 1 5
fault "rlimits" 125 'child: rlimits' fi_ 1.2 prlimit64 1 1
fault "dropping capabilities" 125 'child: dropping capabilities' \
	fi_ 1.2 capset 1 1
fault "no_new_privs" 125 'child: no_new_privs' fi_ 1.2 prctl:38 1 22
fault "landlock" 125 'child: landlock' fi_ 1.2 landlock_restrict_self 1 1
fault "seccomp" 125 "child: seccomp: $E_NOMEM" fi_ 1.2 seccomp 1 12
# the supervisor itself (strace: these calls are confexec's own)
fault "listener channel" 125 'refusing: listener channel' st_ socketpair EIO 1
fault "epoll" 125 'refusing: supervisor: epoll' st_ epoll_create1 EIO 1
fault "signalfd" 125 'refusing: supervisor: signalfd' st_ signalfd4 EIO 1
fault "timerfd" 125 'refusing: supervisor: timerfd' st_ timerfd_create EIO 1
fault "parent pidfd" 125 'refusing: supervisor: parent' st_ pidfd_open EIO 2
fault "cgroup mkdir" 125 'refusing: cgroup: mkdir' st_ mkdirat EIO 1
# (the memfd is what a launch seals when the image cache is not used)
CXOPT=--no-image-cache
fault "sealed image" 125 'memfd_create' st_ memfd_create EIO 1
CXOPT=
# (The probe's clone3 and setns come first: arguments the kernel rejects,
# to see whether a seccomp filter lets the calls through.)
fault "clone3 of init" 125 'refusing: clone3 \(pid namespace\)' \
	st_ clone3 EIO 2
fault "setns" 125 'refusing: setns \(pid namespace\)' st_ setns EIO 2
fault "clone3 of the payload" 125 'refusing: clone3 into' st_ clone3 EIO 3
fault "reading the report" 125 'child: reading its report' st_ recvmsg EIO 1
fault "event loop" 125 "epoll_wait: $E_IO" st_ "$C_EPWAIT" EIO 1
fault "reaping init" 125 "waitid: $E_IO" st_ waitid EIO 1
fault "cgroup.kill (the pidfd still ends the run)" 125 \
	"cgroup.kill .*: $E_IO" st_ pwrite64 EIO 1
# The end record itself: the payload succeeded, the record is not
# written, so the run does not report success.
J=$JD/end.jnl
st_ fdatasync EIO 2 "$CX" --journal "$J" <"$TMP/p.ok" >/dev/null 2>"$ERR"
t_eq "end record not written: 125 although the payload exited 0" "$?" 125
t_eq "end record: one line" "$(lines "$ERR")" 1
t_grep "end record: names it" 'journal .*: end record: cannot write' "$ERR"
t_eq "end record: the start record is there, alone" \
	"$(grep -c '"event":"start"' "$J") $(grep -c '"event":"end"' "$J")" "1 0"
C=$(jcg "$J")
ok "end record: no cgroup left" test ! -e "${C:-/nonexistent}"
# execveat fails on its own: the loader is not under a rox rule (a
# dynamic program from the host, whatever the build of the helpers).
printf 'borne-plan 1\nprogram %s\narg %s\nro /\nmode strict\nend\n' \
	/usr/bin/true true >"$TMP/p.exec"
FP=$TMP/p.exec
fault "execveat" 126 'child: execveat: Permission denied' env

# A plan with egress: the broker's network is made by confexec's first
# child (sharing its descriptors), init is the second, the payload the
# third, which joins that network before anything else is dropped.
"$PE" $FBASE --egress 192.0.2.1:80 --rw "$TMP" --timeout 1s -- "$E" \
	grandchild-sleep "$M.pid" >"$TMP/p.egress"
FP=$TMP/p.egress
fault "egress: the run's network" 125 \
	"refusing: egress: network namespace: $E_IO" \
	st_ clone3 EIO 2
fault "egress: the listener" 125 \
	'refusing: egress: network namespace: bind 127.0.0.1: Address (already )?in use' \
	fi_ 1.1 bind 1 98
# The payload's second setns (its first joins init's IPC namespace).
fault "payload: network namespace" 125 'child: network namespace' \
	fi_ 1.3 setns 2 1

# The uid/gid switch needs subordinate ids: /etc/subuid is shared, under
# the lock every test that edits it takes.
if subid_lock; then pass "subid lock taken"; else fail "subid lock taken"; fi
subid_add
"$PE" $FBASE --uid 100123 --gid 100456 -- "$E" exit 0 >"$TMP/p.uid"
FP=$TMP/p.uid
fault "uid/gid switch" 125 'child: uid/gid switch' fi_ 1.2 setgroups 1 1
subid_restore
subid_unlock

# ---- a caller that is not root -----------------------------------------
NB=$TMP/nb
mkdir "$NB"
chmod 777 "$NB"
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
plan --rw "$NB" -- "$E" status >"$NB/p.strict"
plan --degrade --rw "$NB" -- "$E" status >"$NB/p.status"
plan --degrade --rw "$NB" -- "$E" write "/tmp/borne-nb-$$" >"$NB/p.write"
plan --degrade --rw "$NB" -- "$E" grandchild-sleep "$NB/mk-nobody.pid" \
	>"$NB/p.tree"
chmod 644 "$NB"/p.*
if asnobody test -w "$CGDIR"; then
	skip "non-root refusal" "the caller's cgroup is delegated to nobody"
else
	t_exit 125 "not root, strict, no delegated cgroup: 125" \
		asnobody "$CX" <"$NB/p.strict"
	t_grep "the refusal names the fixes: root, or a delegated child cgroup" \
		"run as root, or from a cgroup delegated to uid 65534 that holds the caller: systemd-run --user --scope -p Delegate=yes COMMAND, or, as root, mkdir $CG2/borne-65534" \
		"$ERR"
	t_nogrep "never the chown of $CGDIR" "chown 65534 $CGDIR" "$ERR"
fi
t_exit 0 "not root, degrade: runs" asnobody "$CX" <"$NB/p.status"
t_grep "WARNING naming the cgroup it runs without" \
	'WARNING: running without cgroup: ' "$ERR"
t_grep "and the limits" 'WARNING: no cgroup: .*no memory, pids or cpu limit' \
	"$ERR"
t_grep "uid is the caller's (mapped)" '^Uid:[[:space:]]+65534[[:space:]]' "$OUT"
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
	t_grep "not root: $f empty" "^$f:[[:space:]]+0000000000000000$" "$OUT"
done
t_grep "not root: no_new_privs" '^NoNewPrivs:[[:space:]]+1$' "$OUT"
t_grep "not root: seccomp filter" '^Seccomp:[[:space:]]+2$' "$OUT"
# Its /proc is its pid namespace's: pid 2 (init is 1), one level.
t_grep "not root: its own pid namespace" '^NSpid:[[:space:]]+2$' "$OUT"
t_exit 0 "not root: write outside every rule" asnobody "$CX" <"$NB/p.write"
t_eq "the mount view says EROFS (in /tmp, which DAC would allow)" \
	"$(cat "$OUT")" EROFS
ok "nothing was written" test ! -e "/tmp/borne-nb-$$"
asnobody "$CX" <"$NB/p.tree" >/dev/null 2>&1 &
CXN=$!
wait_file "$NB/mk-nobody.pid"
t_eq "not root: payload and grandchild running" "$(alive "$NB/mk-nobody")" 2
kill -KILL "$CXN"
wait "$CXN" 2>/dev/null
wait_for -t 10 gone "$NB/mk-nobody"
t_eq "not root: SIGKILL of confexec ends the whole tree (pid namespace)" \
	"$(alive "$NB/mk-nobody")" 0
# The journal beside $NB: a rw rule of the plan must not reach it.
mkdir "$TMP/nbj"
chmod 777 "$TMP/nbj"
J=$TMP/nbj/userns.jnl
# Not -f: the probe's throwaway child makes its own unshare(CLONE_NEWUSER)
# (confexec(1), Mode selection); confexec's first is entering its own.
asnobody strace -qq -o /dev/null -e trace=unshare \
	-e inject=unshare:error=EPERM:when=1 "$CX" --journal "$J" \
	<"$NB/p.status" >/dev/null 2>"$ERR"
t_eq "not root: entering the user namespace failing: 125" "$?" 125
t_grep "names the step" 'refusing: user namespace: Operation not permitted' \
	"$ERR"
t_grep "end record" '"exit":125' "$J"

done_testing
