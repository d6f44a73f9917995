#!/bin/sh
# bench/confexec.sh: the cost of confexec's full boundary, side by side.
#
# Groups of commands, each group measured in ROUNDS rounds (order rotated
# each round), RUNS runs per command per round, medians over all runs,
# then ratios to the group's first command:
#   launch   /bin/true bare; the static vfork+exec floor (bench/floor.c,
#            the least any supervisor that is its own binary costs),
#            linked with glibc and, when built, with musl (FLOOR-musl:
#            the floor of the static confexec, a musl binary);
#            confexec, dynamic and static builds (STATIC_BIN, default the
#            musl build .build/static/bin; left out when missing), the
#            static one also without the image cache; confexec --control
#            (the socket made, served by the loop, removed; no client);
#            the static one with four rules instead of the system preset
#            (ratio printed), and BASE_BIN's confexec (another build, an
#            earlier commit's) beside it when set; bwrap --unshare-all
#            (ratio of the static confexec to it printed)
#   large    gcc's cc1 (33 MB; CC1, default `gcc -print-prog-name=cc1`)
#            bare, and under confexec: first launch (a fresh image cache
#            before every run: copy, hash, fill) and cached (a hit)
#   metadata tar x -p of NFILES files in directories of 100 (directory
#            entries, modes, times, owner) into a --rw directory, the
#            caller root and no uid switch (chmod, chown and utimensat
#            the kernel's own, in confexec's mount view where the
#            directory is the one writable mount; the mode checked by the
#            filter), against the same tar x bare and under bwrap
#            --unshare-all (/ bound read-only, the directory read-write,
#            its own /dev and /proc); MRUNS runs per command per round
#   explain  grep -r -l over /usr/include (every file opened: a path call
#            each), bare, under confexec --no-denials (no observer),
#            under confexec (the default observer: writes and execs only,
#            read-only opens stay in the filter) and under confexec
#            --explain-denials (each call observed: a round-trip to the
#            supervisor); the ratios of both observers to none printed
#            (the default's target: under 1.05); and a shell loop of 300
#            execs (each one notified by the default observer) without
#            and with it, ratio printed.  metadata also runs its
#            tar x (every file a create the default observer sees) with
#            --no-denials and --explain-denials, ratios printed
#   handoff  NCONN unix connects to a listener of the bench's own, bare
#            and under confexec --unix (each connect notified, its socket
#            fetched and its peer read: the trust handoff records)
#   loaded   bare /bin/true, confexec (static) and bwrap --unshare-all
#            again, with LOAD busy loops beside them (yes >/dev/null)
#   stages   where a launch's time goes: NSTAGES launches of the bench
#            plan and of a four-rule plan by confexec --timings, the
#            median of each stage (plan, rules, cgroup, seal, view,
#            privileged, start,
#            clone, mount, landlock, seccomp, exec, run, end)
#   mounts   the launch cost against the size of the caller's mount
#            namespace (a new mount namespace copies it; the view leaves
#            the copy behind, beneath its own root): confexec (static when built) running /bin/true
#            in this namespace, and in a scratch one (unshare --mount,
#            private propagation) topped up with tmpfs mounts to MOUNTS
#            mounts in all, hyperfine running inside it; bare /bin/true
#            in each beside them; the scratch namespace ends with its
#            round, its mount points are removed with the rest
# The confexec plan, pre-encoded once: cgroup, sealed image with a pinned
# SHA-256 (from the image cache in $TMP), uid/gid switch (temporary
# /etc/subuid and /etc/subgid entries, restored on exit), fds closed and
# verified, rlimits, capabilities dropped, Landlock, seccomp, a timeout.
# Every command runs through sh -c (stdin redirection), whose spawn time
# hyperfine measures and subtracts.  Targets, printed beside their ratios:
# confexec static <= 1.5x bare on true; cc1 cached <= 1.3x bare; tar x
# under confexec <= 1.1x bare.
# hyperfine and every command run with the payload's environment (PATH
# only), so that bare and confined programs do the same work (a locale in
# the environment costs cc1 milliseconds).
#   ROUNDS (default 4), RUNS (default 40), STATIC_BIN, FLOOR, CC1,
#   NFILES (10000), MRUNS (default 5), MOUNTS (1000), NCONN (2000),
#   BENCH_GROUPS (default "launch large metadata explain handoff mounts
#   loaded stages"), LOAD (2), NSTAGES (200), BASE_BIN
# To add a line: `add GROUP LABEL COMMAND [PREPARE [WRAP]]` below (WRAP: a
# command prefix hyperfine runs under; lines with the same WRAP next to
# each other in a round's order share one hyperfine run); ratios to the
# group's first line are printed for every label of the group, with
# `target GROUP LABEL MAX` a target beside one, with `versus GROUP LABEL
# BASE` a ratio of LABEL to BASE after them.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BORNE_BIN:-$TOP/.build/dyn/bin}
ROUNDS=${ROUNDS:-4}
RUNS=${RUNS:-40}
STATIC_BIN=${STATIC_BIN:-$TOP/.build/static/bin}
FLOOR=${FLOOR:-$TOP/.build/bench/floor}
CC1=${CC1:-$(gcc -print-prog-name=cc1 2>/dev/null || true)}
BENCH_GROUPS=${BENCH_GROUPS:-launch large metadata explain handoff mounts loaded stages}
LOAD=${LOAD:-2}
NSTAGES=${NSTAGES:-200}
NCONN=${NCONN:-2000}
NFILES=${NFILES:-10000}
MRUNS=${MRUNS:-5}
MOUNTS=${MOUNTS:-1000}
for c in hyperfine jq bwrap chattr unshare; do
	command -v "$c" >/dev/null || { echo "bench: needs $c" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (uid switch)" >&2; exit 1; }
TMP=$(mktemp -d)
# /etc/subuid and /etc/subgid are machine-wide: the tests take this lock
# too before editing them.
exec 9>/run/lock/borne-subid.lock
flock -w 300 9 || { echo "bench: subid lock busy" >&2; exit 1; }
cp -p /etc/subuid "$TMP/subuid"
cp -p /etc/subgid "$TMP/subgid"
trap 'cat "$TMP/subuid" >/etc/subuid; cat "$TMP/subgid" >/etc/subgid;
	chattr -R -i "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
# subid_add: our entries, unless present (a test elsewhere that restores
# the files without the lock can drop them while we run).
subid_add() {
	for f in /etc/subuid /etc/subgid; do
		grep -qx 'root:100000:65536' "$f" ||
		    echo "root:100000:65536" >>"$f"
	done
}
subid_add
mkdir -m 700 "$TMP/cache"
CACHE="--image-cache $TMP/cache"

# plan FILE PROGRAM ARG...: the bench plan for PROGRAM into FILE.
plan() {
	f=$1; shift
	"$BIN/planenc" --preset sys \
	    --sha256 "$(sha256sum "$1" | cut -d' ' -f1)" \
	    --uid 100000 --gid 100000 --rlimit nofile=1024 --timeout 20s \
	    --setenv PATH=/usr/bin:/bin -- "$@" >"$f"
	"$BIN/confexec" $CACHE <"$f" >/dev/null || {
		echo "bench: the plan for $1 does not run" >&2; exit 1; }
}
plan "$TMP/plan" /bin/true

# add GROUP LABEL COMMAND [PREPARE [WRAP]]
add() {
	printf '%s\t%s\t%s\t%s\n' "$2" "$3" "${4:-true}" "${5:-}" \
	    >>"$TMP/group.$1"
}
# target GROUP LABEL MAX: "target <= MAXx" printed beside LABEL's ratio.
target() { printf '%s\t%s\n' "$2" "$3" >>"$TMP/target.$1"; }
# versus GROUP LABEL BASE: the ratio of LABEL to BASE printed after the
# group's lines.
versus() { printf '%s\t%s\n' "$2" "$3" >>"$TMP/versus.$1"; }
static_ok() {
	[ -x "$STATIC_BIN/confexec" ] && "$STATIC_BIN/confexec" $CACHE \
	    <"$TMP/plan" || { echo "bench: no static confexec at" \
	    "$STATIC_BIN (make static); not measured" >&2; return 1; }
}

add launch "bare /bin/true" "/bin/true"
if [ -x "$FLOOR" ]; then
	add launch "static vfork+exec floor" "$FLOOR /bin/true"
	[ -x "$FLOOR-musl" ] &&
	    add launch "static vfork+exec floor, musl" "$FLOOR-musl /bin/true"
else
	echo "bench: no $FLOOR (make .build/bench/floor); not measured" >&2
fi
add launch "confexec, dynamic" "$BIN/confexec $CACHE <$TMP/plan"
# The same plan with four rules instead of the system preset's handful
# (/usr, /etc, /dev/null, /dev/urandom): what the preset costs beyond them
# (its /etc withheld either way).
"$BIN/planenc" --rox /usr --ro /etc --rw /dev/null --ro /dev/urandom \
    --sha256 "$(sha256sum /bin/true | cut -d' ' -f1)" \
    --uid 100000 --gid 100000 --rlimit nofile=1024 --timeout 20s \
    --setenv PATH=/usr/bin:/bin -- /bin/true >"$TMP/plan.four"
if static_ok; then
	add launch "confexec, static" "$STATIC_BIN/confexec $CACHE <$TMP/plan"
	target launch "confexec, static" 1.5
	add launch "confexec, static, four rules" \
	    "$STATIC_BIN/confexec $CACHE <$TMP/plan.four"
	versus launch "confexec, static" "confexec, static, four rules"
	add launch "confexec, static, no cache" \
	    "$STATIC_BIN/confexec --no-image-cache <$TMP/plan"
	# BASE_BIN: another build's confexec and planenc (an earlier
	# commit's), the same options encoded by its own planenc, side by
	# side with this one in the same rounds.
	if [ -n "${BASE_BIN:-}" ] && [ -x "$BASE_BIN/confexec" ] &&
	    BIN=$BASE_BIN plan "$TMP/plan.base" /bin/true; then
		add launch "confexec, BASE_BIN" \
		    "$BASE_BIN/confexec $CACHE <$TMP/plan.base"
		versus launch "confexec, static" "confexec, BASE_BIN"
	fi
fi
if "$BIN/confexec" $CACHE --control "$TMP/ctl.sock" <"$TMP/plan"; then
	add launch "confexec --control" \
	    "$BIN/confexec $CACHE --control $TMP/ctl.sock <$TMP/plan"
else
	echo "bench: the plan does not run with --control" >&2
fi
add launch "bwrap --unshare-all" "bwrap --ro-bind / / --unshare-all /bin/true"
static_ok >/dev/null 2>&1 &&
    versus launch "confexec, static" "bwrap --unshare-all"

# The same launches with LOAD busy loops beside them (yes >/dev/null, one
# a core by default: a busy machine), measured after the idle groups.
add loaded "bare /bin/true" "/bin/true"
static_ok >/dev/null 2>&1 &&
    add loaded "confexec, static" "$STATIC_BIN/confexec $CACHE <$TMP/plan"
add loaded "bwrap --unshare-all" "bwrap --ro-bind / / --unshare-all /bin/true"
static_ok >/dev/null 2>&1 &&
    versus loaded "confexec, static" "bwrap --unshare-all"

# CX: the confexec of the large and mounts groups, static when built.
CX=$BIN/confexec
static_ok >/dev/null 2>&1 && CX=$STATIC_BIN/confexec

if [ -n "$CC1" ] && [ -x "$CC1" ]; then
	plan "$TMP/plan.cc1" "$CC1" -quiet /dev/null -o /dev/null
	fresh="chattr -R -i $TMP/fresh 2>/dev/null; rm -rf $TMP/fresh;"
	fresh="$fresh mkdir -m 700 $TMP/fresh"
	add large "bare cc1" "$CC1 -quiet /dev/null -o /dev/null"
	add large "confexec cc1, cached" "$CX $CACHE <$TMP/plan.cc1"
	target large "confexec cc1, cached" 1.3
	add large "confexec cc1, first launch" \
	    "$CX --image-cache $TMP/fresh <$TMP/plan.cc1" "$fresh"
	add large "confexec cc1, no cache" \
	    "$CX --no-image-cache <$TMP/plan.cc1"
else
	echo "bench: no cc1 (gcc -print-prog-name=cc1); large not measured" >&2
fi

case " $BENCH_GROUPS " in *" metadata "*)
	# NFILES files, 100 a directory: modes 640 and 600, directories
	# 750, all dated 2001 (tar x -p restores each: fchmod, fchown,
	# utimensat; for the directories, made 700, a chmod through
	# /proc/self/fd, fchownat and utimensat, last).
	mkdir "$TMP/src" "$TMP/x"
	seq 0 "$((NFILES - 1))" | awk -v d="$TMP/src" \
	    '{ printf "%s/d%03d/f%05d\n", d, int($1 / 100), $1 }' \
	    >"$TMP/names"
	sed 's|/[^/]*$||' "$TMP/names" | uniq >"$TMP/dirs"
	xargs mkdir -m 750 <"$TMP/dirs"
	xargs touch <"$TMP/names"
	xargs chmod 640 <"$TMP/names"
	grep '[05]$' "$TMP/names" | xargs -r chmod 600
	cat "$TMP/names" "$TMP/dirs" | xargs touch -d @1000000000
	tar -cf "$TMP/t.tar" -C "$TMP/src" .
	rm -rf "$TMP/src" "$TMP/names" "$TMP/dirs"
	"$BIN/planenc" --rox /usr --rox /lib --rox /lib64 --ro "$TMP/t.tar" \
	    --rw "$TMP/x" -- /usr/bin/tar -xpf "$TMP/t.tar" -C "$TMP/x" \
	    >"$TMP/tarplan"
	bwtar="bwrap --unshare-all --ro-bind / / --bind $TMP/x $TMP/x"
	bwtar="$bwtar --dev /dev --proc /proc"
	bwtar="$bwtar /usr/bin/tar -xpf $TMP/t.tar -C $TMP/x"
	xprep="rm -rf $TMP/x && mkdir $TMP/x"
	# Each way extracts every file, once, before it is measured.
	for how in "$BIN/confexec $CACHE <$TMP/tarplan" "$bwtar"; do
		sh -c "$xprep && $how" && n=$(find "$TMP/x" -type f |
		    wc -l) && [ "$n" -eq "$NFILES" ] || {
			echo "bench: tar x does not run: $how" >&2; exit 1; }
	done
	add metadata "bare tar x, $NFILES files" \
	    "tar -xpf $TMP/t.tar -C $TMP/x" "$xprep"
	add metadata "confexec tar x (--rw dir)" \
	    "$BIN/confexec $CACHE <$TMP/tarplan" "$xprep"
	add metadata "confexec --no-denials tar x" \
	    "$BIN/confexec --no-denials $CACHE <$TMP/tarplan" "$xprep"
	versus metadata "confexec tar x (--rw dir)" \
	    "confexec --no-denials tar x"
	target metadata "confexec tar x (--rw dir)" 1.1
	add metadata "bwrap tar x (--bind dir)" "$bwtar" "$xprep"
	# The same extraction with every path call observed.
	add metadata "confexec --explain-denials tar x" \
	    "$BIN/confexec --explain-denials $CACHE <$TMP/tarplan" "$xprep"
	versus metadata "confexec --explain-denials tar x" \
	    "confexec --no-denials tar x"
