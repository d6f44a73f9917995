#!/bin/sh
# bench/egress.sh: what the egress broker costs a payload, side by side in
# one run.  The same python client (bench/egress.py) moves MIB MiB up or
# down to a server, over 1 and over 16 connections at once:
#   direct   from the host
#   socat    from the host through a generic user-space relay (socat
#            -b 1 MiB, one process per connection, 60 s for an answer
#            once one side ended)
#   broker   from inside a confexec run, through its broker (CONNECT,
#            then the broker's splice relay)
#   before   the same through another build's confexec, when
#            BORNE_BIN_BEFORE names its bin directory (e.g. the main
#            branch built in a directory of its own): before and after
#            in one run
# over two paths:
#   lo       the server on the host's loopback
#   far      the server in a network namespace the bench makes, behind
#            a path of DELAY_MS each way (a round trip of 2 x DELAY_MS):
#            two TUN devices, every packet carried from one to the other
#            DELAY_MS later by bench/egress.py path (a qdisc such as
#            netem does the same where the kernel has it); FAR_MIB MiB
# Each figure: the median over ROUNDS rounds, the spread beside it; the
# order of the relays rotates every round.  MiB/s as the client times it
# (from the first byte to the last connection's end; the connections
# are open before), the ratio to direct, and the relay's own CPU time
# per GiB moved (confexec's, socat's with its children's), read from
# /proc around the transfer: the machine's other work is not in it.
# On a machine of two cores, client, relay and server share them.
# Then the per-connection cost (NCONN connections of one byte each way),
# and what the broker holds in the kernel at worst: 64 CONNECT tunnels
# (its most) stalled both ways (tests/egress-upstream.py and
# egress-client.py, stall), read from the host (tests/egress-mem.py,
# root: ss -p, nsenter): the peak of confexec's own sockets and pipes,
# beside the bound confexec(1) states.
#   ROUNDS (3), MIB (512), FAR_MIB (48), DELAY_MS (50), NCONN (200)
# The far path needs root, ip(8) and /dev/net/tun; without them it is
# said and left out.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BORNE_BIN:-$TOP/.build/dyn/bin}
BEFORE=${BORNE_BIN_BEFORE:-}
ROUNDS=${ROUNDS:-3}
MIB=${MIB:-512}
FAR_MIB=${FAR_MIB:-48}
DELAY_MS=${DELAY_MS:-50}
FAR=${FAR:-1}	# 0: the loopback path only
NCONN=${NCONN:-200}
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "bench: needs $PY" >&2; exit 1; }
command -v socat >/dev/null || { echo "bench: needs socat" >&2; exit 1; }
TMP=$(mktemp -d)
NS=borne-bench-$$
PIDS=''
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$PIDS" ] || kill $PIDS 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
waitfile() {	# FILE [PID]: FILE made (60 s at most), PID still alive
	for _ in $(seq 1200); do
		[ -e "$1" ] && return 0
		[ -z "${2:-}" ] || kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
freeport() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$PY" "$TOP/bench/egress.py" server "$TMP/lo.port" &
PIDS="$PIDS $!"
waitfile "$TMP/lo.port"
LO_HOST=127.0.0.1 LO_PORT=$(cat "$TMP/lo.port")
FAR_HOST='' FAR_PORT=

PATHS=lo
if [ "$FAR" != 0 ] && [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && [ -c /dev/net/tun ] &&
    ip netns add "$NS" 2>/dev/null; then
	NET=10.239.$(($$ % 250)).
	"$PY" "$TOP/bench/egress.py" path "bb$$a" "bb$$b" "/run/netns/$NS" \
	    "$DELAY_MS" "$TMP/path.ready" &
	PIDS="$PIDS $!"
	waitfile "$TMP/path.ready" "$!"
	ip addr add "${NET}1/30" dev "bb$$a"
	ip link set "bb$$a" up
	ip -n "$NS" link set lo up
	ip -n "$NS" addr add "${NET}2/30" dev "bb$$b"
	ip -n "$NS" link set "bb$$b" up
	ip netns exec "$NS" "$PY" "$TOP/bench/egress.py" server \
	    "$TMP/far.port" "${NET}2" &
	PIDS="$PIDS $!"
	waitfile "$TMP/far.port"
	FAR_HOST=${NET}2 FAR_PORT=$(cat "$TMP/far.port")
	PATHS="lo far"
else
	echo "bench: no far path (needs root, ip and /dev/net/tun)" >&2
fi
# endpoint PATH: the server's h and port on PATH.
endpoint() {
	case $1 in
	lo) h=$LO_HOST port=$LO_PORT ;;
	*) h=$FAR_HOST port=$FAR_PORT ;;
	esac
}
# One socat per path, forking a process per connection.
for p in $PATHS; do
	endpoint "$p"
	sp=$(freeport)
	socat -b 1048576 -t 60 "TCP-LISTEN:$sp,bind=127.0.0.1,reuseaddr,fork" \
	    "TCP:$h:$port" &
	PIDS="$PIDS $!"
	eval "SOCAT_$p=$! SOCAT_PORT_$p=$sp"
	for _ in $(seq 100); do
		"$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' \
		    "$sp" 2>/dev/null && break
		sleep 0.05
	done
