#!/bin/sh
# confexec's egress broker (planenc --egress; confexec(1), EGRESS).
# Destinations are python3 servers on the host's loopback
# (tests/egress-upstream.py); the payload is curl, python's urllib and
# http.client (tests/egress-client.py), and the escape helper for what
# must be refused from inside.  Every refusal is checked twice: the
# payload's errno or HTTP status, and the host side (the destination
# saw nothing, the journal says why).
. "$(dirname "$0")/lib.sh"

needs root landlock=4 jq curl nsenter socat
. "$T_TOP/tests/egress-lib.sh"

upstream 127.0.0.1 up
upstream 127.0.0.1 other
upstream ::1 up6
UP=$(cat "$TMP/up.port")
OTHER=$(cat "$TMP/other.port")
UP6=$(cat "$TMP/up6.port")
[ -n "$UP" ] && [ -n "$OTHER" ] && [ -n "$UP6" ] ||
	skip_all "the test destinations did not start"

# cx PLANENC-ARGS...: one run with journal $J (emptied first).
cx() {
	rm -f "$J"
	# shellcheck disable=SC2086
	"$PE" $BASEP "$@" >"$TMP/plan" || return 124
	"$CX" --journal "$J" <"$TMP/plan"
}
# events FILTER: FILTER on each of the run's egress events.
events() { jq -c ".event | select(.event == \"egress\") | $1" "$J" \
	2>/dev/null; }
jend() { grep '"event":"end"' "$J" | tail -n 1 | jq -r "$1"; }
lines() { wc -l <"$1" | tr -d ' '; }

head -c 1048576 /dev/urandom >"$IO/in.bin"
SUM=$(sha256sum <"$IO/in.bin")

# ---- the environment and the listener ----------------------------------
t_exit 0 "a run with egress runs" cx --egress "127.0.0.1:$UP" -- /usr/bin/env
cp "$OUT" "$TMP/env"
PORT=$(grep '"event":"start"' "$J" | jq -r '.event.egress.port')
t_eq "the start record names the broker's port and the destinations" \
	"$(grep '"event":"start"' "$J" | jq -r '.event.egress.destinations')" 1
case $PORT in ''|null|*[!0-9]*) PORT=0 ;; esac
ok "the port is a kernel-assigned one (not 0)" test "$PORT" -gt 0
for v in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy; do
	t_grep "$v names the broker" "^$v=http://127.0.0.1:$PORT\$" "$TMP/env"
done
t_exit 2 "a plan setting a proxy variable itself is refused by planenc" \
	"$PE" --egress "127.0.0.1:$UP" --setenv HTTP_PROXY=http://x -- /bin/true
t_grep "the refusal names the variable" 'HTTP_PROXY' "$ERR"

# ---- relayed byte for byte: curl and python, HTTP and CONNECT ----------
rm -f "$IO/out.bin"
t_exit 0 "curl POSTs 1 MiB through the broker (absolute-form HTTP)" \
	cx --egress "127.0.0.1:$UP" -- /usr/bin/curl -sS --fail \
	--data-binary "@$IO/in.bin" -o "$IO/out.bin" "http://127.0.0.1:$UP/echo"
t_eq "1 MiB came back byte for byte" "$(sha256sum <"$IO/out.bin" 2>/dev/null)" "$SUM"
t_eq "one event: allowed, http, the destination and its address" \
	"$(events '[.verdict,.kind,.host,.port,.address,.status]')" \
	"[\"allowed\",\"http\",\"127.0.0.1\",$UP,\"127.0.0.1\",200]"
ok "the event counts at least 1 MiB each way" test \
	"$(events '.bytes_sent >= 1048576 and .bytes_received >= 1048576')" = true
t_grep "upstream saw the request in origin form, Connection: close" \
	"^POST /echo HTTP/1.1	.*Connection: close" "$TMP/up.log"
t_nogrep "upstream saw no Proxy-* header" "Proxy-" "$TMP/up.log"
t_exit 0 "the journal with its egress events verifies" \
	"$BIN/journalchain" verify "$J"

rm -f "$IO/out.bin"
t_exit 0 "curl --proxytunnel: 1 MiB through CONNECT" \
	cx --egress "127.0.0.1:$UP" -- /usr/bin/curl -sS --fail -p \
	--data-binary "@$IO/in.bin" -o "$IO/out.bin" "http://127.0.0.1:$UP/echo"
