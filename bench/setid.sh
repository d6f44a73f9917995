#!/bin/sh
# bench/setid.sh: what confexec's check of its rw trees for privileged
# files (confexec(1), PRIVILEGED FILES) costs a launch, side by side.
# One plan, --rw over a tree of NFILES empty files in directories of 1000
# (nothing privileged in it), the payload /bin/true: confexec, against
# the same confexec built without the check (helpers/confexec-weak-
# privcheck, the same objects but for cmd/confexec/privileged.c), warm
# cache, interleaved by hyperfine; then the same with every file of the
# tree written by the payload before it ends (a build output rewritten:
# the check's cost does not grow with what the run writes, it is paid
# before the run); suidstrip --check of the tree beside them (the same
# walk).  Medians, and the ratios with/without printed.
#   NFILES (default 100000), RUNS (default 15), SETID_BENCH_DIR (where
#   the tree is made; default TMPDIR, i.e. /tmp's file system)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BORNE_BIN:-$TOP/.build/dyn/bin}
HELP=${BORNE_HELPERS:-$TOP/.build/dyn/helpers}
NFILES=${NFILES:-100000}
RUNS=${RUNS:-15}
WEAK=$HELP/confexec-weak-privcheck
for c in hyperfine jq; do
	command -v "$c" >/dev/null || { echo "bench: needs $c" >&2; exit 1; }
done
[ -x "$WEAK" ] || { echo "bench: needs $WEAK (make helpers)" >&2; exit 1; }
W=$(mktemp -d "${SETID_BENCH_DIR:-${TMPDIR:-/tmp}}/setid-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
mkdir "$W/t"
"$HELP/mkmany" "$W/t" "$NFILES" 1000 0 0
SYS="--rox /usr --rox /lib --rox /lib64 --follow-symlinks /lib"
SYS="$SYS --follow-symlinks /lib64"
# shellcheck disable=SC2086
"$BIN/planenc" $SYS --rw "$W/t" -- /bin/true >"$W/plan"
# The payload writes a byte into every file of the tree.
# shellcheck disable=SC2086
"$BIN/planenc" $SYS --rw "$W/t" -- /bin/sh -c \
    "for d in $W/t/d*; do for f in \$d/*; do echo x >\$f; done; done" \
    >"$W/plan-write"
"$BIN/confexec" <"$W/plan"
"$WEAK" <"$W/plan"
echo "tree: $NFILES files in $((NFILES / 1000)) directories, nothing" \
    "privileged; $(df -T "$W" | awk 'NR==2{print $2}'), $(nproc) CPUs," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"

# bench NAME RUNS PLAN: both builds on PLAN, hyperfine's results in
# $W/NAME.json.
bench() {
	hyperfine --warmup 1 --runs "$2" --export-json "$W/$1.json" \
	    -n check "$BIN/confexec --no-image-cache <$3" \
	    -n without "$WEAK --no-image-cache <$3" >/dev/null
}
ratio() {
	jq -r '[.results[] | .median] | "\(.[0] * 1000 | floor) ms with the check, \(.[1] * 1000 | floor) ms without: \(.[0] / .[1] * 100 | round / 100)x"' \
	    "$W/$1.json"
}
bench launch "$RUNS" "$W/plan"
echo "launch and end, --rw over $NFILES files, /bin/true: $(ratio launch)"
# The same walk from outside: suidstrip --check of the tree.
hyperfine --warmup 1 --runs "$RUNS" --export-json "$W/walk.json" \
    -n suidstrip "$BIN/suidstrip --check $W/t" >/dev/null
echo "suidstrip --check of the same tree (the same walker): $(jq -r \
    '.results[0].median * 1000 | floor' "$W/walk.json") ms"
bench write 3 "$W/plan-write"
echo "the payload writes every file: $(ratio write)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
