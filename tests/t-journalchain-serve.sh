#!/bin/sh
# journalchain serve from the host side (journalchain(1), SERVE): the
# options; the JSON views; another uid's connection closed unread (the
# kernel names the peer before a byte is read); a forged Host and a
# foreign Origin refused; 200 stalled clients and 20 streams that never
# read hold neither memory nor the other clients; a corrupt or torn
# journal shown as such, never as verified; the journal never written.
. "$(dirname "$0")/lib.sh"
. "$T_TOP/tests/serve-lib.sh"

needs root landlock=4 jq curl setpriv python3

JC=$BIN/journalchain
J=$TMP/runs.jnl
mkruns "$J" ok refused denial || skip_all "the runs could not be made"

# ---- options ---------------------------------------------------------------
t_exit 2 "serve without a journal" "$JC" serve
t_exit 2 "a dashboard on a non-loopback address, not asked for" \
	"$JC" serve --dashboard 192.0.2.1:0 "$J"
t_grep "  refused, naming --non-loopback" 'not a loopback address \(--non-loopback' "$ERR"
t_exit 2 "a wildcard address, even with --non-loopback" \
	"$JC" serve --non-loopback --agui 0.0.0.0:0 "$J"
t_exit 2 "both listeners off" "$JC" serve --dashboard off --agui off "$J"
t_exit 2 "--allow-uid: not a number" "$JC" serve --allow-uid root "$J"
t_exit 2 "--allow-origin: not an origin" \
	"$JC" serve --allow-origin example.org "$J"
t_exit 1 "a journal that cannot be opened" \
	"$JC" serve --dashboard 127.0.0.1:0 --agui off "$TMP/none"

SUM0=$(sha256sum <"$J")
serve_start "$J" || skip_all "serve did not start"
PORT=${DASH#http://127.0.0.1:}
PORT=${PORT%/}
ok "it says where it listens, on loopback" grep -Eqx \
	'dashboard http://127\.0\.0\.1:[0-9]+/' "$TMP/serve.out"

# get PATH [CURL-OPTION...]: the status in $ST, the body in $TMP/body,
# the headers in $TMP/head.
get() {
	_p=$1; shift
	ST=$(curl -sS --max-time 10 -D "$TMP/head" -o "$TMP/body" \
	    -w '%{http_code}' "$@" "$DASH${_p#/}")
}
hdr() { tr -d '\r' <"$TMP/head" | sed -n "s/^$1: //Ip"; }

# ---- the views -----------------------------------------------------------
get /
t_eq "the page: 200" "$ST" 200
t_eq "  a strict content security policy, nothing from elsewhere" \
	"$(hdr Content-Security-Policy)" \
	"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
t_eq "  nosniff, no framing, no CORS header" \
	"$(hdr X-Content-Type-Options) $(hdr X-Frame-Options) $(hdr Access-Control-Allow-Origin)" \
	"nosniff DENY "
t_nogrep "  no resource of another origin in the page" \
	'(src|href)="(https?:)?//' "$TMP/body"
get /api/runs
t_eq "/api/runs: 200 JSON" "$ST $(hdr Content-Type)" "200 application/json"
t_eq "  the journal verified, its head as journalchain head says" \
	"$(jq -r '.journals[0] | [.status, .head] | @tsv' "$TMP/body")" \
	"$(printf 'verified\t%s' "$("$JC" head "$J" | tr ' ' :)")"
t_eq "  three runs, newest first, their states" \
	"$(jq -c '[.runs[] | [.id, .state, .start.program]]' "$TMP/body")" \
	"[[\"5\",\"ok\",\"$HELP/escape\"],[\"3\",\"refused\",\"/bin/true\"],[\"1\",\"ok\",\"/bin/echo\"]]"
get /api/runs/5
t_eq "/api/runs/ID: the run's layers as its start record lists them" \
	"$(jq -c .layers "$TMP/body")" \
	"$(sed -n 5p "$J" | jq -c .event.layers)"
t_eq "  the preset's rules folded under its name, the others listed" \
	"$(jq -c '[.rules[0].preset, (.rules[1:] | map(.path))]' "$TMP/body")" \
	"[\"sys\",[\"/proc\",\"$HELP\"]]"
t_eq "  the denial with the flag that grants it" \
	"$(jq -c '.denials.listed | map([.path, .grant])' "$TMP/body")" \
	'[["/var/lib/dpkg/status","--ro /var/lib/dpkg/status"]]'
t_eq "  its records, hashed as journalchain show --json hashes them" \
	"$(jq -c '[.records[] | .hash]' "$TMP/body")" \
	"$("$JC" show --json "$J" | jq -s -c '[.[] | select(.seq >= 5) | .hash]')"
get /api/runs/4
t_eq "a record that starts no run is no run: 404" "$ST" 404
get /api/runs -X POST
t_eq "the dashboard is read-only: a POST is 405" "$ST" 405

# ---- Host and Origin -----------------------------------------------------
get /api/runs -H 'Host: evil.example.org'
t_eq "a forged Host (DNS rebinding): 403" "$ST" 403
t_eq "  saying why, with no data" "$(jq -r .error "$TMP/body")" \
	"the Host header does not name this listener"
get /api/runs -H "Host: evil.example.org:$PORT"
t_eq "another name with the right port: 403" "$ST" 403
get /api/runs -H "Host: 127.0.0.1:$((PORT == 65535 ? 1 : PORT + 1))"
t_eq "the right address with another port: 403" "$ST" 403
get /api/runs -H "Host: localhost:$PORT"
t_eq "localhost with the port: 200" "$ST" 200
get /api/runs -H 'Origin: http://evil.example.org'
t_eq "a cross-origin request: 403, no CORS header" \
	"$ST $(hdr Access-Control-Allow-Origin)" "403 "
get /api/runs -H "Origin: http://127.0.0.1:$PORT"
t_eq "the page's own origin: 200" "$ST" 200

# ---- another uid -----------------------------------------------------------
other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
other curl -sS --max-time 10 -o /dev/null "${DASH}api/runs" 2>"$TMP/o.err"
case $? in
52|56) pass "uid 65534's request gets no answer (closed or reset)" ;;
*) fail "uid 65534's request gets no answer (closed or reset)"
	diag_file "$TMP/o.err" ;;