esac

case " $BENCH_GROUPS " in *" explain "*)
	# Opens: grep -r -l over /usr/include (every file opened, read up to
	# its first "define"), bare, under confexec without an observer,
	# with the default one (no open of grep's is notified) and with
	# --explain-denials (each open a round-trip to the supervisor).
	"$BIN/planenc" --rox /usr --rox /lib --rox /lib64 --follow /lib \
	    --follow /lib64 --ro /etc -- /usr/bin/grep -r -l define \
	    /usr/include >"$TMP/grepplan"
	n=$(find /usr/include -type f | wc -l)
	add explain "bare grep -r, $n files" \
	    "grep -r -l define /usr/include"
	add explain "confexec --no-denials grep -r" \
	    "$BIN/confexec --no-denials $CACHE <$TMP/grepplan"
	add explain "confexec grep -r (default observer)" \
	    "$BIN/confexec $CACHE <$TMP/grepplan"
	add explain "confexec --explain-denials grep -r" \
	    "$BIN/confexec --explain-denials $CACHE <$TMP/grepplan"
	versus explain "confexec grep -r (default observer)" \
	    "confexec --no-denials grep -r"
	versus explain "confexec --explain-denials grep -r" \
	    "confexec --no-denials grep -r"
	# Execs: the default observer's worst case, each execve a
	# round-trip (a shell loop of 300 /bin/true), without and with it.
	"$BIN/planenc" --preset sys -- /bin/sh -c 'i=0
	    while [ $i -lt 300 ]; do /bin/true; i=$((i + 1)); done' \
	    >"$TMP/execplan"
	add explain "confexec --no-denials sh, 300 execs" \
	    "$BIN/confexec --no-denials $CACHE <$TMP/execplan"
	add explain "confexec sh, 300 execs (default observer)" \
	    "$BIN/confexec $CACHE <$TMP/execplan"
	versus explain "confexec sh, 300 execs (default observer)" \
	    "confexec --no-denials sh, 300 execs"
