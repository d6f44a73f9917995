#!/bin/sh
# confexec's boundary line by line: for the lines tests/mutate.list breaks
# whose loss the other files do not see, the check that fails when that
# line alone is gone.  Refusals only a plan written by hand or a followed
# link reaches (rw on a /dev directory, into /sys or /proc through a
# link), rights one bit too wide (the private tmp or an ro rule
# executable, a bind port connectable), the way to a rule wider than the
# host's, a caller's capabilities, the run outliving confexec, a caller's
# cgroup others may write.  Each tried from inside (the payload
# tries it: the exact errno) and checked from the host where there is a
# host side.
. "$(dirname "$0")/lib.sh"

needs root landlock=6 cgroup2 setpriv flock
SYS="$ROOTFS --rox $HELP"
QUIET=
[ "$VARIANT" = asan ] && QUIET="--ro /proc"
QUIET="$QUIET $ASANQ"
mkdir -p "$TMP/w"
# CGSELF: this file's cgroup, where confexec makes a run's.
CG2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo |
	head -n 1)
CGSELF=$CG2$(sed -n 's/^0:://p' /proc/self/cgroup | sed 's,/$,,')
# run_kill PID: what is left of the run of confexec PID (a broken build's)
# killed through its cgroup, named after that pid.  ended PID: PID is gone
# or a zombie.
run_kill() {
	for _k in "$CGSELF"/borne-"$1"-*/cgroup.kill; do
		[ -e "$_k" ] && echo 1 >"$_k"
	done
	return 0
}
ended() {
	_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -z "$_st" ] || [ "$_st" = Z ]
}
# kids PID: PID's children as PID:START (a run's init is confexec's child,
# outside the run's cgroup); kids_kill LIST: each still the same process
# killed (what a broken build left).
kids() {
	for _c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		printf '%s:%s ' "$_c" "$(pid_start "$_c")"
	done
}
kids_kill() {
	for _c in $1; do kill_same -KILL "${_c%%:*}" "${_c#*:}"; done
}

# ---- the view's refusals, as confexec decodes a plan (mountview.c) -----
# handplan PATH: a plan granting rw PATH, written by hand (planenc refuses
# it itself); the payload would say it ran.
handplan() {
	"$PE" $SYS --rw "$TMP/w" $QUIET -- /bin/sh -c 'echo ran' |
	    sed "s|^rw $TMP/w\$|rw $1|"
}
# (/dev/pts: a directory of the host's devices, not sticky: nothing else
# refuses it)
handplan /dev/pts >"$TMP/p.devdir" || fail "planenc: the /dev plan"
t_exit 125 "a plan with rw /dev/pts (a /dev directory): refused" \
	"$CX" <"$TMP/p.devdir"
t_grep "  naming why" "rw /dev/pts: beneath /dev only single device nodes" \
	"$ERR"
t_nogrep "  the payload never ran" "^ran$" "$OUT"

# A rule whose path is a followed link into /sys or /proc: the plan's
# path is outside both, where the link leads is not.
ln -s /sys/kernel "$TMP/tosys"
ln -s /proc/sys "$TMP/toproc"
for l in sys proc; do
	"$PE" $SYS --rw "$TMP/to$l" --follow-symlinks "$TMP/to$l" $QUIET -- \
	    /bin/sh -c 'echo ran' >"$TMP/p.to$l" || fail "planenc: the $l plan"
	t_exit 125 "rw through a followed link into /$l: refused" \
		"$CX" <"$TMP/p.to$l"
	t_grep "  naming why" "/$l is read-only in the view" "$ERR"
	t_nogrep "  the payload never ran" "^ran$" "$OUT"
done

# ---- the private tmp: read, write, never execute (--tmp) ----------------
"$PE" $SYS --tmp $QUIET -- /bin/sh -c 'cp /usr/bin/true "$TMPDIR/t" &&
	chmod 755 "$TMPDIR/t" && "$0" exec "$TMPDIR/t"; "$0" write "$TMPDIR/w"' \
    "$HELP/escape" >"$TMP/p.tmpx" || fail "planenc: the tmp plan"
t_exit 0 "--tmp: the payload copies a program into its tmp" \
	"$CX" <"$TMP/p.tmpx"
t_eq "  writes there (OK), executes nothing there (EACCES)" \
	"$(tr '\n' ' ' <"$OUT")" "EACCES OK "