t_eq "CONNECT: byte for byte" "$(sha256sum <"$IO/out.bin" 2>/dev/null)" "$SUM"
t_eq "CONNECT: the event" "$(events '[.verdict,.kind]')" '["allowed","connect"]'

rm -f "$IO/out.bin"
t_exit 0 "python urllib POSTs 1 MiB through the broker" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" urllib-echo \
	"http://127.0.0.1:$UP/echo" "$IO/in.bin" "$IO/out.bin"
t_eq "urllib: byte for byte" "$(sha256sum <"$IO/out.bin" 2>/dev/null)" "$SUM"
rm -f "$IO/out.bin"
t_exit 0 "python http.client through CONNECT (set_tunnel), 1 MiB" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" tunnel-echo 127.0.0.1 \
	"$UP" "$IO/in.bin" "$IO/out.bin"
t_eq "tunnel: byte for byte" "$(sha256sum <"$IO/out.bin" 2>/dev/null)" "$SUM"

rm -f "$IO/out.bin"
t_exit 0 "IPv6 literal destination, listed: relayed" \
	cx --egress "[::1]:$UP6" -- /usr/bin/curl -sS --fail -p \
	--data-binary "@$IO/in.bin" -o "$IO/out.bin" "http://[::1]:$UP6/echo"
t_eq "IPv6: byte for byte" "$(sha256sum <"$IO/out.bin" 2>/dev/null)" "$SUM"

# Not root: confexec in a user namespace of its own makes the run's
# network there (no cgroup without delegation: --degrade says so).
"$PE" --degrade $BASEP --egress "127.0.0.1:$UP" -- /usr/bin/curl -sS --fail \
	"http://127.0.0.1:$UP/bytes/1000" >"$TMP/nr.plan"
chmod 644 "$TMP/nr.plan"
chmod 755 "$TMP"
# (Under the sanitizers the leak checker cannot run there: its tracer
# would be a process of the run's pid namespace, which an unprivileged
# confexec does not leave.)
t_exit 0 "not root (uid 65534): relayed through its own broker" \
	env ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CX" <"$TMP/nr.plan"
t_eq "1000 bytes came back" "$(wc -c <"$OUT" | tr -d ' ')" 1000

# ---- what is not on the list ------------------------------------------
n0=$(lines "$TMP/other.log")
t_exit 0 "an unlisted destination: the payload gets 403" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" status \
	"http://127.0.0.1:$OTHER/"
t_grep "403" '^403$' "$OUT"
t_grep "with a one-line reason" "^confexec egress: 127.0.0.1 port $OTHER is not on this run's egress list$" "$OUT"
t_eq "the event: refused, 403, the reason" \
	"$(events '[.verdict,.status,.host,.port,.bytes_sent]')" \
	"[\"refused\",403,\"127.0.0.1\",$OTHER,0]"
t_eq "host side: the unlisted destination saw nothing" \
	"$(lines "$TMP/other.log")" "$n0"
t_grep "stderr names the refusal and the --egress that would allow it" \
	"^confexec: egress: refused: 127.0.0.1 port $OTHER is not on this run's egress list \\(allow it with --egress 127.0.0.1:$OTHER\\)\$" \
	"$ERR"
t_eq "  in one line" "$(grep -c '^confexec: egress: ' "$ERR")" 1
t_eq "  counted as said" "$(jend '[.event.egress.said,.event.egress.unsaid]|@csv')" \
	"1,0"
t_exit 56 "CONNECT to an unlisted port: curl's tunnel fails" \
	cx --egress "127.0.0.1:$UP" -- /usr/bin/curl -sS -p \
	"http://127.0.0.1:$OTHER/"
t_grep "curl saw 403" '403' "$ERR"
# stderr a regular file: the payload's lines and confexec's, said while
# the payload runs, all kept (neither writes over the other: both
# append); the payload's in the order it wrote them.
cx --egress "127.0.0.1:$UP" -- /bin/sh -c 'echo before >&2;
	/usr/bin/curl -sS -p "http://127.0.0.1:$0/"; echo "after $?" >&2' \
	"$OTHER" >/dev/null 2>"$TMP/mixed.err"
sed -e 's/^confexec: egress: refused: .*/CONFEXEC/' \
    -e 's/^curl: (56) .*403.*/CURL/' "$TMP/mixed.err" >"$TMP/mixed.tags"
