#!/bin/sh
# bench/confexec.sh: the cost of confexec's full boundary around /bin/true.
#
# Three commands side by side, in ROUNDS rounds (order rotated each round),
# RUNS runs each per round, medians over all runs, then ratios:
#   bare     /bin/true
#   confexec confexec < plan, the plan pre-encoded once: cgroup, sealed
#            image with a pinned SHA-256, uid/gid switch (temporary
#            /etc/subuid and /etc/subgid entries, restored on exit), fds
#            closed and verified, rlimits, capabilities dropped, Landlock,
#            seccomp, a timeout
#   bwrap    bwrap --ro-bind / / --unshare-all /bin/true
#   control  the same confexec plan with --control (the socket made,
#            served by the loop, removed; no client): its cost on the
#            launch ratio
#   static   (when STATIC_BIN/confexec exists, default the musl build
#            .build/static/bin) the same confexec plan, statically linked:
#            no dynamic loader, fewer pages touched per run
# Every command runs through sh -c (stdin redirection), whose spawn time
# hyperfine measures and subtracts.  Targets: confexec <= 2.0x bare and
# <= 0.4x bwrap.
# Then metadata through the supervisor: tar x (modes, times, owner) of
# NFILES files into a --rw directory, the caller root and no uid switch
# (every chmod, chown and utimensat is a seccomp notification confexec
# answers), against the same tar x bare; MRUNS runs each, medians.
#   ROUNDS (default 4), RUNS (default 40), STATIC_BIN, NFILES (10000),
#   MRUNS (default 5)
set -eu
BIN=${BORNE_BIN:-$(dirname "$0")/../.build/dyn/bin}
ROUNDS=${ROUNDS:-4}
RUNS=${RUNS:-40}
STATIC_BIN=${STATIC_BIN:-$(dirname "$0")/../.build/static/bin}
for c in hyperfine jq bwrap; do
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
	rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
echo "root:100000:65536" >>/etc/subuid
echo "root:100000:65536" >>/etc/subgid

"$BIN/planenc" --preset sys \
    --sha256 "$(sha256sum /bin/true | cut -d' ' -f1)" \
    --uid 100000 --gid 100000 --rlimit nofile=1024 --timeout 10s \
    --setenv PATH=/usr/bin:/bin -- /bin/true >"$TMP/plan"
"$BIN/confexec" <"$TMP/plan" || { echo "bench: the plan does not run" >&2;
	exit 1; }

c1="/bin/true"
c2="$BIN/confexec <$TMP/plan"
c3="bwrap --ro-bind / / --unshare-all /bin/true"
c5="$BIN/confexec --control $TMP/ctl.sock <$TMP/plan"
"$BIN/confexec" --control "$TMP/ctl.sock" <"$TMP/plan" || {
	echo "bench: the plan does not run with --control" >&2; exit 1; }
c4=
if [ -x "$STATIC_BIN/confexec" ]; then
	if "$STATIC_BIN/confexec" <"$TMP/plan"; then
		c4="$STATIC_BIN/confexec <$TMP/plan"
	else
		echo "bench: $STATIC_BIN/confexec does not run the plan;" \
		    "not measured" >&2
	fi
fi
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	case $((r % 4)) in
	0) set -- "$c1" "$c2" "$c3" "$c5" ;;
	1) set -- "$c5" "$c1" "$c2" "$c3" ;;
	2) set -- "$c3" "$c5" "$c1" "$c2" ;;
	*) set -- "$c2" "$c3" "$c5" "$c1" ;;
	esac
	[ -z "$c4" ] || set -- "$@" "$c4"
	hyperfine --style none --warmup 5 --runs "$RUNS" \
	    --export-json "$TMP/r$r.json" "$@" >/dev/null 2>&1
	jq -r '.results[] | .command as $c | .times[] | "\($c)\t\(.)"' \
	    "$TMP/r$r.json" >>"$TMP/all.tsv"
	r=$((r + 1))
done

med() {
	awk -F '\t' -v c="$1" '$1 == c { print $2 }' "$TMP/all.tsv" | sort -g |
	    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
	        else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
m1=$(med "$c1"); m2=$(med "$c2"); m3=$(med "$c3")
uptime
awk -v m1="$m1" -v m2="$m2" -v m3="$m3" -v n="$((ROUNDS * RUNS))" 'BEGIN {
	printf "runs per command: %d (%s rounds), median wall time:\n", n,
	    "'"$ROUNDS"'"
	printf "  bare /bin/true          %8.3f ms\n", m1 * 1000
	printf "  confexec full stack     %8.3f ms\n", m2 * 1000
	printf "  bwrap --unshare-all     %8.3f ms\n", m3 * 1000
	printf "confexec / bare  = %.2f (target <= 2.0)\n", m2 / m1
	printf "confexec / bwrap = %.2f (target <= 0.4)\n", m2 / m3
	printf "bwrap / bare     = %.2f\n", m3 / m1
}'
awk -v m1="$m1" -v m2="$m2" -v m5="$(med "$c5")" 'BEGIN {
	printf "  confexec --control      %8.3f ms\n", m5 * 1000
	printf "control / bare   = %.2f, control / confexec = %.3f\n", m5 / m1,
	    m5 / m2
}'
[ -z "$c4" ] || awk -v m1="$m1" -v m3="$m3" -v m4="$(med "$c4")" 'BEGIN {
	printf "  confexec, static build  %8.3f ms\n", m4 * 1000
	printf "static / bare    = %.2f, static / bwrap = %.2f\n", m4 / m1,
	    m4 / m3
}'

# ---- metadata through the supervisor: tar x of NFILES files ----
NFILES=${NFILES:-10000}
MRUNS=${MRUNS:-5}
mkdir "$TMP/src" "$TMP/x"
seq -f "$TMP/src/f%05g" "$NFILES" | xargs touch
chmod 640 "$TMP"/src/f0*
tar -cf "$TMP/t.tar" -C "$TMP/src" .
rm -rf "$TMP/src"
"$BIN/planenc" --preset sys --ro "$TMP/t.tar" --rw "$TMP/x" \
    -- /usr/bin/tar -xpf "$TMP/t.tar" -C "$TMP/x" >"$TMP/tarplan"
"$BIN/confexec" <"$TMP/tarplan" || { echo "bench: tar x does not run" >&2;
	exit 1; }
t1="tar -xpf $TMP/t.tar -C $TMP/x"
t2="$BIN/confexec <$TMP/tarplan"
hyperfine --style none --warmup 1 --runs "$MRUNS" \
    --prepare "rm -rf $TMP/x && mkdir $TMP/x" \
    --export-json "$TMP/tar.json" "$t1" "$t2" >/dev/null 2>&1
jq -r '.results[] | .command as $c | .times[] | "\($c)\t\(.)"' \
    "$TMP/tar.json" >"$TMP/all.tsv"
awk -v a="$(med "$t1")" -v b="$(med "$t2")" -v n="$NFILES" 'BEGIN {
	printf "tar x of %d files into a --rw dir (metadata via the supervisor):\n", n
	printf "  bare %8.1f ms, confexec %8.1f ms, confexec / bare = %.2f\n",
	    a * 1000, b * 1000, b / a
}'