# Without a mount view (a run as a default container makes it,
# tests/helpers/contained: --degrade), the tmp is a host directory under a
# Landlock rule of its own: rw, not executable either.
sed 's/^mode strict$/mode degrade/' "$TMP/p.tmpx" >"$TMP/p.tmpxd"
t_exit 0 "--tmp in a contained run (no mount view)" \
	"$HELP/contained" "$CX" --no-image-cache <"$TMP/p.tmpxd"
t_eq "  writes there (OK), executes nothing there (EACCES)" \
	"$(tr '\n' ' ' <"$OUT")" "EACCES OK "

# ---- Landlock: ro reads, never executes ---------------------------------
# A script under an ro rule that would leave a mark on the host: the
# payload may read it, not execute it (the view's bind of an ro rule is
# not noexec: Landlock alone refuses).
mkdir -p "$TMP/robin"
printf '#!/bin/sh\n: >"%s/w/ran"\n' "$TMP" >"$TMP/robin/mark"
chmod 755 "$TMP/robin/mark"
"$PE" $SYS --ro "$TMP/robin" --rw "$TMP/w" $QUIET -- /bin/sh -c \
    '"$0" read "$1"; "$0" exec "$1"' "$E" "$TMP/robin/mark" >"$TMP/p.rox" ||
	fail "planenc: the ro plan"
t_exit 0 "a run with a script under an ro rule" "$CX" <"$TMP/p.rox"
t_eq "  reads it (OK), executes it not (EACCES)" "$(tr '\n' ' ' <"$OUT")" \
	"OK EACCES "
ok "  host side: the script left no mark" test ! -e "$TMP/w/ran"

# ---- Landlock's TCP rights: a bind port is no connect port --------------
# A host listener on port P; the plan may bind P and connect to port 9
# only: the payload's connect to P meets Landlock alone (the supervisor
# checks binds and listens, not connects).
"$E" listen "$TMP/port" &
LP=$!
at_exit "kill_ours $LP"
wait_for test -s "$TMP/port" || fail "the host listener is up"
P=$(cat "$TMP/port")
"$PE" $SYS --tcp --bind-tcp "$P" --connect-tcp 9 $QUIET -- /bin/sh -c \
    '"$0" connect "$1"' "$E" "$P" >"$TMP/p.tcp" || fail "planenc: the tcp plan"
t_exit 0 "a run that may bind port $P connects to it" "$CX" <"$TMP/p.tcp"
t_eq "  EACCES (a bind right is not a connect right)" "$(cat "$OUT")" EACCES
kill_ours "$LP"

# ---- the rule walk: a sibling's directory is its own (landlock.c) -------
# Two rules in directories whose names are as long as each other: the
# second's directory is walked again, never taken for the first's (that
# walk kept for siblings).  Each path shows its own file; rw lands on
# s2/f, s1/f stays ro.
mkdir -p "$TMP/s1" "$TMP/s2"
echo one >"$TMP/s1/f"
echo two >"$TMP/s2/f"
"$PE" $SYS --ro "$TMP/s1/f" --rw "$TMP/s2/f" $QUIET -- /bin/sh -c \
    'cat "$1/s1/f" "$1/s2/f"; echo new >"$1/s2/f" && echo wrote
	"$0" write "$1/s1/f"' "$E" "$TMP" >"$TMP/p.sib" ||
	fail "planenc: the siblings plan"
t_exit 0 "rules ro s1/f and rw s2/f" "$CX" <"$TMP/p.sib"
t_eq "  each path its own file; s2/f written, s1/f read-only (EROFS)" \
	"$(tr '\n' ' ' <"$OUT")" "one two wrote EROFS "
t_eq "  host side: s1/f unchanged, s2/f written" \
	"$(cat "$TMP/s1/f" "$TMP/s2/f" | tr '\n' ' ')" "one new "

