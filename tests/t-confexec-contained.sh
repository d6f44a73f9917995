#!/bin/sh
# confexec where CI runs: inside a default container (root, the runtime's
# default capabilities without CAP_SYS_ADMIN, its default seccomp profile:
# clone3 ENOSYS, unshare, setns and clone with a namespace flag EPERM, no
# cgroup2), emulated by tests/helpers/contained, and inside another
# confexec run (a nested run).  Strict mode refuses with one line per
# missing layer naming what would provide it; --degrade runs with every
# layer the environment allows, each proven from inside by its errno, and
# the run's tree still ends with it (confexec a child subreaper).  A
# caller that is not root is advised a delegated child cgroup, never the
# cgroup2 root.
#
# The run's processes are found by a marker in their argv (a path under
# $TMP), never by program name: the machine is shared.
. "$(dirname "$0")/lib.sh"

needs root landlock=1 setpriv

C=$HELP/contained
[ -x "$C" ] || skip_all "no contained helper"
"$C" true 2>"$ERR" || skip_all "contained cannot run here: $(cat "$ERR")"
BASE="$ROOTFS --ro /etc --ro /proc --rox $HELP $ASANQ"
# In the container: confexec with the image cache off (CAP_LINUX_IMMUTABLE
# is not among a runtime's default capabilities, said on stderr).
ccx() { "$C" "$CX" --no-image-cache "$@"; }
D=$TMP/d
mkdir "$D" "$D/rw"
chmod 711 "$TMP"
echo secret >"$D/outside"

# alive MARK: how many processes have MARK in their argv (grep reads the
# marker from a file, so that its own argv does not hold it).
alive() {
	printf '%s\n' "$1" >"$TMP/.mark"
	grep -lsF -f "$TMP/.mark" /proc/[0-9]*/cmdline 2>/dev/null | wc -l |
		tr -d ' '
}
# refusals: the "confexec: refusing:" lines of $ERR.
refusals() { grep -c '^confexec: refusing: ' "$ERR"; }

# ---- cgprobe says what the container can do ------------------------------
t_exit 1 "cgprobe --require pid-namespace: 1 in the container" \
	"$C" "$BIN/cgprobe" --require pid-namespace
t_grep "naming the call and its provider" \
	'pid-namespace: not enforceable: clone with namespace flags: Operation not permitted \(needs CAP_SYS_ADMIN.*--cap-add SYS_ADMIN' \
	"$ERR"
t_exit 1 "cgprobe --require clone3: 1 (ENOSYS)" \
	"$C" "$BIN/cgprobe" --require clone3
t_grep "clone3: Function not implemented" \
	'clone3: not enforceable: clone3: Function not implemented' "$ERR"
t_exit 1 "cgprobe --require cgroup2: 1, naming --cgroupns=private" \
	"$C" "$BIN/cgprobe" --require cgroup2
t_grep "no cgroup2 mount, and what gives one" \
	'no cgroup2 mount in /proc/self/mountinfo \(.*--cgroupns=private' "$ERR"
t_exit 1 "cgprobe --require mount-namespace,ipc-namespace,net-namespace: 1" \
	"$C" "$BIN/cgprobe" --require mount-namespace,ipc-namespace,net-namespace
t_eq "one line each" "$(grep -c 'not enforceable' "$ERR")" 3
# The sysctls allow user namespaces here; the container's filter does not.
t_exit 1 "cgprobe --require userns: 1 (the filter refuses unshare(CLONE_NEWUSER))" \
	"$C" "$BIN/cgprobe" --require userns
t_grep "  naming the call, its errno and what would allow it" \
	'userns: not enforceable: unshare\(CLONE_NEWUSER\): Operation not permitted \(.*seccomp=unconfined' "$ERR"
t_exit 0 "cgprobe --require landlock,seccomp,no-new-privs,execveat,pidfd: 0" \
	"$C" "$BIN/cgprobe" --require landlock,seccomp,no-new-privs,execveat,pidfd
t_exit 0 "cgprobe key=value in the container" "$C" "$BIN/cgprobe"
for kv in namespace.pid=no namespace.mount=no namespace.ipc=no \
	namespace.net=no syscall.clone3=no cgroup2.mode=none \
	caller.cap_sys_admin=no; do
	t_grep "key=value: $kv" "^$kv\$" "$OUT"
