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
# Medians over ROUNDS rounds; ratios relayed / direct (the target: >= 0.8
# for throughput).  The payload's launch is outside every timing.
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
trap 'kill $SPID 2>/dev/null; rm -rf "$TMP"' EXIT
"$PY" "$TOP/bench/egress.py" server "$TMP/port" &
SPID=$!
for i in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")
# relayed WHAT N: the client inside a run, through its broker.
relayed() {
	"$BIN/planenc" --preset sys --ro "$TOP/bench" \
	    --egress "127.0.0.1:$PORT" -- "$PY" "$TOP/bench/egress.py" \
	    client proxy "$PORT" "$1" "$2" | "$BIN/confexec"
}
direct() { "$PY" "$TOP/bench/egress.py" client direct "$PORT" "$1" "$2"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

for r in $(seq "$ROUNDS"); do
	for w in up down; do
		if [ $((r % 2)) -eq 0 ]; then
			direct "$w" "$MIB" >>"$TMP/d.$w"
			relayed "$w" "$MIB" >>"$TMP/r.$w"
		else
			relayed "$w" "$MIB" >>"$TMP/r.$w"
			direct "$w" "$MIB" >>"$TMP/d.$w"
		fi
	done
	direct conn "$NCONN" >>"$TMP/d.conn"
	relayed conn "$NCONN" >>"$TMP/r.conn"
done
printf '%-34s %12s %12s %8s\n' "egress ($ROUNDS rounds, medians)" direct relayed ratio
for w in up down; do
	d=$(median <"$TMP/d.$w"); r=$(median <"$TMP/r.$w")
	printf '%-34s %12s %12s %8s\n' "throughput $w, $MIB MiB (MiB/s)" "$d" "$r" \
	    "$(awk -v a="$r" -v b="$d" 'BEGIN {printf "%.2f", a / b}')"
done
d=$(median <"$TMP/d.conn"); r=$(median <"$TMP/r.conn")
printf '%-34s %12s %12s %8s\n' "per connection (us)" "$d" "$r" \
    "$(awk -v a="$r" -v b="$d" 'BEGIN {printf "%.2f", a / b}')"
printf '%-34s %12s\n' "added by the broker (us/conn)" \
    "$(awk -v a="$r" -v b="$d" 'BEGIN {printf "%.1f", a - b}')"