# ---- the way to a rule: no wider than the host's (mv_tree.c) -----------
# The view makes the directories on the way to a rule with the host's
# mode and owner: a --uid payload searches them as it would on the host.
# $TMP/ways/root is root's, 0700: closed to uid $U (EACCES, on the host
# too); $TMP/ways/own is $U's, 0700: open to it.  A --uid must be in the
# caller's subordinate ranges: added while the machine-wide lock is held.
U=100123
if subid_lock; then pass "subid lock taken"; else fail "subid lock taken"; fi
subid_add
chmod 711 "$TMP"
mkdir -p "$TMP/ways/root/r" "$TMP/ways/own/r"
echo f >"$TMP/ways/root/r/f"
echo f >"$TMP/ways/own/r/f"
chmod 644 "$TMP/ways/root/r/f" "$TMP/ways/own/r/f"
chown $U:$U "$TMP/ways/own"
chmod 0700 "$TMP/ways/root" "$TMP/ways/own"
"$PE" $SYS --uid $U --gid $U --ro "$TMP/ways/root/r" \
    --ro "$TMP/ways/own/r" $QUIET -- /bin/sh -c '"$0" read "$1/root/r/f"
	"$0" read "$1/own/r/f"' "$E" "$TMP/ways" >"$TMP/p.ways" ||
	fail "planenc: the ways plan"
t_exit 0 "a uid-$U run with rules beneath 0700 directories" \
	"$CX" <"$TMP/p.ways"
t_eq "  beneath root's: EACCES; beneath its own: OK" \
	"$(tr '\n' ' ' <"$OUT")" "EACCES OK "
subid_restore
subid_unlock
t_eq "  host side: the same for uid $U there" \
	"$(setpriv --reuid $U --regid $U --clear-groups \
	    "$E" read "$TMP/ways/root/r/f"; setpriv --reuid $U \
	    --regid $U --clear-groups "$E" read "$TMP/ways/own/r/f")" \
	"EACCES
OK"

# ---- the payload's capabilities: none, whatever the caller's -----------
# A uid-0 payload execs with no file capabilities (securebits), but an
# ambient or inheritable capability of its caller's would survive the
# exec: the payload's sets are all cleared first.
"$PE" $SYS --ro /proc $ASANQ -- "$E" status >"$TMP/p.status" ||
	fail "planenc: the status plan"
t_exit 0 "a caller with cap_net_raw ambient and inheritable runs it" \
	setpriv --inh-caps +net_raw --ambient-caps +net_raw "$CX" \
	<"$TMP/p.status"
t_eq "  the payload's capability sets: all empty" \
	"$(sed -n 's/^Cap\(Inh\|Prm\|Eff\|Bnd\|Amb\):[[:space:]]*//p' "$OUT" |
	    tr '\n' ' ')" \
	"0000000000000000 0000000000000000 0000000000000000 0000000000000000 0000000000000000 "

# ---- confexec killed: the run's pid namespace ends with it (child.c) ----
# The run's init dies with confexec (its parent-death signal), and with it
# every process of its pid namespace: a setsid grandchild holding a lock
# on the host lets it go.
"$PE" $SYS --rw "$TMP/w" $QUIET -- "$E" grandchild-sleep "$TMP/w/gc.pid" \
    >"$TMP/p.gc" || fail "planenc: the grandchild plan"
# gc_run ERR: confexec runs the grandchild plan in the background (CP,
# stderr to ERR); 0 once the grandchild is up, else the failure said.
gc_run() {
	rm -f "$TMP/w/gc.pid"
	"$CX" <"$TMP/p.gc" >/dev/null 2>"$1" &
	CP=$!
	at_exit "kill_ours -KILL $CP; run_kill $CP"
	wait_for test -s "$TMP/w/gc.pid" && return 0
	fail "the grandchild is up"
	diag_file "$1"
	return 1
}
# gc_let_go DESC: the grandchild's lock is let go on the host (it ended).
gc_let_go() {
	ok "$1" wait_for -t 20 flock -n "$TMP/w/gc.pid.lock" true
}
if gc_run "$TMP/gc.err"; then
	K=$(kids "$CP")
	kill -KILL "$CP"
	wait "$CP" 2>/dev/null
	gc_let_go "confexec SIGKILLed: host side, the grandchild's lock is let go"
	run_kill "$CP"
	kids_kill "$K"
fi