t_eq "stderr in a file: the payload's lines and confexec's, none overwritten" \
	"$(LC_ALL=C sort "$TMP/mixed.tags" | tr '\n' ' ')" "CONFEXEC CURL after 56 before "
t_eq "  the payload's in its order" \
	"$(grep -v CONFEXEC "$TMP/mixed.tags" | tr '\n' ' ')" "before CURL after 56 "
t_eq "  confexec's refusal said before curl could read the answer" \
	"$(tr '\n' ' ' <"$TMP/mixed.tags")" "before CONFEXEC CURL after 56 "
t_eq "the end record counts the refusal" \
	"$(jend '[.event.egress.allowed,.event.egress.refused]|@csv')" "0,1"
# The caller writes on after the run, through its own description of the
# file (not appending): it goes on after the run's lines, the payload's
# and confexec's (an exit's hint after the loop), not over them.
{ cx --egress "127.0.0.1:$UP" -- /bin/sh -c 'echo payload >&2; exit 3'
	echo "after $?" >&2; } >/dev/null 2>"$TMP/cont.err"
t_eq "stderr a file the caller writes to after the run: every line kept, in order" \
	"$(sed 's/^confexec: .*/CONFEXEC/' "$TMP/cont.err" | uniq | tr '\n' ' ')" \
	"payload CONFEXEC after 3 "
t_exit 0 "the same host on another port is another destination" \
	cx --egress "127.0.0.1:$OTHER" -- "$PY" "$CLI" status \
	"http://127.0.0.1:$UP/"
t_grep "403 again" '^403$' "$OUT"

# ---- refusals on stderr: bounded, never waited on ----------------------
# 20 unlisted destinations, each refused twice: the first 16 said once
# each, the other 4 destinations' refusals counted in one line at the end.
t_exit 0 "20 unlisted destinations, twice each" \
	cx --egress "127.0.0.1:$UP" -- /bin/sh -c 'for p in $(seq 1 20) \
	    $(seq 1 20); do /usr/bin/curl -s -o /dev/null \
	    "http://127.0.0.1:$p/"; done; echo done'
t_grep "  the payload ran through" '^done$' "$OUT"
t_eq "  17 lines: 16 destinations, then the rest counted" \
	"$(grep -c '^confexec: egress: ' "$ERR")" 17
t_eq "  each of the 16 once" \
	"$(grep -c '^confexec: egress: refused: 127.0.0.1 port [0-9]* is not' "$ERR")" 16
t_grep "  the rest: 8 refusals (4 destinations, twice)" \
	'^confexec: egress: 8 more refusals not said here \(at most 16 destinations are, each once; the journal has every refusal\)$' \
	"$ERR"
t_eq "  the end record: 40 refused, 16 said, 8 unsaid" \
	"$(jend '[.event.egress.refused,.event.egress.said,.event.egress.unsaid]|@csv')" \
	"40,16,8"

# stderr a pipe that nobody drains, full already: the loop does not
# wait on it (the payload's connections are still answered), the lines
# are dropped and counted.
mkfifo "$TMP/full"
exec 3<>"$TMP/full"
"$PY" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
try:
    while True:
        os.write(fd, b"x" * 4096)
except BlockingIOError:
    pass' "$TMP/full"
rm -f "$J"
"$PE" $BASEP --egress "127.0.0.1:$UP" -- /bin/sh -c 'for p in 1 2 3; do
	/usr/bin/curl -s -o /dev/null -w "%{http_code}\n" \
	    "http://127.0.0.1:$p/"; done' >"$TMP/full.plan"
t_exit 0 "stderr full and undrained: the run ends (bounded by timeout 60)" \
	sh -c 'exec timeout -k 5 60 "$0" --journal "$1" <"$2" 2>&3' "$CX" "$J" \
	"$TMP/full.plan"
t_eq "  the payload got its three 403s" "$(tr '\n' ' ' <"$OUT")" "403 403 403 "
t_eq "  the end record: 3 refused, none said, 3 unsaid" \
	"$(jend '[.event.egress.refused,.event.egress.said,.event.egress.unsaid]|@csv')" \
	"3,0,3"
exec 3>&-

# ---- names, resolved by the broker, and the guard ----------------------
n0=$(lines "$TMP/up.log")
t_exit 0 "a listed name resolving to loopback: refused" \
	cx --egress "localhost:$UP" -- "$PY" "$CLI" status "http://localhost:$UP/"
