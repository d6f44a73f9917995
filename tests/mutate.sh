#!/bin/sh
# tests/mutate.sh [--check] [LIST]: break each boundary on purpose and
# expect an end-to-end test file to notice (make mutate; not part of make
# check).  --check only checks the list against the tree as it is (every
# pattern once, every test file there), builds and runs nothing:
# t-mutate-list runs it in make check, so a change that moves a line the
# list breaks is told at once.
#
# LIST (tests/mutate.list by default) has one break a line, fields
# separated by a tab:
#   ID  FILES  PATTERN  REPLACEMENT  TESTS
# FILES is one or more globs of source files of the tree (cmd/confexec/*.c: the
# break follows its line from file to file); PATTERN a fixed string
# (\t is a tab) that must occur exactly once in them, replaced by
# REPLACEMENT (may be empty); TESTS the test files (t-NAME, space
# separated) of which at least one must fail.  A break whose pattern
# occurs zero or several times, or whose tree no longer builds, is an
# error of the list, never skipped.
#
# The tree (its tracked and untracked files, as they are now) is copied
# to .build/mutate/src and built there (dyn variant) once; every test
# file the list names must pass on it first.  Then, break by break: the
# file changed, every program and helper rebuilt (make -j2: a common/
# file is linked into several tools, and the previous break's objects
# must not outlive it), the break's test files run until one fails, the
# file restored.  One line a break, "caught (t-X)"
# or "MISSED", then the counts; exits 1 when a break was missed or could
# not be applied.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
CHECK=0
[ "${1:-}" = --check ] && { CHECK=1; shift; }
LIST=${1:-$TOP/tests/mutate.list}
W=$TOP/.build/mutate
S=$W/src
MAKE=${MAKE:-make}
JOBS=${MUTATE_JOBS:-2}
# A break may make a test hang: that counts as caught, after this long.
LIMIT=${MUTATE_TIMEOUT:-300}
TAB=$(printf '\t')

say() { printf '%s\n' "$*"; }
die() { say "mutate: $*" >&2; exit 2; }

[ -r "$LIST" ] || die "no list $LIST"
if [ "$CHECK" = 1 ]; then
	# The list against the tree itself; the work files in a temporary
	# directory of its own.
	S=$TOP
	W=$(mktemp -d) || die "cannot make a temporary directory"
	trap 'rm -rf "$W"' EXIT
else
	rm -rf "$W"
	mkdir -p "$S" "$W/log" || die "cannot make $W"
	(cd "$TOP" && git ls-files -co --exclude-standard -z |
		tar --null -T - -cf -) | (cd "$S" && tar -xf -) ||
		die "cannot copy the tree to $S"
fi
# The list without comments and blank lines, one break a line.
grep -v -e '^#' -e '^[[:space:]]*$' "$LIST" >"$W/breaks"

field() { printf '%s\n' "$1" | cut -f"$2"; }
unesc() { printf '%s' "$1" | sed "s/\\\\t/$TAB/g"; }

# count PATTERN FILE...: occurrences of the fixed string in the files.
count() {
	_p=$1
	shift
	MUT_PAT=$_p awk '
	{ s = $0; while ((i = index(s, ENVIRON["MUT_PAT"])) > 0) {
		n++; s = substr(s, i + length(ENVIRON["MUT_PAT"])) } }
	END { print n + 0 }' "$@"
}

# apply FILE PATTERN REPLACEMENT: the one occurrence replaced in place.
apply() {
	MUT_PAT=$2 MUT_REP=$3 awk '
	{ i = index($0, ENVIRON["MUT_PAT"])
	  if (i > 0) $0 = substr($0, 1, i - 1) ENVIRON["MUT_REP"] \
	      substr($0, i + length(ENVIRON["MUT_PAT"])); print }' \
	    "$1" >"$1.mut" && mv "$1.mut" "$1"
}

build() {
	(cd "$S" && $MAKE -j"$JOBS" VARIANT=dyn "$@") >"$W/log/build" 2>&1
}

