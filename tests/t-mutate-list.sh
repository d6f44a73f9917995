#!/bin/sh
# tests/mutate.list against the tree as it is: every break's pattern
# occurs exactly once in its files and its test files exist
# (tests/mutate.sh --check), so a change that moves or rewrites a line
# the list breaks is told here, not at the next make mutate.
. "$(dirname "$0")/lib.sh"

MUT=$T_TOP/tests/mutate.sh
[ -f "$T_TOP/tests/mutate.list" ] || skip_all "no tests/mutate.list here"

t_exit 0 "every break of tests/mutate.list applies to the tree" \
    sh "$MUT" --check
t_grep "... and the count says so" '^mutate: [0-9]+ breaks checked: 0 errors$' \
    "$OUT"

# The check itself fails: a pattern found nowhere, one found twice, a
# test file that does not exist.
TAB=$(printf '\t')
L=$TMP/bad.list
{
	printf 'gone%scommon/err.c%sno such line in err.c%sx%st-cli\n' \
	    "$TAB" "$TAB" "$TAB" "$TAB"
	printf 'twice%scommon/err.c%s#include%sx%st-cli\n' \
	    "$TAB" "$TAB" "$TAB" "$TAB"
	printf 'notest%scommon/err.c%sdie_sys(%sx%st-no-such-file\n' \
	    "$TAB" "$TAB" "$TAB" "$TAB"
} >"$L"
t_exit 1 "a list with bad entries fails the check" sh "$MUT" --check "$L"
t_grep "... naming the pattern found nowhere" \
    '^gone: ERROR: the pattern occurs 0 times' "$OUT"
t_grep "... the pattern found twice" '^twice: ERROR: the pattern occurs [2-9]' \
    "$OUT"
t_grep "... and the missing test file" \
    '^notest: ERROR: no test file tests/t-no-such-file.sh' "$OUT"

done_testing
