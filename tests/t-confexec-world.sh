#!/bin/sh
# The run's world made from the plan (confexec(1), THE VIEW): an empty
# root holding each rule's clone at its own path, bound from the
# descriptor the rule's walk opened (never by its name again), private,
# nosuid and nodev; what no rule names is not there.  Each point tried
# from inside and checked from the host side: a rule path swapped during
# launch by a host user and by another run's payload (and at the walk's
# bounds: a path near PATH_MAX among 201 rules), a root listener
# outside every rule, a host mount made during the run, /proc's controls,
# the run's mount table and every attribute of each of its mounts.
# Runs in a mount namespace of its own (its shared mount and tmpfs are
# never the host's).
if [ -z "${BORNE_WORLD_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
    command -v unshare >/dev/null 2>&1; then
	BORNE_WORLD_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

needs root landlock=6 cgroup2 setpriv python3 jq
[ -n "${BORNE_WORLD_NS:-}" ] || skip_all "needs unshare -m"

SW=$HELP/swapper
[ -x "$SW" ] || skip_all "no swapper helper (make helpers)"
SYS="$ROOTFS --rox $HELP"
# The sanitized helpers read /proc/self/maps and must stay quiet.
QUIET=
PROC="--ro /proc"
[ "$VARIANT" = asan ] && QUIET="--ro /proc" PROC=
QUIET="$QUIET $ASANQ"
chmod 711 "$TMP"	# a host user of the test's reaches its own tree
ROUNDS=40

# ---- 1. a rule path swapped during launch by a host user -----------------
# $T/own belongs to uid 65534, who exchanges its directory a with a link
# b to $V/vp, a root directory outside every rule holding job/f.  The plan
# grants --rw $T/own/a/job; each run's payload changes the mode and the
# times of f in its rule and says which directory its rule is.  A rule
# bound by its name again would have been $V/vp/job in some round.
# tree T V: the trees of one attack; JOB the rule directory's identity,
# H0 the outside file's mode and mtime, $TMP/p.swap the rounds' plan.
tree() {
	mkdir -p "$1/own/a/job" "$2/vp/job"
	echo own >"$1/own/a/job/f"
	echo host >"$2/vp/job/f"
	chmod 644 "$2/vp/job/f"
	touch -d @1000000000 "$2/vp/job/f"
	ln -s "$2/vp" "$1/own/b"
	JOB=$(stat -c %d:%i "$1/own/a/job")
	H0=$(stat -c '%a %Y' "$2/vp/job/f")
	"$PE" $SYS --rw "$1/own/a/job" $QUIET -- /bin/sh -c \
	    'chmod 0606 "$1/f" && touch -d @1 "$1/f"; stat -c %d:%i "$1"' sh \
	    "$1/own/a/job" >"$TMP/p.swap" || fail "planenc: the swap plan"
}
# rounds WHO V SWAPPER-PID: ROUNDS runs while the swapper swaps, each
# bound the rule's own directory or refused, then the swapper stopped and
# the outside file checked on the host.
rounds() {
	ran=0 refused=0 other=0 n=0
	while [ $n -lt $ROUNDS ]; do
		"$CX" <"$TMP/p.swap" >"$OUT" 2>"$ERR"
		case $?:$(tail -n 1 "$OUT") in
		0:"$JOB") ran=$((ran + 1)) ;;
		125:*) refused=$((refused + 1)) ;;
		*) other=$((other + 1)); diag_file "$ERR" ;;
		esac
		n=$((n + 1))
	done
	kill -TERM "$3" 2>/dev/null
	wait "$3" 2>/dev/null
	t_eq "$1 swapping: $ROUNDS rounds, each bound the rule's own directory or refused ($ran ran, $refused refused)" \
		"$other" 0
	ok "  some rounds ran (the swap let the walk through)" \
		test "$ran" -gt 0
	t_eq "  host side: the directory outside every rule unchanged (mode, mtime)" \
		"$(stat -c '%a %Y' "$2/vp/job/f")" "$H0"
}
T=$TMP/t
V=$TMP/v
tree "$T" "$V"
# host_swap T: T/own given to uid 65534 (but the file the payloads
# change), who swaps a and b there; its pid in $SWP.
host_swap() {
	chown -R 65534:65534 "$1/own"
	chown -h 65534:65534 "$1/own/b"
	chown 0:0 "$1/own/a/job/f"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SW" "$1/own" a b \
	    >/dev/null 2>&1 &
	SWP=$!
	at_exit "kill_ours $SWP"
}
host_swap "$T"
rounds "host user" "$V" "$SWP"