done
t_grep "namespace.why names the provider" \
	'^namespace.why=clone with namespace flags: .*--cap-add SYS_ADMIN' "$OUT"
t_exit 0 "cgprobe --json in the container" "$C" "$BIN/cgprobe" --json
t_grep "JSON: namespace.pid false, syscall.clone3 false" \
	'"syscall.clone3":false.*"namespace.pid":false' "$OUT"
if host_can pid-namespace,clone3; then
	t_exit 0 "outside the container: --require pid-namespace,clone3: 0" \
		"$BIN/cgprobe" --require pid-namespace,clone3
else
	skip "outside the container: pid-namespace,clone3" "this host has neither"
fi

# ---- strict: refused, one line per missing layer, nothing made ------------
plan --rw "$D/rw" -- "$E" write "$D/rw/strict-ran" >"$TMP/p.strict"
J=$TMP/strict.jnl
t_exit 125 "strict in the container: 125" ccx --journal "$J" <"$TMP/p.strict"
t_eq "one line per missing layer: cgroup, pid-namespace, mount-view, ipc-namespace" \
	"$(sed -n 's/^confexec: refusing: \([a-z-]*\): .*/\1/p' "$ERR" |
		tr '\n' ' ')" "cgroup pid-namespace mount-view ipc-namespace "
t_eq "and nothing else on stderr" "$(wc -l <"$ERR" | tr -d ' ')" 4
t_grep "cgroup: no mount, provided by --cgroupns=private" \
	'^confexec: refusing: cgroup: no cgroup2 mount in /proc/self/mountinfo \(.*docker run --cgroupns=private' \
	"$ERR"
t_grep "pid-namespace: the call, EPERM, provided by --cap-add SYS_ADMIN" \
	'^confexec: refusing: pid-namespace: clone with namespace flags: Operation not permitted \(needs CAP_SYS_ADMIN.*docker run --cap-add SYS_ADMIN' \
	"$ERR"
t_eq "every line names what would provide it (docker run ...)" \
	"$(grep -c '^confexec: refusing: .*docker run --' "$ERR")" 4
t_grep "the last says --degrade would run without them" \
	'use --degrade to run without them\)$' "$ERR"
ok "the payload did not run" test ! -e "$D/rw/strict-ran"
t_grep "the journal's end record says why" \
	'"exit":125.*"refused":"cgroup: no cgroup2 mount' "$J"
t_grep "and its start record names the refused layers" \
	'"refused":\["cgroup","cgroup-kill","clone-into-cgroup","pid-namespace","mount-view","ipc-namespace"\]' \
	"$J"

# ---- degrade: runs with every layer the container allows ------------------
plan --degrade --rw "$D/rw" -- "$E" write "$D/rw/ran" >"$TMP/p.deg"
J=$TMP/degrade.jnl
t_exit 0 "degrade in the container: runs (0)" ccx --journal "$J" <"$TMP/p.deg"
t_eq "the payload ran" "$(cat "$OUT")" OK
for l in cgroup pid-namespace mount-view ipc-namespace; do
	t_grep "WARNING on stderr: running without $l" \
		"^confexec: WARNING: running without $l: " "$ERR"
done
t_grep "WARNING: the tree ends by confexec as subreaper" \
	'^confexec: WARNING: no cgroup and no pid namespace: confexec, a child subreaper' \
	"$ERR"
ok "and wrote inside its rw rule" test -e "$D/rw/ran"
ok "journal verifies" "$BIN/journalchain" verify "$J"
"$BIN/journalchain" show --json "$J" >"$TMP/show" 2>&1
t_grep "journalchain show: the start record names the degraded layers" \
	'"degraded":\["cgroup","cgroup-kill","clone-into-cgroup","pid-namespace","mount-view","ipc-namespace"\]' \
	"$TMP/show"
t_grep "and the warnings" '"warnings":\[.*running without pid-namespace: clone with namespace flags' \
	"$TMP/show"
t_grep "and the layers applied" \
	'"layers":\["landlock",.*"seccomp","seccomp-kill-process","no-new-privs","execveat","pidfd"' \
	"$TMP/show"