# run_test T LOG: T's file against the copy's build; 0 when it passed.
# Its stdin is not the list's (a test's script(1) would read the breaks
# left).
run_test() {
	(cd "$S" && BORNE_BIN=$S/.build/dyn/bin \
	    BORNE_HELPERS=$S/.build/dyn/helpers BORNE_VARIANT=dyn \
	    BORNE_TOP=$S timeout -k 10 "$LIMIT" sh "tests/$1.sh") </dev/null >"$2" 2>&1
}

start=$(date +%s)
if [ "$CHECK" = 0 ]; then
	say "mutate: building the tree as it is in $S"
	build all helpers ||
		{ tail -n 30 "$W/log/build"; die "the tree does not build"; }
fi

# The list checked first: every pattern once, every test file there.
errors=0
n=0
while IFS= read -r line; do
	n=$((n + 1))
	id=$(field "$line" 1)
	glob=$(field "$line" 2)
	files=$(cd "$S" && eval "echo $glob")
	pat=$(unesc "$(field "$line" 3)")
	tests=$(field "$line" 5)
	c=$(cd "$S" && count "$pat" $files 2>/dev/null)
	if [ "$c" != 1 ]; then
		say "$id: ERROR: the pattern occurs ${c:-0} times in $glob: $pat"
		echo "$id" >>"$W/bad"
		errors=$((errors + 1))
	fi
	[ -n "$tests" ] || {
		say "$id: ERROR: no test file named"
		echo "$id" >>"$W/bad"
		errors=$((errors + 1))
	}
	for t in $tests; do
		[ -f "$S/tests/$t.sh" ] || {
			say "$id: ERROR: no test file tests/$t.sh"
			echo "$id" >>"$W/bad"
			errors=$((errors + 1))
		}
		echo "$t" >>"$W/tests"
	done
done <"$W/breaks"
if [ "$CHECK" = 1 ]; then
	say "mutate: $n breaks checked: $errors errors"
	[ "$errors" -eq 0 ]
	exit
fi

# The unbroken build passes every test file named (else a failure under
# a break would mean nothing).
for t in $(sort -u "$W/tests" 2>/dev/null); do
	[ -f "$S/tests/$t.sh" ] || continue
	t0=$(date +%s)
	if ! run_test "$t" "$W/log/base-$t.tap"; then
		grep -E '^not ok|^#' "$W/log/base-$t.tap" | head -n 20
		die "$t fails on the tree as it is: fix that first"
	fi
	say "mutate: $t passes on the tree as it is ($(($(date +%s) - t0)) s)"
done

caught=0
missed=0
while IFS= read -r line; do
	id=$(field "$line" 1)
	grep -qx "$id" "$W/bad" 2>/dev/null && continue
	files=$(cd "$S" && eval "echo $(field "$line" 2)")
	pat=$(unesc "$(field "$line" 3)")
	rep=$(unesc "$(field "$line" 4)")
	tests=$(field "$line" 5)
	f=
	for x in $files; do
		[ "$(cd "$S" && count "$pat" "$x")" = 1 ] && f=$x
	done
	cp -p "$S/$f" "$W/orig"
	apply "$S/$f" "$pat" "$rep"
	if cmp -s "$S/$f" "$W/orig"; then
		say "$id: ERROR: $f unchanged"
		errors=$((errors + 1))
	elif ! build all helpers; then
		say "$id: ERROR: does not build ($f)"
		tail -n 5 "$W/log/build" | sed 's/^/    /'
		errors=$((errors + 1))
	else
		by=
		for t in $tests; do
			if ! run_test "$t" "$W/log/$id.tap"; then
				by=$t
				break
			fi
		done
		if [ -n "$by" ]; then
			say "$id: caught ($by: $(grep -c '^not ok' \
			    "$W/log/$id.tap") failed)"
			caught=$((caught + 1))
		else
			say "$id: MISSED ($tests passed; $f: $pat)"
			missed=$((missed + 1))
		fi
	fi
	# Restored, newer than the objects the break made.
	cp "$W/orig" "$S/$f"
	touch "$S/$f"
done <"$W/breaks"
build all helpers || die "the restored tree does not build"

say "mutate: $(wc -l <"$W/breaks" | tr -d ' ') breaks: $caught caught," \
	"$missed missed, $errors errors ($(($(date +%s) - start)) s)"
[ "$missed" -eq 0 ] && [ "$errors" -eq 0 ]
