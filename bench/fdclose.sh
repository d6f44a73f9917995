#!/bin/sh
# bench/fdclose.sh: fdclose-verify with ~10 and with ~19,000 open fds.
#
# Each case is "open-fds N fdclose-verify -- /bin/true" (N descriptors
# opened without close-on-exec, then fdclose-verify execs /bin/true), next
# to its baseline "open-fds N /bin/true".  The kernel must release every
# open file once whoever closes it (close_range in fdclose-verify, or
# exit in the baseline), so the cost fdclose-verify adds is the difference
# between the two, and that difference must not grow with N or with
# RLIMIT_NOFILE.  Releasing N open files is work the kernel does in
# proportion to N wherever it happens, so the pure rlimit question is
# asked separately: ~10 open fds under a soft RLIMIT_NOFILE of 1024 and of
# 20000 (the hard limit here; a close loop up to the limit would show as a
# ratio well above 1).  The six commands run side by side in ROUNDS
# rounds (order rotated each round), RUNS runs each per round; medians
# over all runs are printed, then the ratios.
#   ROUNDS (default 4), RUNS (default 30), BIG (default 19000)
set -eu
BIN=${BORNE_BIN:-$(dirname "$0")/../.build/dyn/bin}
HELP=${BORNE_HELPERS:-$(dirname "$0")/../.build/dyn/helpers}
ROUNDS=${ROUNDS:-4}
RUNS=${RUNS:-30}
BIG=${BIG:-19000}
command -v hyperfine >/dev/null || { echo "bench: needs hyperfine" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench: needs jq" >&2; exit 1; }
ulimit -n 20000
TRUE=/bin/true
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

c1="$HELP/open-fds 7 $BIN/fdclose-verify -- $TRUE"
c2="$HELP/open-fds 7 $TRUE"
c3="$HELP/open-fds $BIG $BIN/fdclose-verify -- $TRUE"
c4="$HELP/open-fds $BIG $TRUE"
c5="$HELP/open-fds -n 1024 7 $BIN/fdclose-verify -- $TRUE"
c6="$HELP/open-fds -n 20000 7 $BIN/fdclose-verify -- $TRUE"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	case $((r % 4)) in
	0) set -- "$c1" "$c2" "$c3" "$c4" "$c5" "$c6" ;;
	1) set -- "$c6" "$c4" "$c3" "$c2" "$c1" "$c5" ;;
	2) set -- "$c3" "$c5" "$c1" "$c6" "$c4" "$c2" ;;
	*) set -- "$c2" "$c6" "$c4" "$c1" "$c5" "$c3" ;;
	esac
	hyperfine -N --style none --warmup 3 --runs "$RUNS" \
	    --export-json "$TMP/r$r.json" "$@" >/dev/null
	jq -r '.results[] | .command as $c | .times[] | "\($c)\t\(.)"' \
	    "$TMP/r$r.json" >>"$TMP/all.tsv"
	r=$((r + 1))
done

med() {
	awk -F '\t' -v c="$1" '$1 == c { print $2 }' "$TMP/all.tsv" | sort -g |
	    awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
	        else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
m1=$(med "$c1"); m2=$(med "$c2"); m3=$(med "$c3"); m4=$(med "$c4")
m5=$(med "$c5"); m6=$(med "$c6")
awk -v m1="$m1" -v m2="$m2" -v m3="$m3" -v m4="$m4" -v big="$BIG" \
    -v m5="$m5" -v m6="$m6" \
    -v n="$((ROUNDS * RUNS))" 'BEGIN {
	printf "runs per case: %d (RLIMIT_NOFILE 20000)\n", n
	printf "%-28s %12s %12s\n", "median (ms)", "~10 fds", "~" big " fds"
	printf "%-28s %12.3f %12.3f\n", "open-fds + fdclose-verify", m1 * 1e3, m3 * 1e3
	printf "%-28s %12.3f %12.3f\n", "open-fds alone (baseline)", m2 * 1e3, m4 * 1e3
	d1 = m1 - m2; d3 = m3 - m4
	printf "%-28s %12.3f %12.3f\n", "fdclose-verify added", d1 * 1e3, d3 * 1e3
	printf "ratio added(~%s) / added(~10): %.2f  (close_range releases each open file: what grows is the per-open-file work of the kernel)\n", big, d3 / d1
	printf "ratio total(~%s) / total(~10): %.2f  (includes opening and releasing the files)\n", big, m3 / m1
	printf "~10 fds, RLIMIT_NOFILE 1024: %.3f ms, 20000: %.3f ms, ratio %.2f  (constant in the limit: near 1)\n", m5 * 1e3, m6 * 1e3, m6 / m5
}'