t_grep "403" '^403$' "$OUT"
t_grep "the reason names the address and why" \
	"localhost resolves only to addresses refused unless listed as IP literals: .*127\\.0\\.0\\.1 \\(loopback\\)" "$OUT"
t_grep "stderr names the IP literal that would allow it" \
	"^confexec: egress: refused: localhost resolves only to .*\\(allow it with --egress (127\\.0\\.0\\.1|\\[::1\\]):$UP\\)\$" \
	"$ERR"
t_eq "host side: nothing reached the destination" "$(lines "$TMP/up.log")" "$n0"
t_exit 0 "the same name, with 127.0.0.1 listed as a literal: allowed" \
	cx --egress "localhost:$UP" --egress "127.0.0.1:$UP" -- \
	"$PY" "$CLI" status "http://localhost:$UP/"
t_grep "200" '^200$' "$OUT"
t_eq "the event names the name and the address it reached" \
	"$(events '[.verdict,.host,.address]')" '["allowed","localhost","127.0.0.1"]'
# Names of the test's own, in a private mount namespace where
# /etc/hosts is the test's: the broker's resolver reads it.
cat /etc/hosts >"$TMP/hosts"
cat >>"$TMP/hosts" <<EOF
::1 v6.borne.test
10.1.2.3 private.borne.test
169.254.1.1 linklocal.borne.test
fd00::1 ula.borne.test
EOF
cxh() {
	rm -f "$J"
	# shellcheck disable=SC2086
	"$PE" $BASEP "$@" >"$TMP/plan" || return 124
	unshare -m sh -c 'mount --bind "$1" /etc/hosts && exec "$2" --journal "$3" <"$4"' \
	    sh "$TMP/hosts" "$CX" "$J" "$TMP/plan"
}
for c in "v6.borne.test ::1 loopback" "private.borne.test 10.1.2.3 private" \
    "linklocal.borne.test 169.254.1.1 link-local" \
    "ula.borne.test fd00::1 unique local"; do
	set -- $c
	t_exit 0 "a name resolving to $2: refused" cxh --egress "$1:$UP6" -- \
		"$PY" "$CLI" status "http://$1:$UP6/"
	t_grep "403, and why: $2 ($3...)" "^confexec egress: $1 resolves only to .*: $2 \\($3" "$OUT"
	case $2 in *:*) lit="\\[$2\\]" ;; *) lit=$2 ;; esac
	t_grep "  stderr: allow it with --egress $2 as a literal" \
		"^confexec: egress: refused: $1 .*\\(allow it with --egress $lit:$UP6\\)\$" \
		"$ERR"
	t_eq "the event: refused, no address reached" \
		"$(events '[.verdict,.status,.address]')" '["refused",403,null]'
done
t_exit 0 "a listed name that does not resolve: 502" \
	cx --egress "no-such-host.invalid:80" -- "$PY" "$CLI" status \
	"http://no-such-host.invalid/"
t_grep "502" '^502$' "$OUT"
t_grep "cannot resolve" 'cannot resolve no-such-host.invalid' "$OUT"

# ---- requests the broker refuses to parse ------------------------------
# raw STATUS DESC REQUEST: REQUEST sent as is through the broker (egress
# to the destination up), answered STATUS.
raw() {
	t_exit 0 "$2" cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" raw "$3"
	t_grep "$1" "^HTTP/1.1 $1 " "$OUT"
}
raw 405 "https in absolute form: 405" \
	"GET https://127.0.0.1:$UP/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
raw 400 "an origin-form request: 400" \
	"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
big=$(head -c 9000 /dev/zero | tr '\0' a)
raw 431 "a head over 8 KiB: 431" \
	"GET http://127.0.0.1:$UP/ HTTP/1.1\\r\\nX: $big\\r\\n\\r\\n"
raw 400 "a numeric name a resolver would take (127.1): 400, never resolved" \
	"CONNECT 127.1:$UP HTTP/1.1\\r\\n\\r\\n"
t_exit 0 "64 connections at once, the 65th: 503" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" limit 64
t_grep "503" '^HTTP/1.1 503 ' "$OUT"
t_eq "the 65th is an event too: refused, 503, the reason" \
	"$(events 'select(.status == 503) | [.verdict, .reason] | join(": ")')" \
	'"refused: more than 64 connections at once"'

