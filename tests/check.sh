#!/bin/sh
# tests/check.sh: the stages of make check, each run even when one before
# it failed, then one line per stage: its result, its test counts and its
# wall time.  Exit 1 when any stage failed.
#
#   dyn      build (WERROR=1), unit and sh tests
#   asan     the same, built with ASan + UBSan
#   static   the same, static musl binaries (STATIC_TESTS)
#   fuzz     each libFuzzer target for FUZZ_SECONDS, two at a time
#
# CHECK_STAGES picks some of them (default: all four, in that order);
# CHECK_JOBS is the builds' -j (default: the number of CPUs).  Each
# stage's output is also kept in .build/check/STAGE.log.
set -u
MAKE=${MAKE:-make}
JOBS=${CHECK_JOBS:-$(nproc 2>/dev/null || echo 1)}
LOGS=.build/check
mkdir -p "$LOGS"
: >"$LOGS/summary"

# stage NAME CMD...: run CMD, its output to the terminal and the log.
stage() {
	name=$1
	shift
	echo "== make check: $name ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
	t0=$(date +%s)
	{ "$@" 2>&1; echo $? >"$LOGS/$name.rc"; } | tee "$LOGS/$name.log"
	rc=$(cat "$LOGS/$name.rc")
	t=$(($(date +%s) - t0))
	counts "$name" "$rc" "$t" >>"$LOGS/summary"
}

# counts NAME RC SECONDS: a summary line from the stage's log (the
# "Files=, Tests=" line of each prove run, the failed files prove lists,
# the fuzz targets' lines).
counts() {
	res=PASS
	[ "$2" -eq 0 ] || res=FAIL
	log=$LOGS/$1.log
	if [ "$1" = fuzz ]; then
		n=$(grep -c '^fuzz: [^ ]*: stat::' "$log")
		f=$(sed -n 's/^fuzz: \([^ ]*\): FAILED$/\1/p' "$log" | paste -sd' ' -)
		what="$n fuzz targets ran clean${f:+; failed: $f}"
	else
		n=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$log" |
		    awk '{ s += $1 } END { print s + 0 }')
		nf=$(sed -n 's/.*Tests: [0-9]* Failed: \([0-9]*\))$/\1/p' "$log" |
		    awk '{ s += $1 } END { print s + 0 }')
		f=$(sed -n 's/^\([^ ]*\) *(Wstat: .*/\1/p' "$log" |
		    sed 's,.*/,,' | sort -u | paste -sd' ' -)
		what="$n tests, $nf failed${f:+ (in: $f)}"
		grep -q '^Files=' "$log" || what="no test ran (the build failed?)"
	fi
	printf '%-7s %s  %3dm%02ds  %s\n' "$1" "$res" $(($3 / 60)) $(($3 % 60)) \
	    "$what"
}

T0=$(date +%s)
for s in ${CHECK_STAGES:-dyn asan static fuzz}; do
	case $s in
	dyn)
		stage dyn sh -c '$1 -j"$2" WERROR=1 all helpers units &&
		    $1 WERROR=1 test' sh "$MAKE" "$JOBS" ;;
	asan)
		stage asan sh -c '$1 -j"$2" WERROR=1 VARIANT=asan all helpers \
		    units && $1 WERROR=1 VARIANT=asan test' sh "$MAKE" "$JOBS" ;;
	static)
		# (STATIC_TESTS: the Makefile's, TESTS unless said otherwise)
		stage static sh -c '$1 -j"$2" WERROR=1 static || exit
		    if [ -n "$3" ]; then
			$1 WERROR=1 VARIANT=static test TESTS="$3"
		    else $1 WERROR=1 VARIANT=static test; fi' \
		    sh "$MAKE" "$JOBS" "${STATIC_TESTS:-}" ;;
	fuzz)
		stage fuzz sh -c '$1 -j"$2" fuzzers && $1 -k -j2 fuzz-smoke' \
		    sh "$MAKE" "$JOBS" ;;
	*)
		echo "check.sh: unknown stage $s" >&2
		exit 2 ;;
	esac
done
T=$(($(date +%s) - T0))

echo "== make check: summary ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)${CI:+, CI=$CI})"
cat "$LOGS/summary"
if grep -q '^[a-z]* *FAIL ' "$LOGS/summary"; then res=FAIL; else res=PASS; fi
printf '%-7s %s  %3dm%02ds\n' total "$res" $((T / 60)) $((T % 60))
[ "$res" = PASS ]
