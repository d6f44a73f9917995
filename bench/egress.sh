#!/bin/sh
# bench/egress.sh: what the egress broker costs a payload, side by side in
# one run.  One server on the host's loopback (bench/egress.py); the same
# python client, direct from the host or from inside a confexec run
# through its broker (CONNECT, then the broker's splice relay):
#   up, down   MIB MiB each way, MiB/s as the client times it (from its
#              first byte to the server's answer / the last byte); the
#              order alternates every round
#   conn       NCONN connections of one byte each way: microseconds per
#              connection, and what the broker adds to each
# and, for reference, the same client direct from the host through a
# generic user-space relay (socat -b 1 MiB, one process per connection):
# on a machine of two cores, client, relay and server share them.
# Medians over ROUNDS rounds; ratios to direct (the target: relayed >= 0.8
# for throughput).  The payload's launch is outside every timing.
# Throughput on a small machine swings with where the scheduler puts the
# client and the server (direct uploads have measured 1.3 and 4 GiB/s in
# one minute), so the spread is printed too, and the CPU time the whole
# machine spent per GiB moved (the server reads /proc/stat around each
# transfer): what the relay costs, whatever the throughput.
# Last, what the broker holds in the kernel at worst: 64 CONNECT tunnels
# (its most) stalled both ways, the destination sending while the
# payload reads nothing and the payload sending while the destination
# reads nothing (tests/egress-upstream.py and egress-client.py, stall),
# read from the host (tests/egress-mem.py, root: ss -p, nsenter): the
# peak of confexec's own sockets and pipes, beside the bound confexec(1)
# states.
#   ROUNDS (default 5), MIB (default 512), NCONN (default 200)
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BORNE_BIN:-$TOP/.build/dyn/bin}
ROUNDS=${ROUNDS:-5}
MIB=${MIB:-512}
NCONN=${NCONN:-200}
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "bench: needs $PY" >&2; exit 1; }
TMP=$(mktemp -d)
SPID='' SOCAT='' UPID='' CXPID=''
trap 'kill $SPID $SOCAT $UPID $CXPID 2>/dev/null; rm -rf "$TMP"' EXIT
"$PY" "$TOP/bench/egress.py" server "$TMP/port" &
SPID=$!
for i in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")
SOCAT=
if command -v socat >/dev/null; then
	SPORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	socat -b 1048576 "TCP-LISTEN:$SPORT,bind=127.0.0.1,reuseaddr,fork" \
	    "TCP:127.0.0.1:$PORT" &
	SOCAT=$!
	for i in $(seq 100); do
		"$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' \
		    "$SPORT" 2>/dev/null && break
		sleep 0.05
	done
fi
# relayed WHAT N: the client inside a run, through its broker.
relayed() {
	"$BIN/planenc" --preset sys --ro "$TOP/bench" \
	    --egress "127.0.0.1:$PORT" -- "$PY" "$TOP/bench/egress.py" \
	    client proxy "$PORT" "$1" "$2" | "$BIN/confexec"
}
direct() { "$PY" "$TOP/bench/egress.py" client direct "$PORT" "$1" "$2"; }
viasocat() {
	if [ -n "$SOCAT" ]; then
		"$PY" "$TOP/bench/egress.py" client direct "$SPORT" "$1" "$2"
	else
		echo 0
	fi
}
# cpu FILE: the CPU-ms per GiB of the last transfer, appended to FILE.
cpu() {
	tail -n 1 "$TMP/port.cpu" | awk '{printf "%.0f\n", $2 ? $1 * 1073741824 / $2 : 0}' >>"$1"
}
spread() { sort -n | awk 'NR == 1 {a = $1} {b = $1} END {printf "%s-%s", a, b}'; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

for r in $(seq "$ROUNDS"); do
	for w in up down; do
		if [ $((r % 2)) -eq 0 ]; then
			direct "$w" "$MIB" >>"$TMP/d.$w"; cpu "$TMP/d.cpu.$w"
			relayed "$w" "$MIB" >>"$TMP/r.$w"; cpu "$TMP/r.cpu.$w"
		else
			relayed "$w" "$MIB" >>"$TMP/r.$w"; cpu "$TMP/r.cpu.$w"
			direct "$w" "$MIB" >>"$TMP/d.$w"; cpu "$TMP/d.cpu.$w"
		fi
		if [ -n "$SOCAT" ]; then
			viasocat "$w" "$MIB" >>"$TMP/s.$w"; cpu "$TMP/s.cpu.$w"
		else
			echo 0 >>"$TMP/s.$w"; echo 0 >>"$TMP/s.cpu.$w"
		fi
	done
	direct conn "$NCONN" >>"$TMP/d.conn"
	relayed conn "$NCONN" >>"$TMP/r.conn"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b ? a / b : 0}'; }