esac

case " $BENCH_GROUPS " in *" handoff "*)
	# Unix connects: NCONN connects (each closed at once) to a listener
	# of the bench's own, bare and under confexec --unix, where each
	# connect is notified, its socket fetched and, connected, its peer
	# read (the handoff records).  The listener is stopped by its pid.
	cat >"$TMP/listen.py" <<-'EOF'
	import socket, sys
	s = socket.socket(socket.AF_UNIX)
	s.bind(sys.argv[1])
	s.listen(512)
	open(sys.argv[1] + ".ready", "w").close()
	while True:
	    s.accept()[0].close()
	EOF
	cat >"$TMP/conn.py" <<-'EOF'
	import socket, sys
	for i in range(int(sys.argv[2])):
	    c = socket.socket(socket.AF_UNIX)
	    c.connect(sys.argv[1])
	    c.close()
	EOF
	python3 "$TMP/listen.py" "$TMP/l.sock" &
	LPID=$!
	trap 'kill $LPID 2>/dev/null; cat "$TMP/subuid" >/etc/subuid;
		cat "$TMP/subgid" >/etc/subgid; chattr -R -i "$TMP" 2>/dev/null;
		rm -rf "$TMP"' EXIT
	i=0
	while [ ! -e "$TMP/l.sock.ready" ] && [ $i -lt 600 ]; do
		kill -0 "$LPID" || break
		sleep 0.05; i=$((i + 1))
	done
	[ -e "$TMP/l.sock.ready" ] || {
		echo "bench: the unix listener did not start" >&2; exit 1; }
	"$BIN/planenc" --unix --rox /usr --rox /lib --rox /lib64 \
	    --follow /lib --follow /lib64 --ro "$TMP/conn.py" -- \
	    /usr/bin/python3 "$TMP/conn.py" "$TMP/l.sock" "$NCONN" \
	    >"$TMP/connplan"
	"$BIN/confexec" $CACHE <"$TMP/connplan" || {
		echo "bench: the connect plan does not run" >&2; exit 1; }
	add handoff "bare python3, $NCONN unix connects" \
	    "python3 $TMP/conn.py $TMP/l.sock $NCONN"
	add handoff "confexec --unix, each connect's peer read" \
	    "$BIN/confexec $CACHE <$TMP/connplan"