done

# ticks PID: its CPU time (with its waited-for children's) in ticks.
ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }
TCK=$(getconf CLK_TCK)
mkdir "$TMP/sync"
# xfer RELAY PATH WHAT N: one transfer; "MIB/S CPU-MS-PER-GIB" appended
# to $TMP/r.RELAY.PATH.WHAT.N.
xfer() {
	relay=$1 p=$2 what=$3 n=$4
	endpoint "$p"
	mib=$MIB
	[ "$p" = lo ] || mib=$FAR_MIB
	rm -f "$TMP/sync/"*
	cpid=''
	case $relay in
	direct)
		"$PY" "$TOP/bench/egress.py" client direct "$h" "$port" \
		    "$what" "$mib" "$n" "$TMP/sync" >"$TMP/out" &
		pid=$! ;;
	socat)
		eval "cpid=\$SOCAT_$p sp=\$SOCAT_PORT_$p"
		"$PY" "$TOP/bench/egress.py" client direct 127.0.0.1 "$sp" \
		    "$what" "$mib" "$n" "$TMP/sync" >"$TMP/out" &
		pid=$! ;;
	broker|before)
		b=$BIN
		[ "$relay" = broker ] || b=$BEFORE
		"$b/planenc" --preset sys --ro "$TOP/bench" --rw "$TMP/sync" \
		    --egress "$h:$port" -- "$PY" "$TOP/bench/egress.py" \
		    client proxy "$h" "$port" "$what" "$mib" "$n" \
		    "$TMP/sync" >"$TMP/plan"
		"$b/confexec" <"$TMP/plan" >"$TMP/out" &
		pid=$! cpid=$pid ;;
	esac
	waitfile "$TMP/sync/ready" "$pid" || { echo "bench: $relay $p: no start" >&2; exit 1; }
	c0=0
	[ -z "$cpid" ] || c0=$(ticks "$cpid")
	touch "$TMP/sync/start"
	waitfile "$TMP/sync/done" "$pid" || { echo "bench: $relay $p $what $n failed" >&2; exit 1; }
	if [ "$relay" = socat ]; then
		# Its children ended and waited for: their time is its.
		for _ in $(seq 200); do
			[ -z "$(ps -o pid= --ppid "$cpid")" ] && break
			sleep 0.05
		done
	fi
	c1=0
	[ -z "$cpid" ] || c1=$(ticks "$cpid")
	touch "$TMP/sync/go"
	wait "$pid"
	awk -v r="$(cat "$TMP/out")" -v t="$((c1 - c0))" -v tck="$TCK" \
	    -v m="$mib" 'BEGIN {printf "%s %.0f\n", r, t * 1000 / tck * 1024 / m}' \
	    >>"$TMP/r.$relay.$p.$what.$n"
}