# ---- failed connects, one after the other, never wear the broker out --
# Each failed connect used to leave its socket counted in the loop's
# budget of polled descriptors (160): past it, connections and control
# clients were never polled.  Port 1 of 127.0.0.1, listed: refused.
t_exit 0 "200 failed connects in one run" \
	cx --egress 127.0.0.1:1 --egress "127.0.0.1:$UP" -- /bin/sh -c \
	"$PY $CLI repeat 200 'CONNECT 127.0.0.1:1 HTTP/1.1\\r\\n\\r\\n' &&
	 $PY $CLI raw 'CONNECT 127.0.0.1:$UP HTTP/1.1\\r\\n\\r\\n'"
t_eq "each one answered 502 at once" \
	"$(grep -c '^HTTP/1.1 502 ' "$OUT")" 200
t_eq "then a listed destination is still relayed: 200" \
	"$(tail -n 1 "$OUT")" "HTTP/1.1 200 Connection established"
t_eq "200 events say failed, with the connect's errno" \
	"$(events 'select(.verdict == "failed") | .reason' |
	    grep -c 'connect 127.0.0.1 port 1: Connection refused')" 200

# ---- a head that comes one byte at a time --------------------------------
# Parsed once its blank line is there (each byte looked at once), and a
# bare LF judged as soon as it comes, not at the 10 s head deadline.
t_exit 0 "a CONNECT head sent one byte per segment" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" trickle \
	"CONNECT 127.0.0.1:$UP HTTP/1.1\\r\\nUser-Agent: slow\\r\\n\\r\\n"
t_eq "is relayed: 200" "$(cat "$OUT")" "HTTP/1.1 200 Connection established"
t_exit 0 "a head with a bare LF, one byte per segment" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" trickle \
	"CONNECT 127.0.0.1:$UP HTTP/1.1\\nX: y"
t_grep "is refused at the LF: 400 (within the client's 5 s)" \
	'^HTTP/1.1 400 ' "$OUT"

# ---- a destination that answers before the body is through ---------------
# It answers 413 and closes with the body unread (a reset): sending
# fails, and the answer still reaches the payload.  The event says why
# the request stopped when the broker saw it stop: a failed send, or an
# answer that ended with request bytes still waiting.  When the answer
# came before any of the body reached the broker (a loaded machine), the
# request was through as far as the broker knows: no reason.  Never a
# failure reading the answer (that one would have lost it).
t_exit 0 "POST 16 MiB to a destination that answers at once" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" early \
	"http://127.0.0.1:$UP/early" 16777216
t_eq "the payload gets the 413" "$(cat "$OUT")" \
	"HTTP/1.1 413 Content Too Large"
EV=$(events '[.verdict, (.reason // "relaying to the destination: " |
    test("^relaying to the destination: "))]')
t_eq "one event: allowed, 413 relayed, the request's end as reason" \
	"$EV" '["allowed",true]'
[ "$EV" = '["allowed",true]' ] || diag "events: $(events .)"

# ---- from inside: no way around the broker -----------------------------
n0=$(lines "$TMP/up.log")
t_exit 0 "a direct connect to the destination (no proxy)" \
	cx --egress "127.0.0.1:$UP" -- "$E" connect "$UP"
t_grep "is EACCES (Landlock: only the broker's port)" '^EACCES$' "$OUT"
t_eq "host side: the destination saw nothing" "$(lines "$TMP/up.log")" "$n0"

# Landlock grants the broker's port number, whatever the address: the
# run's own network is what keeps the payload from any other host on
# that port.  A host listener on that very port, on another loopback
# address and on the host's own address, sees nothing.
HOSTIP=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9.]+$' | head -n 1)
for a in 127.0.0.2 $HOSTIP; do
	rm -f "$IO/bport" "$IO/go" "$TMP/side.log"
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" sidestep "$a" "$IO/bport" \
	    "$IO/go" >"$TMP/side.out" 2>&1 &
	SPID=$!
	wait_for test -s "$IO/bport"
	BP=$(cat "$IO/bport" 2>/dev/null)
	"$PY" -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(8); s.settimeout(3)
open(sys.argv[3] + ".up", "w").close()
try:
    c, peer = s.accept(); print("accepted", peer)
except socket.timeout:
    print("nothing")' "$a" "${BP:-0}" "$TMP/side.log" >"$TMP/side.log" 2>&1 &
	HPID=$!
	wait_for test -e "$TMP/side.log.up"
	touch "$IO/go"
	wait "$SPID"
	wait "$HPID"
	rm -f "$TMP/side.log.up"
	t_grep "from inside, $a on the broker's port: no route out of the run's network" \
		'^(ENETUNREACH|ECONNREFUSED)$' "$TMP/side.out"
	t_grep "host side: the listener on $a:$BP saw nothing" '^nothing$' "$TMP/side.log"
