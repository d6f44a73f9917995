# tests/egress-lib.sh: the egress family's setup (t-confexec-egress,
# t-confexec-guard, t-confexec-egress-mem), sourced after lib.sh and the
# file's guards: python3, the test destination (tests/egress-upstream.py)
# and client (tests/egress-client.py), the payloads' tree $IO, their
# journal $J and base plan $BASEP.
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "needs /usr/bin/python3"

UPS=$T_TOP/tests/egress-upstream.py
CLI=$T_TOP/tests/egress-client.py
IO=$TMP/io
mkdir -p "$IO"
BASEP="--preset sys --ro /proc --ro $T_TOP/tests --rox $HELP --rw $IO \
	--setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0"
J=$TMP/run.jnl

# upstream ADDR NAME [freebind]: a destination on ADDR; its port in
# $NAME.port, its requests in $NAME.log, its accepted connections in
# $NAME.acc.
upstream() {
	"$PY" "$UPS" "$1" "$TMP/$2.port" "$TMP/$2.log" "$TMP/$2.acc" \
	    ${3:-} >/dev/null 2>"$TMP/$2.err" &
	at_exit "kill_ours $! 2>/dev/null"
	wait_for test -s "$TMP/$2.port"
	: >>"$TMP/$2.log"
	: >>"$TMP/$2.acc"
}