# Each layer that stays, proven from inside by the errno it answers.
cx() {
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	plan --degrade --rw "$D/rw" $opts -- "$@" >"$TMP/p.try" &&
		ccx <"$TMP/p.try"
}
A=$E
try EACCES "Landlock: a write outside the rules: EACCES" write "$D/outside"
t_eq "the host's file is unchanged" "$(cat "$D/outside")" secret
try OK "Landlock: a write inside --rw: OK" write "$D/rw/f"
try EPERM "seccomp: a UDP socket: EPERM" socket 2 2 0
try EPERM "seccomp: unshare(CLONE_NEWPID): EPERM" unshare 0x20000000
try EPERM "seccomp: clone with CLONE_NEWPID: EPERM" clone 0x20000000
try ENOSYS "seccomp: clone3: ENOSYS" clone3
if host_can landlock-tcp; then
	cx --tcp -- "$E" tcp-udp 9 >"$OUT" 2>"$ERR"
	t_eq "two layers: TCP connect EACCES (Landlock), UDP EPERM at socket (seccomp)" \
		"$(tr '\n' ' ' <"$OUT")" "connect:EACCES udp:EPERM "
else
	skip "Landlock TCP from inside" "no Landlock ABI 4"
fi
if host_can landlock-scope; then
	sleep 600 &
	OTHER=$!
	at_exit "kill_same $OTHER $(pid_start $OTHER)"
	try EPERM "Landlock signal scope (ABI 6): SIGTERM to a host process of its uid: EPERM" \
		signal "$OTHER"
	ok "that process lives" kill -0 "$OTHER"
else
	skip "Landlock signal scope from inside" "no Landlock ABI 6"
fi
cx -- "$E" readfd 5 5</etc/hostname >"$OUT" 2>"$ERR"
t_eq "a leaked descriptor is closed: EBADF" "$(cat "$OUT")" EBADF
cx -- "$E" status >"$OUT" 2>"$ERR"
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
	t_grep "capabilities dropped: $f empty" \
		"^$f:[[:space:]]+0000000000000000$" "$OUT"
done
t_grep "no_new_privs set" '^NoNewPrivs:[[:space:]]+1$' "$OUT"
t_grep "seccomp filter mode" '^Seccomp:[[:space:]]+2$' "$OUT"
cx -- "$E" exe >"$OUT" 2>"$ERR"
t_grep "the image executed is a sealed memfd" '^/memfd:' "$OUT"
cx --rlimit nofile=37 --rox /bin -- /bin/sh -c 'ulimit -n' >"$OUT" 2>"$ERR"
t_eq "rlimits applied (nofile 37)" "$(cat "$OUT")" 37

# daemon_gone WHAT: the run's setsid daemon ($M.pid, its start time in
# $M.pid.start) recorded and gone, its lock free, nothing of the run left.
daemon_gone() {
	P=$(cat "$M.pid" 2>/dev/null)
	S=$(cat "$M.pid.start" 2>/dev/null)
	ok "the daemon's pid and start time were recorded" test -n "$P" -a -n "$S"
	ok "$1 is gone (pid $P, start $S)" \
		test "$(pid_start "${P:-0}")" != "$S"
	ok "its lock is free" flock -n "$M.pid.lock" true
	t_eq "no process of the run is left" "$(alive "$M")" 0
}
# ---- the tree ends with the run, without a pid namespace -----------------
# The payload starts a setsid daemon (its child, which it leaves: an
# orphan, reparented to confexec), records its pid and start time, and
# exits: the run ends, and the daemon with it.
M=$D/rw/mk-exit
cx --rox /bin -- /bin/sh -c '"$0" grandchild "$1" &&
	p=$(cat "$1") && sed "s/.*) //" "/proc/$p/stat" | cut -d" " -f20 >"$1.start"' \
	"$E" "$M.pid" >"$OUT" 2>"$ERR"
t_eq "a payload that leaves a setsid daemon: confexec exits 0" "$?" 0
daemon_gone "that process"