done

# A live run A; run B tries A's broker.
rm -f "$TMP/a.jnl"
"$PE" $BASEP --egress "127.0.0.1:$UP" --timeout 30s -- /bin/sleep 30 \
	>"$TMP/a.plan"
chmod 700 "$TMP"
"$CX" --journal "$TMP/a.jnl" --control "$TMP/a.sock" <"$TMP/a.plan" \
	>/dev/null 2>&1 &
APID=$!
at_exit "kill_ours $APID 2>/dev/null"
wait_for grep -q '"event":"start"' "$TMP/a.jnl"
APORT=$(grep '"event":"start"' "$TMP/a.jnl" | jq -r '.event.egress.port')
# A's payload: the child of A's confexec in another network (init stays
# in the host's).
apay() {
	APAY=
	for p in $(pgrep -P "$APID"); do
		[ "$(readlink "/proc/$p/ns/net")" != "$(readlink /proc/self/ns/net)" ] &&
			APAY=$p
	done
	[ -n "$APAY" ]
}
wait_for apay
apay
printf '%s\n' '{"v":1,"op":"inspect"}' | socat - "UNIX-CONNECT:$TMP/a.sock" \
	>"$TMP/a.inspect" 2>&1
t_eq "inspect: the broker's port, nothing open, nothing relayed yet" \
	"$(jq -c '.egress' "$TMP/a.inspect")" \
	"{\"allowed\":0,\"open\":0,\"port\":$APORT,\"refused\":0,\"said\":0,\"unlogged\":0,\"unsaid\":0}"
t_exit 0 "run B connects to run A's broker port" \
	cx --egress "127.0.0.1:$UP" -- "$E" connect "$APORT"
t_grep "EACCES (another run's broker)" '^EACCES$' "$OUT"
t_exit 0 "a host process: A's broker is not on the host's loopback" \
	"$E" connect "$APORT"
t_grep "ECONNREFUSED" '^ECONNREFUSED$' "$OUT"
# A process of the host's that joins A's network and keeps it alive past
# the run: the broker's port is open during the run, closed after it.
t_cleanup_a() { kill -TERM "$APID" 2>/dev/null; wait "$APID" 2>/dev/null; }
if [ -n "$APAY" ]; then
	rm -f "$TMP/fifo.in"
	mkfifo "$TMP/fifo.in"
	nsenter -t "$APAY" -n "$PY" -c '
import socket, sys
port = int(sys.argv[1])
def try_():
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port)); return "open"
    except OSError as e:
        return "refused" if e.errno == 111 else str(e)
    finally:
        s.close()
print(try_(), flush=True)
sys.stdin.readline()
print(try_(), flush=True)' "$APORT" <"$TMP/fifo.in" >"$TMP/ns.out" 2>&1 &
	NSPID=$!
	exec 9>"$TMP/fifo.in"
	wait_for test -s "$TMP/ns.out"
	t_eq "in run A's network, during the run: the broker's port is open" \
		"$(head -n 1 "$TMP/ns.out")" open
	t_cleanup_a
	echo >&9
	exec 9>&-
	wait "$NSPID"
	t_eq "in the same network after the run: the port is closed" \
		"$(sed -n 2p "$TMP/ns.out")" refused
else
	fail "run A's payload not found"
	t_cleanup_a
fi
t_eq "run A ended cancelled (SIGTERM): exit 143" \
	"$(grep '"event":"end"' "$TMP/a.jnl" | jq -r '.event.exit')" 143

# ---- a client that hangs up mid-answer -------------------------------
# The broker then writes to a closed connection: EPIPE for the broker,
# never a SIGPIPE that would end the supervisor (and the run with it,
# without an end record).
t_exit 0 "5 clients hang up while the broker writes: the run goes on" \
	cx --egress "127.0.0.1:$UP" -- "$PY" "$CLI" hangup \
	"http://127.0.0.1:$UP/bytes/50000000" 5
t_grep "the payload finished" '^done$' "$OUT"
t_eq "the end record is there, exit 0" "$(jend '.event.exit')" 0
t_eq "5 events, each allowed" \
	"$(events '.verdict' | sort | uniq -c | tr -s ' ')" ' 5 "allowed"'