esac
t_grep_soon "  serve names the uid and closes it unread" \
	"^journalchain: serve: dashboard: connection from 127\\.0\\.0\\.1:[0-9]+, uid 65534: not allowed, closed unread" \
	"$TMP/serve.err"
t_eq "uid 65534's connection that sends nothing is closed by the server" \
	"$(other /usr/bin/python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(20)
print("eof" if s.recv(1) == b"" else "data")' "$PORT")" eof
get /api/runs
t_eq "the server's own uid still gets in" "$ST" 200

# ---- stalled clients -----------------------------------------------------
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$SPID/status"; }
R0=$(rss)
python3 "$T_TOP/tests/serve-stall.py" 127.0.0.1 "$PORT" 200 /api/events 20 \
    "$TMP/stall.ready" "$TMP/stall.done" 2>"$TMP/stall.err" &
STP=$!
at_exit 'kill_ours $STP'
ok "200 half-sent requests and 20 streams that never read connect" \
	wait_for -t 30 test -s "$TMP/stall.ready"
# Every run appended wakes the 20 streams.
mkruns "$J" ok ok
get /api/runs
t_eq "  meanwhile another client is answered" "$ST" 200
ok "  and sees the runs appended meanwhile" wait_for -t 10 sh -c \
	"curl -sS --max-time 5 '${DASH}api/runs' | jq -e '.runs | length == 5'"
R1=$(rss)
note "serve's RSS: $R0 KiB, with 220 stalled clients $R1 KiB"
ok "  serve's memory grew by less than 16 MiB" test $((R1 - R0)) -lt 16384
ok "the half-sent requests are closed by the server (idle timeout)" \
	wait_for -t 70 test -s "$TMP/stall.done"
t_eq "  all 200 of them" "$(cat "$TMP/stall.done")" "closed 200"
kill_ours "$STP"

# A client that is never idle (a byte every 0.2 s) but never finishes its
# request: closed at the request's deadline, long before its 300 bytes.
t_eq "a request trickled a byte at a time is cut off before it is whole" \
	"$(/usr/bin/python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
req = b"GET /api/runs HTTP/1.1\r\nX-Pad: " + b"x" * 270 + b"\r\n"
s.settimeout(0.2)
for i, b in enumerate(req):
    try:
        s.send(bytes([b]))
        if s.recv(1) == b"":
            print("closed"); break
    except socket.timeout:
        continue
    except OSError:
        print("closed"); break
else:
    print("never closed")' "$PORT")" closed

# ---- live updates ----------------------------------------------------------
curl -sS -N --max-time 60 -H 'Accept: text/event-stream' \
    "${DASH}api/events" >"$TMP/sse" 2>/dev/null &
