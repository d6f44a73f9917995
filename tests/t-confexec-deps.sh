#!/bin/sh
# confexec's modules (run.h's map, loop.h's contract): the graph of
# who includes whose header or uses whose symbols has no cycle but the
# loop's with its sources (the table names them, they call the loop); no
# file but loop.c names a source, none outside a source uses its parts,
# and a src_NAME.c exports src_NAME alone; every other module exports
# names with its own prefix, and a file includes a header of
# cmd/confexec only when it uses one of the names the header declares.
# Read from this build's objects (nm), so a symbol really used counts,
# not a declaration.
. "$(dirname "$0")/lib.sh"

need_cmd nm
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "needs /usr/bin/python3"
DEPS=$T_TOP/tests/confexec-deps.py
OBJ=$(cd "$BIN/.." && pwd)/cmd/confexec
SRC=$T_TOP/cmd/confexec

t_exit 0 "the checker finds a planted cycle, a sink naming a source, a \
part used outside its source, a second export, an export without its \
prefix, an include without a use" "$PY" "$DEPS" --self-test
t_grep "... and says so" '^self-test: ok$' "$OUT"

n=0
for c in "$SRC"/*.c; do
	o=$OBJ/$(basename "$c" .c).o
	[ -f "$o" ] && n=$((n + 1))
done
t_eq "every file of cmd/confexec has its object in this build" \
    "$n" "$(ls "$SRC"/*.c | wc -l | tr -d ' ')"

t_exit 0 "no cycle but the loop's registration; sources named by the \
loop only" "$PY" "$DEPS" "$OBJ" "$SRC"
diag_file "$OUT"
t_grep "the loop names the sources" '^loop -> .*src_control .*src_egress' \
    "$OUT"
t_grep "the count of cycles left is 0" \
    '^cycles: [0-9]+ in all, 0 without the loop' "$OUT"
t_grep "every header included is used" '^includes without a use: 0$' "$OUT"
t_nogrep "every export has its module's prefix" 'not prefixed' "$OUT"
t_nogrep "the sinks name no source" \
    '^(events|end|confexec|record|ctl) -> .*src_' "$OUT"

done_testing