t_exit 0 "the payload's SIGPIPE is back to default" \
	cx --egress "127.0.0.1:$UP" -- /bin/grep '^SigIgn:' /proc/self/status
ign=$(awk '/^SigIgn:/ { print $2 }' "$OUT")
t_eq "SigIgn has no SIGPIPE (bit 13)" "$(( 0x${ign:-1000} & 0x1000 ))" 0

# ---- out of descriptors ---------------------------------------------------
# confexec with 64 descriptors, the payload with 256, holding 70
# connections to its broker: past confexec's limit each waiting
# connection is taken and closed at once (not left in the backlog, the
# listener ready, the loop busy until a descriptor is free).
"$PE" $BASEP --rlimit nofile=256 --egress "127.0.0.1:$UP" -- "$PY" "$CLI" \
	limit 70 >"$TMP/fd.plan"
start=$(date +%s)
t_exit 0 "confexec out of descriptors: the run goes on and ends" \
	sh -c 'ulimit -Sn 64 && exec "$1" --journal "$2" <"$3"' sh "$CX" "$J" \
	"$TMP/fd.plan"
t_eq "the connection past the limit was closed at once (no answer)" \
	"$(cat "$OUT")" ""
ok "within 10 s (the client would wait 30 s in the backlog)" \
	test $(($(date +%s) - start)) -lt 10
ok "the end record counts the refused ones" \
	test "$(jend '.event.egress.refused')" -ge 1
ok "those closed at once are events, with the reason" test \
	"$(events 'select(.reason == "confexec is out of descriptors")' |
	    wc -l)" -ge 1
t_eq "every connection is one event (allowed + refused)" \
	"$(events .verdict | wc -l | tr -d ' ')" \
	"$(jend '.event.egress.allowed + .event.egress.refused')"

# ---- a follower of the control log gets each connection as it ends -----
# Not only with the end record (found by review).  The payload connects
# once the follower has its first page ($IO/f.go), then waits for
# $IO/f.end (60 s at most): the follower must have the connection's
# record while the run is still on.
rm -f "$J" "$TMP/f.sock" "$IO/f.go" "$IO/f.end" "$TMP/f.done" "$TMP/follow.out"
"$PE" $BASEP --egress "127.0.0.1:$UP" -- /bin/sh -c \
	"i=0; while [ ! -e $IO/f.go ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i+1)); done
	 curl -s -o /dev/null http://127.0.0.1:$UP/f
	 i=0; while [ ! -e $IO/f.end ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i+1)); done" \
	>"$TMP/f.plan"
"$CX" --journal "$J" --control "$TMP/f.sock" <"$TMP/f.plan" >/dev/null \
	2>"$TMP/f.err" &
FPID=$!
wait_for test -S "$TMP/f.sock"
# (its input stays open until $TMP/f.done: a closed one ends the follow)
(echo '{"v":1,"op":"subscribe","follow":true}'
 i=0; while [ ! -e "$TMP/f.done" ] && [ $i -lt 1200 ]; do
	sleep 0.05; i=$((i + 1)); done) |
	socat -t 0 - "UNIX-CONNECT:$TMP/f.sock" >"$TMP/follow.out" 2>&1 &
SOP=$!
wait_for test -s "$TMP/follow.out"
: >"$IO/f.go"
wait_for grep -q bytes_received "$TMP/follow.out"
t_grep "the follower has the egress record" 'bytes_received' \
	"$TMP/follow.out"
ok "and the run has not ended yet" test "$(grep -c wall_ns "$TMP/follow.out")" = 0
: >"$IO/f.end"
wait "$FPID"
t_eq "the run ends 0" "$?" 0
wait_for -t 10 grep -q wall_ns "$TMP/follow.out"
t_grep "then the follower has the end record" wall_ns "$TMP/follow.out"
: >"$TMP/f.done"
wait "$SOP"

# ---- a slow client never holds the run -----------------------------------
start=$(date +%s)
t_exit 0 "a client that connects and sends nothing: the run still ends" \
	cx --egress "127.0.0.1:$UP" -- /bin/sh -c \
	"$PY -c 'import os,socket,urllib.parse as u; p=u.urlsplit(os.environ[\"HTTP_PROXY\"]); s=socket.create_connection((p.hostname,p.port)); os._exit(0)'"
ok "within 5 s" test $(($(date +%s) - start)) -lt 5

done_testing