CP=$!
at_exit 'kill_ours $CP'
ok "the event stream says the current version" \
	wait_for -t 10 grep -q '^data: {"version":[0-9]*}$' "$TMP/sse"
mkruns "$J" refused
ok "  a run appended: a new version within the tick" \
	wait_for -t 10 sh -c "[ \$(grep -c '^data: ' '$TMP/sse') -ge 2 ]"
kill_ours "$CP"

# ---- read-only -------------------------------------------------------------
FD=$(for f in /proc/"$SPID"/fd/*; do
	[ "$(readlink "$f")" = "$J" ] && echo "${f##*/}"; done | head -n 1)
t_eq "serve holds the journal open read-only (O_RDONLY)" \
	"$(awk '/^flags:/ { print substr($2, length($2)) % 4 }' \
	    "/proc/$SPID/fdinfo/$FD")" 0
serve_stop
t_eq "SIGTERM: serve ends, status 0" "$SRC" 0
J1=$TMP/j1
head -n 6 "$J" >"$J1"
t_eq "the journal's first records are as they were written" \
	"$(head -n 6 "$J" | sha256sum)" "$SUM0"
t_eq "  and everything past them was appended by confexec alone" \
	"$("$JC" verify "$J" | cut -d' ' -f1)" 12

# ---- a corrupt journal -----------------------------------------------------
K=$TMP/corrupt.jnl
off=$(head -n 8 "$J" | wc -c)	# record 9: the start of the third ok run
"$HELP/flipbyte" "$J" "$K" $((off + 30)) 1
serve_start "$K" || skip_all "serve did not start"
get /api/runs
t_eq "a journal broken at record 9: shown broken, record 9 named" \
	"$(jq -c '.journals[0] | [.status, .bad.record, .verified_records]' "$TMP/body")" \
	'["broken",9,8]'
t_eq "  only the runs before it, none of them marked verified" \
	"$(jq -c '[.runs[] | [.id, .verified]]' "$TMP/body")" \
	'[["7",false],["5",false],["3",false],["1",false]]'
get /api/runs/9
t_eq "  the run past the break is not served" "$ST" 404
t_eq "  nor streamed as AG-UI" "$(curl -sS -o /dev/null -w '%{http_code}' \
	-H 'Content-Type: application/json' -H 'Accept: text/event-stream' \
	--data '{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"borne":{"run":"9"}}}' \
	"$AGUI")" 404
printf '{"seq":7,"prev":"%s' "$(sed -n 6p "$J1" | sha256sum | cut -c1-10)" \
    >>"$J1"
cp "$J" "$TMP/live.jnl"
serve_stop
serve_start "$TMP/live.jnl" "$J1" || skip_all "serve did not start"
get /api/runs
t_eq "two journals: verified, and one with a torn tail" \
	"$(jq -c '[.journals[] | .status]' "$TMP/body")" '["verified","torn"]'
t_eq "  ids name the journal when several are served" \
	"$(jq -c '[.runs[] | .id] | map(select(startswith("2:"))) | length' "$TMP/body")" 3
# Tampered under the server: record 2 rewritten in place.
"$HELP/flipbyte" "$TMP/live.jnl" "$TMP/live.tmp" $(($(head -n 1 "$J" | wc -c) + 40)) 1
cat "$TMP/live.tmp" >"$TMP/live.jnl"
ok "a journal tampered while served turns broken within the tick" \
	wait_for -t 10 sh -c "curl -sS '${DASH}api/runs' |
	    jq -e '.journals[0].status == \"broken\"'"
get /api/runs
t_eq "  its runs past record 1 are gone from the list" \
	"$(jq -c '[.runs[] | select(.journal == 1) | .id]' "$TMP/body")" '["1:1"]'
serve_stop

# ---- --allow-uid -----------------------------------------------------------
serve_start --allow-uid 65534 --agui off "$J" || skip_all "serve did not start"
t_eq "--allow-uid 65534: uid 65534 gets in" \
	"$(other curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "${DASH}api/runs")" 200
serve_stop
serve_start --allow-origin http://app.example.org --agui off "$J" ||
	skip_all "serve did not start"
get /api/runs -H 'Origin: http://app.example.org'
t_eq "--allow-origin: that origin gets an answer and its CORS header" \
	"$ST $(hdr Access-Control-Allow-Origin)" "200 http://app.example.org"
get /api/runs -H 'Origin: http://evil.example.org'
t_eq "  another origin is still refused" "$ST" 403
serve_stop
done_testing
