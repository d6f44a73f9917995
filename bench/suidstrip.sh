#!/bin/sh
# bench/suidstrip.sh: suidstrip --check against the manual recipe it
# replaces, on one tree, interleaved, warm cache; prints medians and ratios.
#   SUID_BENCH_FILES   files in the tree (default 200000; 0.1 % setuid,
#                      one in 40000 with a capability)
#   SUID_BENCH_ROUNDS  interleaved rounds (default 9)
#   SUID_BENCH_DIR     where to build the tree (default: a temp dir under
#                      TMPDIR, i.e. the filesystem of /tmp)
# Targets: suidstrip <= 1.0x `find -perm /6000` alone, and >= 3x faster
# than `find -perm /6000` + `getcap -r`.  Wall time is what counts; CPU
# time (user + system) is printed too: on a loaded machine the two worker
# threads cannot run in parallel and wall time tends to CPU time.
# Measured on the 2-CPU test machine while other suites ran (load 6 to 8):
# suidstrip / find -perm 0.85x to 1.02x; (find -perm + getcap -r) /
# suidstrip 2.37x to 2.56x (CPU alone: 2.4x).  Per regular file suidstrip
# makes two system calls (statx, getxattrat) to find's one, so the 3x
# needs both CPUs free.
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

run() {	# name cmd...: append "wall_ms cpu_ms" to $W/$name
	name=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$W/.t" "$@" >/dev/null 2>&1
	# (GNU time adds a line before the times when the status is not 0.)
	tail -n 1 "$W/.t" |
	    awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' >>"$W/$name"
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
med() {	# name column: the median
	awk -v c="$2" '{print $c}' "$W/$1" | sort -n |
	    awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}'
}
S=$(med suidstrip 1); F=$(med findperm 1); G=$(med getcap 1); L=$(med findtype 1)
Sc=$(med suidstrip 2); Fc=$(med findperm 2); Gc=$(med getcap 2); Lc=$(med findtype 2)
printf '%-36s %9s %9s\n' "median of $ROUNDS rounds" "wall ms" "cpu ms"
printf '%-36s %9d %9d\n' "suidstrip --check (bits + caps)" "$S" "$Sc" \
    "find -P -xdev -type f -perm /6000" "$F" "$Fc" "getcap -r" "$G" "$Gc" \
    "find -xdev -type f (walk only)" "$L" "$Lc"
awk -v s="$S" -v f="$F" -v g="$G" -v l="$L" -v sc="$Sc" -v fc="$Fc" \
    -v gc="$Gc" 'BEGIN {
	printf "suidstrip / find -perm (wall):          %.2fx (target <= 1.0)\n", s / f
	printf "find -perm + getcap -r / suidstrip:     %.2fx (target >= 3)\n", (f + g) / s
	printf "suidstrip / bare find walk (wall):      %.2fx\n", s / l
	printf "cpu: suidstrip / find -perm %.2fx, (find + getcap) / suidstrip %.2fx\n",
	    sc / fc, (fc + gc) / sc
}'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