printf '%-34s %10s %10s %6s %10s %6s\n' "egress ($ROUNDS rounds, medians)" \
    direct relayed ratio socat ratio
for w in up down; do
	d=$(median <"$TMP/d.$w"); r=$(median <"$TMP/r.$w"); s=$(median <"$TMP/s.$w")
	printf '%-34s %10s %10s %6s %10s %6s\n' "throughput $w, $MIB MiB (MiB/s)" \
	    "$d" "$r" "$(ratio "$r" "$d")" "$s" "$(ratio "$s" "$d")"
done
for w in up down; do
	printf '%-34s %10s %10s %6s %10s\n' "  spread $w (MiB/s)" \
	    "$(spread <"$TMP/d.$w")" "$(spread <"$TMP/r.$w")" "" \
	    "$(spread <"$TMP/s.$w")"
done
for w in up down; do
	d=$(median <"$TMP/d.cpu.$w"); r=$(median <"$TMP/r.cpu.$w")
	s=$(median <"$TMP/s.cpu.$w")
	printf '%-34s %10s %10s %6s %10s %6s\n' "CPU per GiB $w (ms, machine)" \
	    "$d" "$r" "$(ratio "$r" "$d")" "$s" "$(ratio "$s" "$d")"
done
d=$(median <"$TMP/d.conn"); r=$(median <"$TMP/r.conn")
printf '%-34s %10s %10s %6s\n' "per connection (us)" "$d" "$r" \
    "$(ratio "$r" "$d")"
printf '%-34s %10s\n' "added by the broker (us/conn)" \
    "$(awk -v a="$r" -v b="$d" 'BEGIN {printf "%.1f", a - b}')"

# The stalled tunnels.
BOUND=64	# MiB: confexec(1), Egress
if [ "$(id -u)" -ne 0 ] || ! command -v ss >/dev/null ||
    ! command -v nsenter >/dev/null; then
	printf '%-34s %10s\n' "broker memory, 64 stalled (MiB)" \
	    "n/a (needs root, ss and nsenter)"
	exit 0
fi
"$PY" "$TOP/tests/egress-upstream.py" 127.0.0.1 "$TMP/ups.port" \
    "$TMP/ups.log" >/dev/null 2>&1 &
UPID=$!
for i in $(seq 100); do [ -s "$TMP/ups.port" ] && break; sleep 0.05; done
UPORT=$(cat "$TMP/ups.port")
mkdir "$TMP/io"
"$BIN/planenc" --preset sys --ro "$TOP/tests" --rw "$TMP/io" --timeout 300s \
    --egress "127.0.0.1:$UPORT" -- "$PY" "$TOP/tests/egress-client.py" stall \
    127.0.0.1 "$UPORT" 64 "$TMP/io/ready" "$TMP/io/go" >"$TMP/stall.plan"
"$BIN/confexec" <"$TMP/stall.plan" >/dev/null &
CXPID=$!
for i in $(seq 1200); do
	[ -e "$TMP/io/ready" ] && break
	kill -0 "$CXPID" 2>/dev/null || break
	sleep 0.1
done
[ -e "$TMP/io/ready" ] || { echo "bench: the tunnels did not stall" >&2; exit 1; }
"$PY" "$TOP/tests/egress-mem.py" "$CXPID" peak >"$TMP/mem"
touch "$TMP/io/go"
wait "$CXPID" || true
CXPID=
mib() { tr ' ' '\n' <"$TMP/mem" | sed -n "s/^$1=//p" |
	awk '{printf "%.1f", $1 / 1048576}'; }
printf '%-34s %10s %10s %10s %6s\n' "broker memory, 64 stalled (MiB)" \
    sockets pipes total bound
printf '%-34s %10s %10s %10s %6s\n' "  peak, both ways" "$(mib socket_bytes)" \
    "$(mib pipe_bytes)" "$(mib total)" "$BOUND"
