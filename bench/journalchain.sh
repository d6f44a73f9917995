#!/bin/sh
# bench/journalchain.sh: journalchain verify against openssl dgst -sha256 and
# sha256sum on the same journal (interleaved rounds, medians, ratios), and
# append throughput: group commit and durable single-record calls.
#
#   JOURNAL_BENCH_MIB     journal size to build (default 256)
#   JOURNAL_BENCH_ROUNDS  interleaved rounds (default 5)
#   JOURNAL_BENCH_SINGLE  single-record appends timed (default 200)
set -u
BIN=${BORNE_BIN:-$(cd "$(dirname "$0")/.." && pwd)/.build/dyn/bin}
J=$BIN/journalchain
MIB=${JOURNAL_BENCH_MIB:-256}
ROUNDS=${JOURNAL_BENCH_ROUNDS:-5}
SINGLE=${JOURNAL_BENCH_SINGLE:-200}
D=$(mktemp -d "${TMPDIR:-/tmp}/borne-bench.XXXXXX")
trap 'rm -rf "$D"' EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {
	if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR/2] + a[NR/2 + 1]) / 2 }'; }

# ~330-byte events shaped like a run record
n=$((MIB * 1024 * 1024 / 330 + 1))
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "{\"argv\":[\"/usr/bin/make\",\"-C\",\"build\",\"-j2\"],\"cgroup\":\"/borne/run-%d\",\"event\":\"exit\",\"i\":%d,\"landlock\":{\"abi\":7,\"fs\":\"enforced\",\"net\":\"enforced\"},\"seccomp\":\"enforced\",\"status\":0,\"wall_ns\":\"%d\"}\n", i, i, i * 1000 }' >"$D/in"

# group commit: the whole input, default (one write, one fdatasync) and
# --batch 1000 (one write + fdatasync per 1000 records)
t0=$(now); "$J" append "$D/j" <"$D/in" || exit 1; t1=$(now)
size=$(wc -c <"$D/j")
echo "journal: $n records, $size bytes"
awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN { printf "append, one commit:        %10.0f records/s (target >= 50000)\n", n / (b - a) }'
head -n 200000 "$D/in" >"$D/in2"
t0=$(now); "$J" append --batch 1000 "$D/j2" <"$D/in2" || exit 1; t1=$(now)
awk -v n=200000 -v a="$t0" -v b="$t1" 'BEGIN { printf "append, --batch 1000:      %10.0f records/s\n", n / (b - a) }'

# durable single appends (one record and one fdatasync per call)
t0=$(now)
i=0
while [ $i -lt "$SINGLE" ]; do
	echo "{\"i\":$i}" | "$J" append "$D/s" || exit 1
	i=$((i + 1))
done
t1=$(now)
awk -v n="$SINGLE" -v a="$t0" -v b="$t1" 'BEGIN { printf "append, 1 record per call: %10.0f records/s (fdatasync-bound)\n", n / (b - a) }'

# verify vs openssl vs sha256sum, interleaved; the file is in the page
# cache for all three (one warm-up read each)
cat "$D/j" >/dev/null
r=0
: >"$D/tv"; : >"$D/to"; : >"$D/ts"
while [ $r -lt "$ROUNDS" ]; do
	t0=$(now); "$J" verify "$D/j" >/dev/null || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/tv"
	t0=$(now); openssl dgst -sha256 "$D/j" >/dev/null; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/to"
	t0=$(now); sha256sum "$D/j" >/dev/null; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/ts"
	r=$((r + 1))
done
v=$(median <"$D/tv"); o=$(median <"$D/to"); s=$(median <"$D/ts")
awk -v sz="$size" -v v="$v" -v o="$o" -v s="$s" 'BEGIN {
	m = 1048576
	printf "verify:             median %6.3f s  %7.0f MiB/s\n", v, sz / m / v
	printf "openssl dgst:       median %6.3f s  %7.0f MiB/s\n", o, sz / m / o
	printf "sha256sum:          median %6.3f s  %7.0f MiB/s\n", s, sz / m / s
	printf "verify / openssl throughput:   %.2fx (target >= 0.8x)\n", o / v
	printf "verify / sha256sum throughput: %.2fx\n", s / v
}'