RELAYS="direct socat broker"
[ -z "$BEFORE" ] || RELAYS="$RELAYS before"
for r in $(seq "$ROUNDS"); do
	# Rotate the order every round.
	# shellcheck disable=SC2086 # a list of words
	set -- $RELAYS
	k=$(((r - 1) % $#))
	while [ "$k" -gt 0 ]; do x=$1; shift; set -- "$@" "$x"; k=$((k - 1)); done
	for p in $PATHS; do
		for what in up down; do
			for n in 1 16; do
				for relay in "$@"; do
					xfer "$relay" "$p" "$what" "$n"
				done
			done
		done
	done
	"$PY" "$TOP/bench/egress.py" client direct "$LO_HOST" "$LO_PORT" \
	    conn "$NCONN" >>"$TMP/c.direct"
	for relay in broker ${BEFORE:+before}; do
		b=$BIN
		[ "$relay" = broker ] || b=$BEFORE
		"$b/planenc" --preset sys --ro "$TOP/bench" \
		    --egress "$LO_HOST:$LO_PORT" -- "$PY" \
		    "$TOP/bench/egress.py" client proxy "$LO_HOST" "$LO_PORT" \
		    conn "$NCONN" | "$b/confexec" >>"$TMP/c.$relay"
	done
done

col() { awk -v c="$1" '{print $c}' "$2"; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
spread() { sort -n | awk 'NR == 1 {a = $1} {b = $1} END {printf "%s-%s", a, b}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b ? a / b : 0}'; }
echo "egress: $ROUNDS rounds, median (spread); lo $MIB MiB, far $FAR_MIB MiB at a $((2 * DELAY_MS)) ms round trip"
echo "throughput (MiB/s), and against direct"
printf '%-14s' "path dir conns"
for relay in $RELAYS; do printf ' %22s' "$relay"; done
echo
for p in $PATHS; do for what in up down; do for n in 1 16; do
	printf '%-14s' "$p $what $n"
	d=$(col 1 "$TMP/r.direct.$p.$what.$n" | median)
	for relay in $RELAYS; do
		f=$TMP/r.$relay.$p.$what.$n
		m=$(col 1 "$f" | median)
		if [ "$relay" = direct ]; then
			printf ' %22s' "$m ($(col 1 "$f" | spread))"
		else
			printf ' %22s' "$m $(ratio "$m" "$d")x ($(col 1 "$f" | spread))"
		fi
	done
	echo
done; done; done
echo "relay CPU per GiB moved (ms: the relay process's own), and against socat"
printf '%-14s' "path dir conns"
for relay in $RELAYS; do [ "$relay" = direct ] || printf ' %22s' "$relay"; done
echo
for p in $PATHS; do for what in up down; do for n in 1 16; do
	printf '%-14s' "$p $what $n"
	s=$(col 2 "$TMP/r.socat.$p.$what.$n" | median)
	for relay in $RELAYS; do
		[ "$relay" != direct ] || continue
		f=$TMP/r.$relay.$p.$what.$n
		m=$(col 2 "$f" | median)
		if [ "$relay" = socat ]; then
			printf ' %22s' "$m ($(col 2 "$f" | spread))"
		else
			printf ' %22s' "$m $(ratio "$m" "$s")x ($(col 2 "$f" | spread))"
		fi
	done
	echo
done; done; done
d=$(median <"$TMP/c.direct")
printf '%-34s %10s' "per connection, lo (us)" "$d"
for relay in broker ${BEFORE:+before}; do
	r=$(median <"$TMP/c.$relay")
	printf ' %s %s (+%s)' "$relay" "$r" "$(awk -v a="$r" -v b="$d" 'BEGIN {printf "%.1f", a - b}')"
done
echo

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
PIDS="$PIDS $!"
waitfile "$TMP/ups.port"
UPORT=$(cat "$TMP/ups.port")
mib() { tr ' ' '\n' <"$TMP/mem" | sed -n "s/^$1=//p" |
	awk '{printf "%.1f", $1 / 1048576}'; }
printf '%-34s %10s %10s %10s %6s\n' "broker memory, 64 stalled (MiB)" \
    sockets pipes total bound
for relay in broker ${BEFORE:+before}; do
	b=$BIN
	[ "$relay" = broker ] || b=$BEFORE
	rm -rf "$TMP/io"
	mkdir "$TMP/io"
	"$b/planenc" --preset sys --ro "$TOP/tests" --rw "$TMP/io" \
	    --timeout 300s --egress "127.0.0.1:$UPORT" -- "$PY" \
	    "$TOP/tests/egress-client.py" stall 127.0.0.1 "$UPORT" 64 \
	    "$TMP/io/ready" "$TMP/io/go" >"$TMP/stall.plan"
	"$b/confexec" <"$TMP/stall.plan" >/dev/null &
	cx=$!
	waitfile "$TMP/io/ready" "$cx" ||
	    { echo "bench: the tunnels did not stall" >&2; exit 1; }
	"$PY" "$TOP/tests/egress-mem.py" "$cx" peak >"$TMP/mem"
	touch "$TMP/io/go"
	wait "$cx" || true
	printf '%-34s %10s %10s %10s %6s\n' "  $relay, peak both ways" \
	    "$(mib socket_bytes)" "$(mib pipe_bytes)" "$(mib total)" "$BOUND"
done
