#!/bin/sh
# bench/suidstrip.sh: suidstrip --check against the manual recipe it
# replaces, on one tree, interleaved, warm cache; prints medians and ratios.
#   SUID_BENCH_FILES   files in the tree (default 200000; 0.1 % setuid,
#                      one in 40000 with a capability)
#   SUID_BENCH_ROUNDS  interleaved rounds (default 9)
#   SUID_BENCH_DIR     where to build the tree (default: a temp dir under
#                      TMPDIR, i.e. the filesystem of /tmp)
# Targets: suidstrip <= 1.0x `find -perm /6000` alone, and >= 3x faster
# than `find -perm /6000` + `getcap -r`.
set -u
TOP=${BORNE_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=${BORNE_BIN:-$TOP/.build/dyn/bin}
HELP=${BORNE_HELPERS:-$TOP/.build/dyn/helpers}
N=${SUID_BENCH_FILES:-200000}
ROUNDS=${SUID_BENCH_ROUNDS:-9}
W=$(mktemp -d "${SUID_BENCH_DIR:-${TMPDIR:-/tmp}}/suidbench.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
T=$W/t
mkdir "$T"
"$HELP/mkmany" "$T" "$N" 1000 1000 40000 || exit 1
echo "tree: $N files in $((N / 1000)) directories, $((N / 1000)) setuid," \
    "$((N / 40000)) with a capability; $(df -T "$W" | awk 'NR==2{print $2}')," \
    "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

now() { date +%s%N; }
run() {	# name cmd...: append the wall time in ms to $W/$name
	name=$1; shift
	t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
	echo $(((t1 - t0) / 1000)) >>"$W/$name"
}
# Sanity: all agree on what is there.
a=$("$BIN/suidstrip" --check "$T" | grep -c 'mode 0[246]')
b=$(find -P "$T" -xdev -type f -perm /6000 | wc -l)
c=$(getcap -r "$T" | wc -l)
echo "found: suidstrip $a setuid/setgid, find $b; getcap $c capabilities"
# Warm the cache.
find "$T" -xdev -type f >/dev/null; getcap -r "$T" >/dev/null
i=0
while [ $i -lt "$ROUNDS" ]; do
	run suidstrip "$BIN/suidstrip" --check "$T"
	run findperm find -P "$T" -xdev -type f -perm /6000
	run getcap getcap -r "$T"
	run findtype find "$T" -xdev -type f
	i=$((i + 1))
done
med() { sort -n "$W/$1" | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}'; }
S=$(med suidstrip); F=$(med findperm); G=$(med getcap); L=$(med findtype)
printf '%-34s %10s\n' "median of $ROUNDS (us)" ""
printf '%-34s %10d\n' "suidstrip --check (bits + caps)" "$S" \
    "find -P -xdev -type f -perm /6000" "$F" "getcap -r" "$G" \
    "find -xdev -type f (walk only)" "$L"
awk -v s="$S" -v f="$F" -v g="$G" -v l="$L" 'BEGIN {
	printf "ratio suidstrip / find -perm:            %.2fx (target <= 1.0)\n", s / f
	printf "speedup vs find -perm + getcap -r:      %.2fx (target >= 3)\n", (f + g) / s
	printf "ratio suidstrip / bare find walk:       %.2fx\n", s / l
}'