# Signed checkpoints (journalchain checkpoint, verify --checkpoint, prove)
# of a journal of 100,000 records beside verify and sha256sum of the same
# file, interleaved: a checkpoint verifies the whole chain (the same pass
# as verify, two threads hashing), then streams the records once more
# with O(log n) memory (the Merkle frontier: one 32-byte hash per 1 bit
# of the count) and signs (Ed25519).  Then what a run's checkpoint costs
# with --state: one record appended, only it read.
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"argv\":[\"/usr/bin/make\",\"-C\",\"build\",\"-j2\"],\"cgroup\":\"/borne/run-%d\",\"event\":\"exit\",\"i\":%d,\"landlock\":{\"abi\":7,\"fs\":\"enforced\",\"net\":\"enforced\"},\"seccomp\":\"enforced\",\"status\":0,\"wall_ns\":\"%d\"}\n", i, i, i * 1000 }' |
    "$J" append "$D/c" || exit 1
"$J" keygen example.org/bench "$D/k" || exit 1
csize=$(wc -c <"$D/c")
echo "checkpoint journal: 100000 records, $csize bytes"
"$J" checkpoint --key "$D/k.key" "$D/c" >"$D/c.ckpt" || exit 1
r=0
: >"$D/tc"; : >"$D/tcv"; : >"$D/tp"; : >"$D/tv2"; : >"$D/ts2"
while [ $r -lt "$ROUNDS" ]; do
	t0=$(now); "$J" checkpoint --key "$D/k.key" "$D/c" >/dev/null || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/tc"
	t0=$(now); "$J" verify --checkpoint "$D/c.ckpt" --pub "$D/k.pub" "$D/c" >/dev/null || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/tcv"
	t0=$(now); "$J" prove --from 50000 "$D/c" >/dev/null || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/tp"
	t0=$(now); "$J" verify "$D/c" >/dev/null || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/tv2"
	t0=$(now); sha256sum "$D/c" >/dev/null; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/ts2"
	r=$((r + 1))
done
c=$(median <"$D/tc"); cv=$(median <"$D/tcv"); p=$(median <"$D/tp")
v=$(median <"$D/tv2"); s=$(median <"$D/ts2")
awk -v c="$c" -v cv="$cv" -v p="$p" -v v="$v" -v s="$s" 'BEGIN {
	printf "checkpoint:              median %6.3f s (target < 1 s)\n", c
	printf "verify --checkpoint:     median %6.3f s\n", cv
	printf "prove --from 50000:      median %6.3f s\n", p
	printf "verify (chain only):     median %6.3f s\n", v
	printf "sha256sum:               median %6.3f s\n", s
	printf "checkpoint / verify time:    %.2fx\n", c / v
	printf "checkpoint / sha256sum time: %.2fx\n", c / s
}'
"$J" checkpoint --key "$D/k.key" --state "$D/c.state" "$D/c" >/dev/null || exit 1
r=0
: >"$D/ti"; : >"$D/ta"
while [ $r -lt "$ROUNDS" ]; do
	t0=$(now); echo "{\"round\":$r}" | "$J" append "$D/c" || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/ta"
	t0=$(now); "$J" checkpoint --key "$D/k.key" --state "$D/c.state" "$D/c" >/dev/null || exit 1; t1=$(now)
	echo "$t1 - $t0" | bc >>"$D/ti"
	r=$((r + 1))
done
i=$(median <"$D/ti"); a=$(median <"$D/ta")
awk -v i="$i" -v a="$a" -v c="$c" 'BEGIN {
	printf "after one append (1 record, fdatasync): median %6.4f s\n", a
	printf "checkpoint --state of it:               median %6.4f s\n", i
	printf "full checkpoint / --state checkpoint:   %.0fx\n", c / i
}'