esac

case " $BENCH_GROUPS " in *" mounts "*)
	# Mount points made here, mounted on only in the scratch namespace
	# (its mounts die with it at the end of each round), removed on exit
	# with $TMP.
	n0=$(wc -l </proc/self/mountinfo)
	if [ "$n0" -ge "$MOUNTS" ]; then
		echo "bench: $n0 mounts here already (MOUNTS=$MOUNTS);" \
		    "mounts not measured" >&2
	else
		mkdir "$TMP/m"
		seq -f "$TMP/m/%g" "$((MOUNTS - n0))" | xargs mkdir
		cat >"$TMP/mounts.sh" <<-EOF
		set -e
		for d in $TMP/m/*; do
			mount -t tmpfs -o size=4k,mode=700 none "\$d"
		done
		n=\$(wc -l </proc/self/mountinfo)
		[ "\$n" -ge $MOUNTS ] || {
			echo "bench: \$n mounts in the scratch namespace," \
			    "fewer than $MOUNTS" >&2; exit 1; }
		exec "\$@"
		EOF
		ns="unshare --mount --propagation private sh $TMP/mounts.sh"
		$ns "$CX" $CACHE <"$TMP/plan" || {
			echo "bench: confexec does not run in the scratch" \
			    "namespace" >&2; exit 1; }
		add mounts "bare /bin/true" "/bin/true"
		add mounts "confexec, $n0 mounts" "$CX $CACHE <$TMP/plan"
		add mounts "bare /bin/true, $MOUNTS mounts" "/bin/true" "" "$ns"
		add mounts "confexec, $MOUNTS mounts" \
		    "$CX $CACHE <$TMP/plan" "" "$ns"
		versus mounts "confexec, $MOUNTS mounts" "confexec, $n0 mounts"
	fi
esac

# q STRING: STRING quoted for eval.
q() { printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")"; }
# hf GROUP RUNS ROUND WARMUP SEGMENT: one hyperfine run of the lines of
# SEGMENT (lines of the same WRAP), under that WRAP.
hf() {
	args=
	cmds=
	while IFS="$(printf '\t')" read -r label cmd prep wrap; do
		args="$args --prepare $(q "$prep")"
		cmds="$cmds $(q "$cmd")"
		w=$wrap
	done <"$5"
	# A failed run (another test on a shared machine can get in the
	# way) is named and run again, twice at most.
	try=0
	until eval env -i PATH=/usr/bin:/bin $w hyperfine --style none \
	    --output inherit --warmup "$4" --runs "$2" \
	    --export-json "$TMP/r.json" $args $cmds >"$TMP/hf.log" 2>&1
	do
		echo "bench: a run failed ($1, round $3):" >&2
		grep -E '^(confexec|bwrap|bench|unshare|mount|Error):' \
		    "$TMP/hf.log" | head -n 3 >&2
		try=$((try + 1))
		[ "$try" -lt 3 ] || exit 1
		subid_add
	done
	i=0
	while IFS="$(printf '\t')" read -r label cmd prep wrap; do
		jq -r --argjson i "$i" --arg l "$label" \
		    '.results[$i].times[] | "\($l)\t\(.)"' \
		    "$TMP/r.json" >>"$TMP/all.$1"
		i=$((i + 1))
	done <"$5"
}
# measure GROUP RUNS ROUNDS WARMUP: ROUNDS rounds, the command order
# rotated, each round one hyperfine run per segment of one WRAP.
measure() {
	n=$(wc -l <"$TMP/group.$1")
	r=0
	while [ "$r" -lt "$3" ]; do
		k=$((r % n))
		{ tail -n "+$((k + 1))" "$TMP/group.$1"
		  head -n "$k" "$TMP/group.$1"; } >"$TMP/order"
		rm -f "$TMP"/seg.*
		awk -F '\t' -v p="$TMP/seg." \
		    'NR == 1 || $4 != w { s++; w = $4 } { print >(p s) }' \
		    "$TMP/order"
		s=1
		while [ -f "$TMP/seg.$s" ]; do
			hf "$1" "$2" "$r" "$4" "$TMP/seg.$s"
			s=$((s + 1))
		done
		r=$((r + 1))
	done
}
med() {
	awk -F '\t' -v c="$2" '$1 == c { print $2 }' "$TMP/all.$1" | sort -g |
	    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
	        else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
report() {
	base=
	w=$(cut -f1 "$TMP/group.$1" | awk '
	    length > w { w = length } END { print (w > 28 ? w : 28) }')
	touch "$TMP/target.$1" "$TMP/versus.$1"
	while IFS="$(printf '\t')" read -r label cmd prep wrap; do
		m=$(med "$1" "$label")
		[ -n "$base" ] || base=$m
		t=$(awk -F '\t' -v l="$label" '$1 == l { print $2 }' \
		    "$TMP/target.$1")
		awk -v l="$label" -v m="$m" -v b="$base" -v w="$w" \
		    -v t="$t" 'BEGIN {
			printf "  %-*s %9.3f ms  %5.2fx", w, l, m * 1000, m / b
			if (t != "")
				printf "  (target <= %.2fx)", t
			printf "\n" }'
	done <"$TMP/group.$1"
	while IFS="$(printf '\t')" read -r label base; do
		awk -v l="$label" -v b="$base" -v m="$(med "$1" "$label")" \
		    -v n="$(med "$1" "$base")" 'BEGIN {
			printf "  %s / %s: %.2fx\n", l, b, m / n }'
	done <"$TMP/versus.$1"
}

# stages PLAN LABEL [CONFEXEC]: NSTAGES launches of PLAN by confexec
# --timings (standard error a pipe), the median of each stage in
# microseconds (confexec(1), --timings).
stages() {
	i=0
	: >"$TMP/stages"
	while [ "$i" -lt "$NSTAGES" ]; do
		{ "${3:-$CX}" $CACHE --timings <"$1" 2>&1 >/dev/null ||
		    echo "bench: a --timings run failed" >&2; } |
		    cat >>"$TMP/stages"
		i=$((i + 1))
	done
	printf '  %-16s' "$2"
	sed -n 's/^confexec: timings (us): //p' "$TMP/stages" >"$TMP/st"
	for k in $(head -n 1 "$TMP/st" | awk '{ for (i = 1; i < NF; i += 2)
	    print $i }'); do
		awk -v k="$k" '{ for (i = 1; i < NF; i += 2) if ($i == k)
		    print $(i + 1) }' "$TMP/st" | sort -n >"$TMP/st.k"
		n=$(wc -l <"$TMP/st.k")
		printf ' %s %s' "$k" "$(sed -n "$(((n + 1) / 2))p" "$TMP/st.k")"
	done
	echo
}

uptime
for g in $BENCH_GROUPS; do
	if [ "$g" = stages ]; then
		echo "stages: where a launch's time goes, median of $NSTAGES" \
		    "runs each, microseconds ($CX --timings):"
		stages "$TMP/plan" "the preset plan"
		stages "$TMP/plan.four" "four rules"
		[ -z "${BASE_BIN:-}" ] || ! [ -x "$BASE_BIN/confexec" ] ||
		    stages "$TMP/plan.base" "BASE_BIN, the preset plan" \
		    "$BASE_BIN/confexec"
		continue
	fi
	[ -f "$TMP/group.$g" ] || continue
	case $g in
	metadata) set -- "$MRUNS" "$ROUNDS" 1 ;;
	*) set -- "$RUNS" "$ROUNDS" 3 ;;
	esac
	YP=
	if [ "$g" = loaded ]; then
		n=0
		while [ "$n" -lt "$LOAD" ]; do
			yes >/dev/null &
			YP="$YP $!"
			n=$((n + 1))
		done
	fi
	measure "$g" "$@"
	[ -z "$YP" ] || kill $YP
	echo "$g: $(($1 * $2)) runs per command ($2 rounds)," \
	    "median wall time, x the first line${YP:+, $LOAD yes loops beside}:"
	report "$g"
done