# ---- 2. the same swap by another run's payload -------------------------
# The swapper is a payload granted --rw over the parent; the plan of the
# rounds grants --rw over one directory beneath it.
T2=$TMP/t2
V2=$TMP/v2
tree "$T2" "$V2"
"$PE" $SYS --rw "$T2/own" $QUIET -- "$SW" "$T2/own" a b >"$TMP/p.swapper" ||
    fail "planenc: the swapper's plan"
"$CX" <"$TMP/p.swapper" >"$TMP/swap2.n" 2>&1 &
SWC=$!
at_exit "kill_ours $SWC"
# The swapper runs once a is seen as the link.
wait_for test -L "$T2/own/a" || fail "the other run's swapper runs"
rounds "another run" "$V2" "$SWC"

# ---- 2b. the same swap at the walk's bounds ----------------------------
# The rule path near PATH_MAX (some 90 components walked before the swapped
# one), beside 200 more rules, files of the swapped directory's parent:
# the walk reaches each from the directory it keeps for siblings.
T3=$TMP/t3
while [ ${#T3} -lt 3990 ]; do
	T3=$T3/0123456789012345678901234567890123456789
done
V3=$TMP/v3
tree "$T3" "$V3"
MANY=
i=0
while [ $i -lt 200 ]; do
	: >"$T3/own/r$i"
	MANY="$MANY --ro $T3/own/r$i"
	i=$((i + 1))
done
# shellcheck disable=SC2086
"$PE" $SYS --rw "$T3/own/a/job" $MANY $QUIET -- /bin/sh -c \
    'chmod 0606 "$1/f" && touch -d @1 "$1/f"; stat -c %d:%i "$1"' sh \
    "$T3/own/a/job" >"$TMP/p.swap" || fail "planenc: the deep swap plan"
host_swap "$T3"
rounds "host user, a rule path of $((${#T3} + 10)) bytes among 201 rules," \
	"$V3" "$SWP"

# ---- 3. a root daemon's socket outside every rule ----------------------
# connect(2) to a pathname socket needs no Landlock right before ABI 9: the
# view is what keeps it out of reach.  The listener counts what it accepts.
mkdir -p "$TMP/daemon"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(8)
open(sys.argv[2], "w").close()
n = 0
while True:
    c, _ = s.accept(); n += 1
    with open(sys.argv[3], "w") as f: f.write("%d\n" % n)
    c.close()' "$TMP/daemon/sock" "$TMP/daemon/ready" "$TMP/daemon/count" &
LP=$!
at_exit "kill_ours $LP"
wait_for test -e "$TMP/daemon/ready" || fail "the root listener is up"
"$PE" $SYS --unix $QUIET -- "$E" unix-connect "$TMP/daemon/sock" \
    >"$TMP/p.unix" || fail "planenc: the unix plan"
t_exit 0 "a --unix run connects to a root listener outside every rule" \
	"$CX" <"$TMP/p.unix"
t_eq "  ENOENT: the socket is not in the view" "$(cat "$OUT")" ENOENT
"$E" unix-connect "$TMP/daemon/sock" >/dev/null
wait_for test -s "$TMP/daemon/count"
t_eq "  host side: the listener accepted the host's own connection only" \
	"$(cat "$TMP/daemon/count")" 1

# ---- 4. what the host mounts during the run does not reach it ------------
# $S is a shared mount here; the run's clone of it is private: a tmpfs the
# host mounts beneath it while the run runs is not in the view, and what
# the payload writes at that path lands beneath the tmpfs, on $S's own
# directory.
S=$TMP/shared
mkdir -p "$S/sub"
mount --bind "$S" "$S" && mount --make-shared "$S" ||
	fail "a shared mount for the test"
at_exit "umount -l '$S' 2>/dev/null"
mkfifo "$S/go"
"$PE" $SYS --rw "$S" $QUIET -- /bin/sh -c ': >"$1/ready"; read x <"$1/go"
	echo inside >"$1/sub/marker" && chmod 0700 "$1/sub" && echo wrote' sh \
    "$S" >"$TMP/p.prop" || fail "planenc: the propagation plan"
"$CX" <"$TMP/p.prop" >"$TMP/prop.out" 2>"$TMP/prop.err" &
CP=$!
at_exit "kill_ours $CP"
wait_for test -e "$S/ready" || fail "the run is up"
mount -t tmpfs -o mode=755 tmpfs "$S/sub" || fail "the host's tmpfs"
echo go >"$S/go"
wait "$CP"
t_eq "a host mount made during the run: the run goes on (exit 0)" "$?" 0
t_eq "  it wrote at that path" "$(cat "$TMP/prop.out")" wrote
t_eq "  host side: the host's tmpfs got nothing, its root's mode unchanged" \
	"$(ls -A "$S/sub"; stat -c %a "$S/sub")" 755
umount "$S/sub"
t_eq "  host side: what it wrote is beneath, in the rule's own directory" \
	"$(cat "$S/sub/marker" 2>&1)" inside

# ---- 5. /proc: read-only, its host controls out of reach -----------------
t_exit 2 "planenc --rw /proc: refused" "$PE" --rw /proc -- /bin/true
t_grep "  naming why" "rw /proc: /proc and /sys are read-only in a run" "$ERR"
t_exit 2 "planenc --rwx /proc/sys: refused" "$PE" --rwx /proc/sys -- /bin/true
t_exit 2 "planenc --rw /sys/kernel: refused" "$PE" --rw /sys/kernel -- /bin/true
t_exit 2 "planenc --rw /dev/shm (a directory beneath /dev): refused" \
	"$PE" --rw /dev/shm -- /bin/true
t_grep "  naming why" "beneath /dev only a single device node" "$ERR"
# A plan written by hand: confexec decodes it by the same rules.
mkdir -p "$TMP/w"
"$PE" $SYS --rw "$TMP/w" -- /bin/true |
	sed "s|^rw $TMP/w\$|rw /proc|" >"$TMP/p.rwproc"
t_exit 125 "confexec, a plan with rw /proc: refused" "$CX" <"$TMP/p.rwproc"
t_grep "  naming it" "rw /proc" "$ERR"
CP0=$(cat /proc/sys/kernel/core_pattern)
# sysrq-trigger where the kernel has one, else another host control.
SQ=/proc/sysrq-trigger
[ -e "$SQ" ] || SQ=/proc/sys/vm/drop_caches
"$PE" $SYS $PROC $QUIET -- /bin/sh -c '"$0" write /proc/sys/kernel/core_pattern
	"$0" write "$1"' "$E" "$SQ" >"$TMP/p.proc" ||
	fail "planenc: the /proc plan"
t_exit 0 "--ro /proc: the payload writes /proc/sys/kernel/core_pattern and $SQ" \
	"$CX" <"$TMP/p.proc"
t_eq "  EROFS both (the run's procfs is read-only)" \
	"$(tr '\n' ' ' <"$OUT")" "EROFS EROFS "
t_eq "  host side: core_pattern unchanged" \
	"$(cat /proc/sys/kernel/core_pattern)" "$CP0"

# ---- 6. the run's mount table: the view, each attribute ----------------
# Every mount nosuid and nodev (a device node rule aside); read-only but
# the rw rules and the private tmp; /proc noexec and read-only; none
# shared with any other mount (no "shared:" or "master:" field); and no
# mount point but /, the rules' paths, /proc and the tmp.
# A --ro rule over a directory holding a mount of the host's (a tmpfs,
# writable there): its clone's attributes reach that mount too.
W=$TMP/w
R=$TMP/rec
mknod "$W/nulldev" c 1 3
mkdir -p "$R/sub"
mount -t tmpfs -o mode=755 tmpfs "$R/sub" || fail "a tmpfs beneath the --ro rule"
at_exit "umount -l '$R/sub' 2>/dev/null"
"$PE" $SYS --rw "$W" --ro "$R" --ro /etc --rw /dev/null $PROC --tmp $QUIET -- \
    /bin/sh -c 'cat /proc/self/mountinfo; echo "TMP $TMPDIR"
	"$0" write "$1/nulldev" | sed "s/^/NODEV /"
	"$0" write "$2/sub/f" | sed "s/^/SUBMOUNT /"
	chmod 0666 /dev/null 2>&1 | sed "s/^/DEVCHMOD /"' "$E" "$W" "$R" \
    >"$TMP/p.mi" || fail "planenc: the mountinfo plan"
t_exit 0 "a run lists its mount table" "$CX" <"$TMP/p.mi"
cp "$OUT" "$TMP/mi.out"
grep -v '^TMP \|^NODEV \|^SUBMOUNT \|^DEVCHMOD ' "$TMP/mi.out" >"$TMP/mi"
TD=$(sed -n 's/^TMP //p' "$TMP/mi.out")
# mountpoint options optional-fields - fstype: one line each
awk '{ o = ""; for (i = 7; $i != "-"; i++) o = o " " $i
	print $5, $6, o }' "$TMP/mi" >"$TMP/mi.f"
allowed=" / /proc $TD $W $R $R/sub /etc /dev/null $HELP /usr $(realpath /lib) $(realpath /lib64) "
# (and beneath /etc, the covers of its secrets: mountview.h)
t_eq "  every mount point is the root, a rule, /proc, the tmp or a cover in /etc" \
	"$([ -s "$TMP/mi.f" ] || echo "no mount table read"
	while read -r mp opts rest; do case $allowed in
		*" $mp "*) ;; *) case $mp in /etc/*) ;; *) echo "$mp" ;; esac ;;
		esac; done <"$TMP/mi.f")" ""
ok "  /proc, the tmp and the rw rule are there" sh -c \
	'grep -q "^/proc " "$1" && grep -q "^$2 " "$1" && grep -q "^$3 " "$1"' \
	sh "$TMP/mi.f" "$TD" "$W"
ok "  neither /run nor /sys nor /dev as a whole" sh -c \
	'! grep -Eq "^(/run|/sys|/dev) |^(/run|/sys)/" "$1"' sh "$TMP/mi.f"
t_eq "  nosuid: every mount" \
	"$(awk '$2 !~ /(^|,)nosuid(,|$)/ {print $1}' "$TMP/mi.f")" ""
t_eq "  nodev: every mount but the device node's" \
	"$(awk '$1 != "/dev/null" && $2 !~ /(^|,)nodev(,|$)/ {print $1}' "$TMP/mi.f")" ""
t_eq "  read-only: every mount but the rw rule and the tmp (a device node's too)" \
	"$(awk -v w="$W" -v t="$TD" '$1 != w && $1 != t &&
	    $2 !~ /^ro(,|$)/ {print $1}' "$TMP/mi.f")" ""
t_eq "  /proc: read-only, noexec" \
	"$(awk '$1 == "/proc" {print ($2 ~ /^ro,/) ($2 ~ /noexec/)}' "$TMP/mi.f")" 11
t_eq "  the view's own root: read-only, noexec" \
	"$(awk '$1 == "/" {print ($2 ~ /^ro,/) ($2 ~ /noexec/)}' "$TMP/mi.f")" 11
t_eq "  the host's mount beneath the --ro rule: there, read-only, nosuid, nodev" \
	"$(awk -v m="$R/sub" '$1 == m {print ($2 ~ /^ro,/) ($2 ~ /nosuid/) ($2 ~ /nodev/)}' "$TMP/mi.f")" 111
t_eq "  the tmp: mode 0700 (its super options)" \
	"$(awk -v t="$TD" '$5 == t {print $NF}' "$TMP/mi" | tr , '\n' | grep '^mode=')" mode=700
t_eq "  private: no mount shares events with another" \
	"$(grep -E ' (shared|master|propagate_from):' "$TMP/mi" | wc -l | tr -d ' ')" 0
t_eq "  a device node beneath the rw rule: EACCES (nodev)" \
	"$(sed -n 's/^NODEV //p' "$TMP/mi.out")" EACCES
t_eq "  host side: the node is still there, unchanged" \
	"$(stat -c '%F %t:%T' "$W/nulldev")" "character special file 1:3"
t_eq "  a write beneath the host's mount beneath the --ro rule: EROFS" \
	"$(sed -n 's/^SUBMOUNT //p' "$TMP/mi.out")" EROFS
t_eq "  host side: that tmpfs is still empty" "$(ls -A "$R/sub")" ""
t_grep "  chmod of the --rw device node: read-only file system" \
	'^DEVCHMOD .*Read-only file system' "$TMP/mi.out"

# The tmp's size: the plan's memory limit (without one, tmpfs's own
# default, which its options do not show); --degrade: the same where no
# memory controller enforces the limit itself.
"$PE" $SYS $PROC $QUIET --degrade --tmp --memory-max 64M -- /bin/sh -c \
    'grep " $TMPDIR " /proc/self/mountinfo' >"$TMP/p.tmpsz" ||
	fail "planenc: the tmp size plan"
t_exit 0 "--tmp --memory-max 64M: a run lists its tmp's mount" \
	"$CX" <"$TMP/p.tmpsz"
t_eq "  the tmp is 64 MiB (size=65536k)" \
	"$(awk '{print $NF}' "$OUT" | tr , '\n' | grep '^size=')" size=65536k

# A device node handed in as standard output: reopened off a read-only
# clone of its mount (its mode and owner stay the host's).
mknod "$TMP/outdev" c 1 3
chmod 0666 "$TMP/outdev"
"$PE" $SYS $PROC $QUIET -- /bin/sh -c 'chmod 0600 /proc/self/fd/1' \
    >"$TMP/p.hdev" || fail "planenc: the handed device plan"
"$CX" <"$TMP/p.hdev" >"$TMP/outdev" 2>"$TMP/hdev.err"
t_eq "a payload's chmod of its stdout, a device node of the host's: fails" \
	"$?" 1
t_grep "  read-only file system" 'Read-only file system' "$TMP/hdev.err"
t_eq "  host side: the node's mode unchanged" \
	"$(stat -c '%F %a' "$TMP/outdev")" "character special file 666"

# ---- 7. --timings: where a launch's time went ----------------------------
"$PE" $SYS $QUIET -- /bin/true >"$TMP/p.true" || fail "planenc: /bin/true"
t_exit 0 "--timings: a run of /bin/true" "$CX" --timings <"$TMP/p.true"
t_grep "  one line, every stage from the plan to the end record" \
	'^confexec: timings \(us\): plan [0-9]+ rules [0-9]+ cgroup [0-9]+ seal [0-9]+ view [0-9]+ privileged [0-9]+ start [0-9]+ clone [0-9]+ mount [0-9]+ landlock [0-9]+ seccomp [0-9]+ exec [0-9]+ run [0-9]+ end [0-9]+ total [0-9]+$' \
	"$ERR"
t_exit 0 "without it" "$CX" <"$TMP/p.true"
t_nogrep "  nothing said" 'timings' "$ERR"

done_testing