# ---- a run moved out of its cgroup still ends with it (end.c) -----------
# Root moves every process of a run out of its cgroup (as a user who may
# write its parent could): cgroup.kill then reaches none of them; the
# kill of the run's init, which ends its pid namespace, reaches all.
OUTCG=$CGSELF/bornetest-out-$$
mkdir "$OUTCG" || fail "a cgroup of this file's own: $OUTCG"
at_exit "echo 1 >'$OUTCG/cgroup.kill' 2>/dev/null; wait_for -t 10 grep -q '^populated 0' '$OUTCG/cgroup.events'; rmdir '$OUTCG' 2>/dev/null"
if gc_run "$TMP/out.err"; then
	RCG=$(echo "$CGSELF"/borne-$CP-*)
	for p in $(cat "$RCG/cgroup.procs"); do
		echo "$p" >"$OUTCG/cgroup.procs"
	done
	t_eq "host side: every process of the run moved out of its cgroup" \
		"$(cat "$RCG/cgroup.procs")" ""
	K=$(kids "$CP")
	kill -TERM "$CP"
	gc_let_go "  host side: the grandchild's lock is let go all the same"
	ok "  confexec, cancelled, ends" wait_for -t 20 ended "$CP"
	# (what a broken build left: freed, then confexec reaps it and ends)
	echo 1 >"$OUTCG/cgroup.kill"
	wait "$CP"
	kids_kill "$K"
	t_grep "  it said the run had left its cgroup" \
		"the run had left its cgroup $RCG" "$TMP/out.err"
fi

# ---- stderr never waited on once the run starts (say.c) ----------------
# stderr a pipe whose reader does not drain it, full: confexec's lines
# from its start on (while the payload runs and after) are dropped, never
# waited on.  Signals are blocked then: a confexec stuck in write(2) takes
# no SIGTERM and keeps the run past its timeout.
mkfifo "$TMP/full"
exec 4<>"$TMP/full"
dd if=/dev/zero of="$TMP/full" bs=4096 count=1024 oflag=nonblock 2>/dev/null
t_exit 1 "stderr a pipe nobody drains, full: one more byte would wait" \
	dd if=/dev/zero of="$TMP/full" bs=1 count=1 oflag=nonblock
# to_full PLAN: confexec runs PLAN, its stderr (its own, not the
# shell's, which would say it was killed) the full pipe; a status of its
# own, or 137 (killed) when it hangs.
to_full() {
	timeout --preserve-status -k 5 30 \
	    sh -c 'exec "$0" <"$1" 2>"$2"' "$CX" "$1" "$TMP/full"
}
"$PE" $SYS $QUIET -- /bin/sh -c 'exit 3' >"$TMP/p.exit3" ||
	fail "planenc: the exit 3 plan"
t_exit 3 "  a payload that fails: confexec ends with its status (its hint dropped)" \
	to_full "$TMP/p.exit3"
"$PE" $SYS --rw "$TMP/w" $QUIET --timeout 1s -- "$E" grandchild-sleep \
    "$TMP/w/gc.pid" >"$TMP/p.gct" || fail "planenc: the timed plan"
rm -f "$TMP/w/gc.pid"
t_exit 124 "  a run past its timeout: ended (124)" \
	to_full "$TMP/p.gct"
ok "  its grandchild had started" test -s "$TMP/w/gc.pid"
gc_let_go "  host side: the grandchild's lock is let go"
rm -f "$TMP/w/gc.pid"
"$CX" <"$TMP/p.gc" >/dev/null 2>"$TMP/full" &
CP=$!
at_exit "kill_ours -KILL $CP; run_kill $CP"
if ok "  a run under way" wait_for test -s "$TMP/w/gc.pid"; then
	kill -TERM "$CP"
	ok "  SIGTERM: confexec, cancelled, ends" wait_for -t 20 ended "$CP"
	gc_let_go "  host side: the grandchild's lock is let go"
fi
kill_ours -KILL "$CP" 2>/dev/null
wait "$CP" 2>/dev/null
exec 4>&-

# ---- the caller's cgroup: no other writer (layers.c) --------------------
# The run's cgroup is made in its caller's; a caller's cgroup that others
# may write lets them move the payload out of the run's (away from its
# limits and its kill): strict refuses before making anything.
CGD=$CGSELF/bornetest-lines-$$
mkdir "$CGD" || fail "a cgroup of this file's own: $CGD"
at_exit "rmdir '$CGD'/* '$CGD' 2>/dev/null"
chmod 0775 "$CGD"
t_exit 125 "confexec in a cgroup its group may write: refused" \
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGD" "$CX" \
	<"$TMP/p.status"
t_grep "  naming it" "^confexec: refusing: .*$CGD is writable by uid 0 \(and others\)" \
	"$ERR"
t_eq "  host side: no run cgroup was made in it" \
	"$(find "$CGD" -mindepth 1 -maxdepth 1 -type d | wc -l | tr -d ' ')" 0

done_testing