# Orphans that end during the run are reaped then (no zombie of confexec
# holds a pid until the end): five orphans that exit at once, then, from
# inside, confexec's children counted until only the payload is left
# (bounded: 100 polls).  /dev/null: a background job's stdin.
cx --ro /dev/null --rox /bin -- /bin/sh -c 'for i in 1 2 3 4 5; do ( "$0" exit 0 & ); done
	i=0
	while [ $i -lt 100 ]; do
		n=$(cat /proc/$PPID/task/*/children | wc -w)
		[ "$n" -le 1 ] && break
		sleep 0.05; i=$((i + 1))
	done
	echo "$n"' "$E" >"$OUT" 2>"$ERR"
t_eq "orphans that ended are reaped during the run: confexec's one child left" \
	"$(cat "$OUT")" 1

# The same at a timeout: 124, and nothing of the run left.
M=$D/rw/mk-timeout
cx --timeout 3s --rox /bin -- /bin/sh -c '"$0" grandchild "$1" &&
	p=$(cat "$1") && sed "s/.*) //" "/proc/$p/stat" | cut -d" " -f20 >"$1.start" &&
	"$0" sleep 60' "$E" "$M.pid" >"$OUT" 2>"$ERR"
t_eq "timeout: 124" "$?" 124
t_grep "said" 'timed out after 3000 ms; the run.s tree was killed' "$ERR"
daemon_gone "the setsid daemon"

# confexec SIGKILLed mid-run: without a pid namespace the payload's own
# parent-death signal ends it (its descendants are not covered: they are
# the cgroup's or --reap's).  The payload, a shell, writes its pid and
# execs a sleep of the same pid; confexec, its parent, is killed.
M=$D/rw/pdeath
plan --degrade --rw "$D/rw" --rox /bin -- /bin/sh -c 'echo $$ >"$0.pid"
	exec /bin/sleep 600' "$M" >"$TMP/p.pd" || fail "planenc: pdeath"
ccx <"$TMP/p.pd" >/dev/null 2>&1 &
PDC=$!
at_exit "kill_ours $PDC"
# gone PID START: that process is no more.
gone() { [ "$(pid_start "$1")" != "$2" ]; }
if wait_for test -s "$M.pid"; then
	PP=$(cat "$M.pid")
	PS=$(pid_start "$PP")
	CXP=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$PP/status")
	ok "the payload runs, confexec its parent" \
		grep -q confexec "/proc/$CXP/cmdline"
	kill -KILL "$CXP"
	ok "confexec SIGKILLed: the payload is gone too (10 s at most)" \
		wait_for -t 10 gone "$PP" "$PS"
	kill_same -KILL "$PP" "$PS"
else
	fail "the payload wrote its pid"
fi
wait "$PDC" 2>/dev/null

# ---- nested: confexec as the payload of confexec -------------------------
# The outer run is this host's, every layer on; its payload (the inner
# confexec) has no capability, no_new_privs, a filter refusing
# namespaces and a seccomp listener, clone3 ENOSYS, a read-only view.
OUTER="--unix --ro /dev/null --rox $BIN --rw $D/rw"
nested() {
	mode=$1; shift
	plan $mode --rw "$D/rw" "$@" >"$TMP/p.inner" &&
	plan $OUTER --prompt-file "$TMP/p.inner" -- "$CX" --no-image-cache \
		>"$TMP/p.outer" &&
	"$CX" --no-image-cache <"$TMP/p.outer"
}
nested --degrade -- "$E" write "$D/rw/nested-ran" >"$OUT" 2>"$ERR"
t_eq "nested, degrade: runs (0)" "$?" 0
t_eq "the inner payload ran" "$(cat "$OUT")" OK
t_grep "the inner run says it runs without a pid namespace" \
	'^confexec: WARNING: running without pid-namespace: clone with namespace flags: Operation not permitted' \
	"$ERR"
t_grep "nor a seccomp listener (the outer filter refuses one)" \
	'^confexec: WARNING: running without seccomp-listener: ' "$ERR"
nested --degrade -- "$E" write "$D/outside" >"$OUT" 2>"$ERR"
t_grep "nested: a write outside both rule sets is refused" \
	'^(EACCES|EROFS)$' "$OUT"
t_eq "the host's file is unchanged" "$(cat "$D/outside")" secret
nested --degrade -- "$E" socket 2 2 0 >"$OUT" 2>"$ERR"
t_eq "nested: a UDP socket: EPERM" "$(cat "$OUT")" EPERM
nested --degrade -- "$E" status >"$OUT" 2>"$ERR"
t_grep "nested: two filters stacked" '^Seccomp_filters:[[:space:]]+[2-9]' "$OUT"
nested "" -- "$E" write "$D/rw/nested-strict" >"$OUT" 2>"$ERR"
t_eq "nested, strict: refused (the inner 125 is the outer's status)" "$?" 125
t_grep "saying why: the payload of a confexec run never makes namespaces" \
	'^confexec: refusing: pid-namespace: .*inside a confexec run, never.*nested confexec needs --degrade' \
	"$ERR"
t_grep "and the cgroup's reason" \
	'^confexec: refusing: cgroup: .*inside a confexec run.*it never is' "$ERR"
ok "the inner payload did not run" test ! -e "$D/rw/nested-strict"
# The outer plan must grant --unix: the inner confexec's listener
# channel is an AF_UNIX socketpair, which the outer filter refuses.
OUTER0=$OUTER
OUTER="--ro /dev/null --rox $BIN --rw $D/rw"
nested --degrade -- "$E" write "$D/rw/nested-nounix" >"$OUT" 2>"$ERR"
t_eq "nested, the outer plan without --unix: refused (125)" "$?" 125
t_grep "naming the grant the outer plan needs" \
	'^confexec: refusing: listener channel: socketpair\(AF_UNIX\): Operation not permitted \(.*outer plan to grant --unix\)$' \
	"$ERR"
ok "the inner payload did not run" test ! -e "$D/rw/nested-nounix"
OUTER=$OUTER0

# ---- not root: the advice is a delegated child cgroup --------------------
CG2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo |
	head -n 1)
plan -- /bin/true >"$D/p.nr"
chmod 644 "$D/p.nr"
if [ -z "$CG2" ]; then
	skip "not root: the delegation advice" "no cgroup2 mount"
elif setpriv --reuid=65534 --regid=65534 --clear-groups \
	test -w "$CG2$(sed -n 's/^0:://p' /proc/self/cgroup)"; then
	skip "not root: the delegation advice" "this cgroup is writable by nobody"
else
	t_exit 125 "not root, strict, no delegated cgroup: 125" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$CX" \
		<"$D/p.nr"
	t_grep "advice: a delegated systemd scope" \
		'^confexec: refusing: cgroup: uid 65534 cannot create a cgroup under .*systemd-run --user --scope -p Delegate=yes' \
		"$ERR"
	t_grep "or a child cgroup made by root: $CG2/borne-65534" \
		"mkdir $CG2/borne-65534, chown 65534 its directory and its cgroup.procs, cgroup.threads and cgroup.subtree_control" \
		"$ERR"
	t_nogrep "never the cgroup2 root" "chown [0-9]+ $CG2( |,|\\)|\$)" "$ERR"
	t_nogrep "nor chown -R" 'chown -R' "$ERR"
	# The advice followed, as root: a child cgroup of the cgroup2 root
	# (a name of this file's own: other runs share the machine, and a
	# borne-PID-... name is a run cgroup's, reaped by any confexec once
	# PID is gone), its directory and three files chowned, the caller's
	# shell moved in.
	DG=$CG2/bornetest-delegated-$$
	mkdir "$DG"
	at_exit "rmdir '$DG' 2>/dev/null"
	chown 65534 "$DG" "$DG/cgroup.procs" "$DG/cgroup.threads" \
	    "$DG/cgroup.subtree_control"
	plan -- /bin/cat /proc/self/cgroup >"$D/p.dg"
	chmod 644 "$D/p.dg"
	# (The sanitized build's leak checker cannot stop the threads of a
	# process in its own user namespace: off for confexec here.)
	t_exit 0 "not root, strict, in the delegated cgroup the advice names: runs" \
		sh -c 'echo $$ >"$1/cgroup.procs" && exec setpriv --reuid=65534 \
		    --regid=65534 --clear-groups env ASAN_OPTIONS=detect_leaks=0 \
		    "$2" <"$3"' sh "$DG" "$CX" "$D/p.dg"
	t_grep "the payload's cgroup is the run's, beneath the delegated one" \
		"^0::/${DG#"$CG2"/}/[^/]+\$" "$OUT"
	t_nogrep "no WARNING" 'WARNING' "$ERR"
	t_eq "the run's cgroup is gone after it: only the delegated one is left" \
		"$(find "$DG" -mindepth 1 -type d)" ""
	# (bounded: the caller's exit may not have left the cgroup yet)
	ok "and it can be removed" wait_for -t 10 rmdir "$DG"
fi

done_testing
