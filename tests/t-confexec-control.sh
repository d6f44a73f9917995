#!/bin/sh
# confexec --control PATH: the control socket (confexec-control(5)).
# Clients are socat (as a shell user would) and, where timing or many
# connections matter, small python3 programs; the payload's own attempt
# is the escape helper's unix-request, from inside.
. "$(dirname "$0")/lib.sh"

needs root landlock=4 cgroup2 socat jq setpriv flock
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "needs /usr/bin/python3"

chmod 700 "$TMP"
S=$TMP/ctl.sock
BASEP="$ROOTFS --ro /etc --ro /proc --rox $HELP $ASANQ"

# req LINE: one request through socat, the answer on stdout.
req() { printf '%s\n' "$1" | socat - "UNIX-CONNECT:$S"; }
# jget FILTER: jq -r on the answer kept in $A.
A=$TMP/answer
jget() { jq -r "$1" <"$A"; }
# other_uid CMD...: CMD as uid 65534 that may still reach a 0600 root
# socket (CAP_DAC_OVERRIDE): only the peer check can refuse it.
other_uid() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    --inh-caps=+dac_override --ambient-caps=+dac_override "$@"
}
# start_run PLANENC-ARGS...: confexec in the background (pid in CXPID,
# status later by wait_run), journal $J, socket $S.
J=$TMP/run.jnl
start_run() {
	# shellcheck disable=SC2086
	"$PE" $BASEP "$@" >"$TMP/plan" || { fail "planenc $*"; return 1; }
	rm -f "$J"
	"$CX" --journal "$J" --control "$S" <"$TMP/plan" >"$TMP/cx.out" \
	    2>"$TMP/cx.err" &
	CXPID=$!
	wait_for -t 10 test -S "$S"
}
wait_run() { wait "$CXPID" 2>/dev/null; RC=$?; }
# run_log: this run's records in the journal, from its start record (a
# start may reap others' stale cgroups first, journaled before it).
run_log() { sed -n '/"event":"start"/,$p' "$J"; }
at_exit 'kill_ours -9 $CXPID 2>/dev/null'

# ---- the socket: where, how, and who may replace it --------------------
start_run --timeout 30s -- /bin/sleep 30
t_eq "the socket is there before the payload runs, mode 0600, root's" \
	"$(stat -c '%F %a %U' "$S")" "socket 600 root"
req '{"v":1,"op":"heartbeat"}' >"$A"
t_eq "heartbeat: ok, running" "$(jget '[.v,.ok,.state] | join(" ")')" \
	"1 true running"
ok "heartbeat: elapsed_ms is a number" \
	test "$(jget '.elapsed_ms | type')" = number

# inspect, field by field, against what the host and the journal say.
req '{"v":1,"op":"inspect"}' >"$A"
t_eq "inspect: state running" "$(jget .state)" running
P=$(jget .pid)
t_eq "inspect: pid is the run's init, a child of confexec" \
	"$(awk '{ print $4 }' "/proc/$P/stat" 2>/dev/null)" "$CXPID"
CG=$(jget .cgroup)
ok "inspect: cgroup exists and holds the pid" grep -qx "$P" "$CG/cgroup.procs"
t_eq "inspect: plan digest = the start record's" "$(jget .plan_sha256)" \
	"$(run_log | head -n 1 | jq -r .event.plan)"
t_eq "inspect: program digest = sha256 of /bin/sleep" \
	"$(jget .program_sha256)" "$(sha256sum </bin/sleep | cut -d' ' -f1)"
t_eq "inspect: layers as journaled, nothing degraded" \
	"$(jget '[.layers, .degraded] | tostring')" \
	"$(run_log | head -n 1 | jq -r '[.event.layers, .event.degraded] | tostring')"
t_eq "inspect: limits (only the timeout asked)" \
	"$(jget '.limits | tostring')" \
	'{"cpu_period_us":null,"cpu_quota_us":null,"memory_max":null,"pids_max":null,"timeout_ms":30000}'
ok "inspect: timeout left within (29000, 30000]" \
	test "$(jget .timeout_left_ms)" -gt 29000 -a \
	"$(jget .timeout_left_ms)" -le 30000
ok "inspect: start time within 10 s of now" test $(( $(date +%s) - \
	$(jget .start_time_ns) / 1000000000 )) -le 10
ok "inspect: cpu_usec and elapsed_ms are numbers" \
	test "$(jget '[.cpu_usec, .elapsed_ms] | map(type) | join(",")')" \
	= number,number
t_eq "inspect: log_bytes = the size of the run's records" \
	"$(jget .log_bytes)" "$(run_log | wc -c | tr -d ' ')"

# A second confexec on a live socket refuses it, and leaves it alone.
"$PE" $BASEP -- /bin/true >"$TMP/plan2"
t_exit 125 "a live run's socket: refused (125)" \
	"$CX" --control "$S" <"$TMP/plan2"
t_grep "naming it" "control: .*ctl.sock is in use" "$ERR"
req '{"v":1,"op":"heartbeat"}' >"$A"
t_eq "and the first run is still served" "$(jget .state)" running

# ---- malformed input: one error line, closed, the run goes on --------
req 'garbage' >"$A"
t_eq "garbage: one line, ok false, not JSON" \
	"$(wc -l <"$A" | tr -d ' ') $(jget '[.v, .ok, (.error | startswith("not JSON"))] | join(" ")')" \
	"1 1 false true"
printf 'garbage\n{"v":1,"op":"heartbeat"}\n' | socat - "UNIX-CONNECT:$S" >"$A"
t_eq "after the error the connection closes: the next line is unanswered" \
	"$(wc -l <"$A" | tr -d ' ')" 1
req '{"v":2,"op":"inspect"}' >"$A"
t_eq "wrong version: error and the versions served" \
	"$(jget '[.v, .ok, .error, (.versions | tostring)] | join(" ")')" \
	"1 false unsupported protocol version [1]"
req '{"v":1,"op":"inspect","op":"cancel"}' >"$A"
t_grep "duplicate keys refused" '"error":"not JSON: duplicate object key' "$A"
req '{"v":1,"op":"reboot"}' >"$A"
t_grep "unknown op refused" '"error":"unknown op: reboot"' "$A"
req '{"v":1,"op":"heartbeat","x":1}' >"$A"
t_grep "unknown key refused" '"error":"unknown key: x"' "$A"
"$PY" - "$S" >"$A" 2>"$ERR" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"v":1,"op":"heartbeat","pad":"' + b'x' * 70000 + b'"}\n')
data = b''
try:
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
except ConnectionResetError:
    pass
sys.stdout.write(data.decode())
EOF
t_eq "oversize line (70000 bytes): one error line, closed" \
	"$(wc -l <"$A" | tr -d ' ') $(jget .error)" \
	"1 request longer than 65536 bytes"
req '{"v":1,"op":"heartbeat"}' >"$A"
t_eq "the run goes on after every bad line" "$(jget .state)" running

# ---- bounds: 16 clients ------------------------------------------------
"$PY" - "$S" >"$A" 2>"$ERR" <<'EOF'
import socket, sys, time
held = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(b'{"v":1,"op":"heartbeat"}\n')
    s.recv(4096)                      # served: the slot is taken
    held.append(s)
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print(s.recv(4096).decode().strip())
h = held[0]
h.sendall(b'{"v":1,"op":"heartbeat"}\n')
print(h.recv(4096).decode().strip())
EOF
t_grep "a 17th client is told so" '"error":"too many clients \(16\)"' "$A"
t_grep "the 16 held ones are still served" '"state":"running"' "$A"
# A 17th client that hangs up before it is told: writing the answer
# fails (EPIPE), and the supervisor lives on; SIGPIPE had killed it
# (exit 141, no end record).  confexec is stopped while the 17th
# connects and closes (its process alive, so it passes the peer check).
"$PY" - "$S" "$CXPID" >"$A" 2>"$ERR" <<'EOF'
import os, signal, socket, sys, time
held = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(b'{"v":1,"op":"heartbeat"}\n')
    s.recv(4096)
    held.append(s)
pid = int(sys.argv[2])
os.kill(pid, signal.SIGSTOP)
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.close()
os.kill(pid, signal.SIGCONT)
time.sleep(1)
with open("/proc/%d/stat" % pid) as f:
    print("state", f.read().rsplit(")", 1)[1].split()[0])
h = held[0]
h.sendall(b'{"v":1,"op":"heartbeat"}\n')
print(h.recv(4096).decode().strip())
EOF
t_grep "a 17th client gone before its answer: confexec lives on" \
	'^state [RS]$' "$A"
t_grep "and still serves the others" '"state":"running"' "$A"

# ---- authentication first ----------------------------------------------
# confexec is stopped while a uid-65534 client (which may open the 0600
# socket: CAP_DAC_OVERRIDE) connects and sends a cancel, so the bytes
# are queued before confexec accepts.  Linux reports ECONNRESET to a
# unix stream peer only when the other end was closed with unread data
# in its receive queue (af_unix, unix_release_sock): the read shows the
# bytes were never consumed.  A root client in the same position gets
# its answer: the contrast shows the test can tell the two apart.
# GO: where uid 65534 finds its go file (access(2) is the real uid's).
GO=$(mktemp -d "${TMPDIR:-/tmp}/borne-go.XXXXXX")
at_exit "rm -rf '$GO'"
chmod 755 "$GO"
: >"$GO/o1"
: >"$GO/o2"
kill -STOP "$CXPID"
setpriv --reuid=65534 --regid=65534 --clear-groups \
    --inh-caps=+dac_override --ambient-caps=+dac_override \
    "$E" unix-request "$S" '{"v":1,"op":"cancel"}' "$GO/o1" >"$TMP/o1" &
OPID=$!
"$E" unix-request "$S" '{"v":1,"op":"heartbeat"}' "$GO/o2" >"$TMP/o2" &
RPID=$!
# Each says when its bytes are sent (GO.sent), GO there already.
wait_for test -e "$GO/o1.sent" -a -e "$GO/o2.sent"
kill -CONT "$CXPID"
wait "$OPID" "$RPID"
t_eq "uid 65534: closed unread (ECONNRESET: its bytes still queued)" \
	"$(cat "$TMP/o1")" read:ECONNRESET
t_grep "root, queued alike, is answered" '^answer:.*"ok":true' "$TMP/o2"
t_grep_soon "the refusal is in the run's log: uid 65534, the client's pid" \
	"\"event\":\\{\"event\":\"control_refused\",\"pid\":\"$OPID\",\"reason\":\"uid\",.*\"uid\":\"65534\"" "$J"
req '{"v":1,"op":"heartbeat"}' >"$A"
t_eq "its cancel never reached the run" "$(jget .state)" running
for i in 1 2 3; do other_uid "$E" unix-request "$S" x >/dev/null; done

# ---- subscribe: random pages reassemble the log ------------------------
# Then a follower from where the pages stopped; a cancel ends the run;
# the follower's stream ends with the end record, and pages + stream are
# the journal's bytes exactly.
cat >"$TMP/sub.py" <<'EOF'
import json, random, socket, sys, threading, time
path, out, follow_out = sys.argv[1], sys.argv[2], sys.argv[3]
def ask(req):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall((json.dumps(req) + '\n').encode())
    f = s.makefile('rb')
    return s, f
random.seed(int(time.time()))
off, pages, log, extra = 0, 0, b'', 0
while True:
    # A record longer than the page (a start record lists argv, cwd and
    # every rule: about 1.1 kB here) is asked again with a larger one.
    lim = random.randint(200, 900) + extra
    s, f = ask({"v": 1, "op": "subscribe", "offset": off, "limit": lim})
    a = json.loads(f.readline())
    s.close()
    if not a["ok"]:
        assert "is less than the record" in a["error"], a
        extra += 500
        continue
    extra = 0
    data = ''.join(a["records"]).encode()
    assert a["offset"] == off and a["next"] == off + len(data) and len(data) <= lim
    pages += 1
    log += data
    if not data:
        break
    off = a["next"]
open(out, 'wb').write(log)
# follow from the end of the pages, until the end record
s, f = ask({"v": 1, "op": "subscribe", "offset": off, "follow": True})
c = socket.socket(socket.AF_UNIX)
c.connect(path)
c.sendall(b'{"v":1,"op":"cancel"}\n')
cancel = json.loads(c.makefile('rb').readline())
stream, ends = b'', 0
for line in f:
    a = json.loads(line)
    assert a["ok"] and a["offset"] == off, a
    stream += ''.join(a["records"]).encode()
    off = a["next"]
    ends += a["end"]
open(follow_out, 'wb').write(stream)
print(pages, cancel["result"], ends)
EOF
"$PY" "$TMP/sub.py" "$S" "$TMP/pages" "$TMP/stream" >"$A" 2>"$TMP/py.err"
wait_run
diag_file "$TMP/py.err"
set -- $(cat "$A") x x x
ok "pages of random sizes, over reconnects ($1 pages)" test "$1" -ge 3
t_eq "the cancel during the follow is delivered" "$2" delivered
t_eq "the follower's stream ends with one end:true" "$3" 1
cat "$TMP/pages" "$TMP/stream" >"$TMP/log"
run_log >"$TMP/jlog"
ok "pages + stream = the run's journal records, byte for byte" \
	cmp "$TMP/log" "$TMP/jlog"
t_eq "the stream's last record is the end record, cancel control" \
	"$(tail -n 1 "$TMP/stream" | jq -r '[.event.event, .event.cancel] | join(" ")')" \
	"end control"
t_eq "confexec exits 129 on a control cancel" "$RC" 129
ok "the socket is removed when the run ends" test ! -e "$S"
t_eq "4 refusals of uid 65534 logged (1 + 3)" \
	"$(grep -c '"event":"control_refused",.*"reason":"uid"' "$J")" 4

# ---- a socket the payload could replace is refused ------------------------
# A payload that may write the socket's directory (or one above it) could
# move the socket away and bind its own there: host clients would talk to
# it (found by review).  Refused in either mode, before anything runs.
mkdir -p "$TMP/d/sub" "$TMP/d/beside"
chmod 700 "$TMP/d" "$TMP/d/sub"
S2=$TMP/d/sub/ctl.sock
for rule in "$TMP/d/sub" "$TMP/d"; do
	t_exit 0 "planenc --rw $rule" "$PE" $BASEP --rw "$rule" -- /bin/true
	cp "$OUT" "$TMP/plan"
	t_exit 125 "--rw $rule holds the socket's directory: refused (125)" \
		"$CX" --control "$S2" <"$TMP/plan"
	t_grep "the refusal names the rule" "rule rw $rule\\)" "$ERR"
	ok "no socket was made" test ! -e "$S2"
done
t_exit 0 "planenc --degrade --rwx" "$PE" $BASEP --degrade --rwx "$TMP/d" -- \
	/bin/true
cp "$OUT" "$TMP/plan"
t_exit 125 "--rwx of it, with --degrade: refused too" \
	"$CX" --control "$S2" <"$TMP/plan"
t_exit 0 "planenc --rw beside" "$PE" $BASEP --rw "$TMP/d/beside" -- /bin/true
cp "$OUT" "$TMP/plan"
t_exit 0 "--rw of a directory beside it: runs" "$CX" --control "$S2" \
	<"$TMP/plan"

# ---- a caller that is not root -------------------------------------------
# In its own user namespace confexec cannot judge a peer (root's uid is
# unmapped there; a peer's pid namespace is out of reach): every client
# would be refused, so the socket is refused up front, with the reason.
mkdir -p "$TMP/nr"
chown 65534:65534 "$TMP/nr"
chmod 711 "$TMP"
"$PE" $BASEP --degrade -- /bin/true >"$TMP/plan"
t_exit 125 "--control by a caller that is not root: refused (125)" \
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$CX" --control "$TMP/nr/ctl" <"$TMP/plan"
t_grep "the refusal says why" 'needs a confexec run by root' "$ERR"
ok "no socket was made" test ! -e "$TMP/nr/ctl"
chmod 700 "$TMP"

# ---- cancel kills the tree, a setsid grandchild included ---------------
mkdir -p "$TMP/marks"
MARK=$TMP/marks/marker-$$-$(date +%s%N)
start_run --rw "$TMP/marks" -- "$E" grandchild-sleep "$MARK.pid"
wait_for -t 10 test -s "$MARK.pid"
marked() { pgrep -f -- "$MARK" | wc -l | tr -d ' '; }
t_eq "payload and its setsid grandchild run (by the marker)" "$(marked)" 2
ok "the grandchild is alive (its lock is held)" \
	sh -c '! flock -n "$1" true' sh "$MARK.pid.lock"
req '{"v":1,"op":"cancel"}' >"$A"
t_eq "cancel: delivered" "$(jget '[.ok, .result] | join(" ")')" \
	"true delivered"
wait_run
t_eq "exit status 129" "$RC" 129
t_eq "no process carries the marker any more" "$(marked)" 0
ok "the grandchild is gone (its lock is free)" flock -n "$MARK.pid.lock" true
t_eq "end record: cancel control, exit 129" \
	"$(tail -n 1 "$J" | jq -r '[.event.cancel, .event.exit] | join(" ")')" \
	"control 129"
ok "socket removed after the cancel" test ! -e "$S"

# ---- 8 concurrent cancels: exactly one delivered ------------------------
start_run -- /bin/sleep 30
"$PY" - "$S" >"$A" 2>"$ERR" <<'EOF'
import socket, sys, threading
socks = []
for i in range(8):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    socks.append(s)
go = threading.Barrier(8)
res = [None] * 8
def one(i):
    go.wait()
    socks[i].sendall(b'{"v":1,"op":"cancel"}\n')
    res[i] = socks[i].makefile('rb').readline().decode()
ts = [threading.Thread(target=one, args=(i,)) for i in range(8)]
for t in ts: t.start()
for t in ts: t.join()
for r in res: print(r.strip())
EOF
wait_run
t_eq "8 answers: 1 delivered, 7 already_delivered" \
	"$(jq -r .result <"$A" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
	" 7 already_delivered; 1 delivered;"
t_eq "one end record, cancel control" \
	"$(grep -c '"event":"end"' "$J") $(tail -n 1 "$J" | jq -r .event.cancel)" \
	"1 control"

# ---- the payload cannot use the socket ----------------------------------
# Landlock does not govern connect(2) to a path, and the payload may hold
# the caller's uid: what stops it is seccomp without a unix grant, and
# with one, the peer check (its pid namespace is the run's).
rm -f "$J"
"$PE" $BASEP -- "$E" unix-request "$S" '{"v":1,"op":"cancel"}' >"$TMP/plan"
t_exit 0 "payload without a unix grant" \
	"$CX" --journal "$J" --control "$S" <"$TMP/plan"
t_eq "its socket(AF_UNIX): EPERM (seccomp)" "$(cat "$OUT")" socket:EPERM
# With the grant, the peer check: the payload's connect is one the
# supervisor is notified of (the trust handoff records), so confexec
# cannot be held stopped while it connects and sends; either way it is
# closed unserved: its bytes unread (ECONNRESET) or refused before they
# were sent (EPIPE), and the cancel never reaches the run.
# Outside every rule the socket is not in the run's view at all.
rm -f "$J"
"$PE" $BASEP --unix -- "$E" unix-request "$S" '{"v":1,"op":"cancel"}' \
    >"$TMP/plan"
t_exit 0 "payload with a unix grant, the socket's directory not granted" \
	"$CX" --journal "$J" --control "$S" <"$TMP/plan"
t_eq "its connect: ENOENT (not in the view)" "$(cat "$OUT")" connect:ENOENT
# Its directory granted read-only: there, and the peer check refuses it.
rm -f "$J"
"$PE" $BASEP --unix --ro "$TMP" -- "$E" unix-request "$S" \
    '{"v":1,"op":"cancel"}' >"$TMP/plan"
"$CX" --journal "$J" --control "$S" <"$TMP/plan" >"$TMP/payload.out" \
    2>"$TMP/cx.err" &
CXPID=$!
wait_run
t_eq "payload with a unix grant runs to its end (not cancelled)" "$RC" 0
t_grep "it connects but is closed unserved (ECONNRESET or EPIPE)" \
	'^(read:ECONNRESET|write:EPIPE)$' "$TMP/payload.out"
t_eq "refused as one of the run's (uid 0, reason run)" \
	"$(run_log | sed -n 2p | jq -r '[.event.event, .event.reason, .event.uid] | join(" ")')" \
	"control_refused run 0"
t_eq "the end record: no cancel" "$(tail -n 1 "$J" | jq -r .event.cancel)" null

# ---- without --journal: the log is kept in memory, a journal of its own
"$PE" $BASEP -- /bin/sleep 30 >"$TMP/plan"
"$CX" --control "$S" <"$TMP/plan" 2>"$TMP/cx.err" &
CXPID=$!
wait_for -t 10 test -S "$S"
"$PY" "$TMP/sub.py" "$S" "$TMP/pages" "$TMP/stream" >"$A" 2>"$TMP/py.err"
wait_run
diag_file "$TMP/py.err"
cat "$TMP/pages" "$TMP/stream" >"$TMP/mem.jnl"
t_eq "in memory: start and end records, the end cancel control" \
	"$(jq -r .event.event <"$TMP/mem.jnl" | tr '\n' ' ')$(tail -n 1 "$TMP/mem.jnl" | jq -r .event.cancel)" \
	"start end control"
t_exit 0 "and they chain from seq 1 (journalchain verify)" \
	"$BIN/journalchain" verify "$TMP/mem.jnl"

# ---- a stuck client never delays supervision ---------------------------
# It asks for pages and never reads: its buffer fills, it is dropped;
# the 1 s timeout still ends the run on time.
"$PE" $BASEP --timeout 1s -- /bin/sleep 30 >"$TMP/plan"
T0=$(date +%s%N)
"$CX" --control "$S" --journal "$TMP/stuck.jnl" <"$TMP/plan" \
    2>"$TMP/cx.err" &
CXPID=$!
wait_for -t 10 test -S "$S"
rm -f "$TMP/stuck.stop"
"$PY" - "$S" "$TMP/stuck.stop" >"$TMP/stuck" 2>"$TMP/py.err" <<'EOF' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.setblocking(False)
req = b'{"v":1,"op":"subscribe"}\n' * 2000
sent = 0
t = time.time() + 3
while time.time() < t:
    try:
        sent += s.send(req[sent % len(req):])
    except BlockingIOError:
        time.sleep(0.01)
    except (BrokenPipeError, ConnectionResetError):
        print("dropped")
        break
t = time.time() + 30                   # connected until the run is over
while not os.path.exists(sys.argv[2]) and time.time() < t:
    time.sleep(0.02)
EOF
SPID=$!
wait_run
MS=$(( ($(date +%s%N) - T0) / 1000000 ))
: >"$TMP/stuck.stop"
t_eq "timeout exit 124 with a stuck client" "$RC" 124
note "the run took ${MS} ms by the test's clock"
t_within "on time by the run's clock: after 1 s, before 1.7 s" \
	"$(end_ms "$TMP/stuck.jnl")" 1000 1700
wait "$SPID"
t_eq "the stuck client was dropped" "$(cat "$TMP/stuck")" dropped

# ---- refusals before anything runs --------------------------------------
"$PE" $BASEP -- /bin/true >"$TMP/plan"
mkdir -m 1777 "$TMP/pub"
t_exit 125 "a directory others can write: refused" \
	"$CX" --control "$TMP/pub/s" <"$TMP/plan"
t_grep "naming it" "directory $TMP/pub is writable by others \(mode 1777\)" "$ERR"
ok "nothing made there" test ! -e "$TMP/pub/s"
mkdir -m 700 "$TMP/theirs"
chown 65534 "$TMP/theirs"
t_exit 125 "a directory of another uid: refused" \
	"$CX" --control "$TMP/theirs/s" <"$TMP/plan"
t_grep "naming it" "directory $TMP/theirs is owned by uid 65534" "$ERR"
echo keep >"$TMP/file"
t_exit 125 "an existing file: refused" "$CX" --control "$TMP/file" <"$TMP/plan"
t_eq "and left intact" "$(cat "$TMP/file")" keep
"$E" unix-bind "$TMP/stale" >/dev/null
ok "a stale socket (bound, no listener) is there" test -S "$TMP/stale"
t_exit 0 "the stale socket of a dead run is replaced" \
	"$CX" --control "$TMP/stale" <"$TMP/plan"
ok "and removed at the end" test ! -e "$TMP/stale"
start_run -- /bin/sleep 30
kill -KILL "$CXPID"
wait_run
ok "a confexec killed by SIGKILL leaves its socket" test -S "$S"
"$PE" $BASEP -- /bin/sh -c 'echo next' >"$TMP/plan2"
t_exit 0 "the next run replaces it (stale: nobody listens)" \
	"$CX" --control "$S" <"$TMP/plan2"
t_eq "and runs" "$(cat "$OUT")" next
ok "and removes it" test ! -e "$S"
chown 65534 "$TMP/theirs"
"$E" unix-bind "$TMP/theirs/x" >/dev/null
mv "$TMP/theirs/x" "$TMP/stale2"
chown 65534 "$TMP/stale2"
t_exit 125 "a stale socket of another uid: refused" \
	"$CX" --control "$TMP/stale2" <"$TMP/plan"
ok "and left there" test -S "$TMP/stale2"
t_exit 125 "a failure after the socket is made (journal unwritable)" \
	"$CX" --journal "$TMP" --control "$S" <"$TMP/plan"
ok "removes it" test ! -e "$S"

# ---- the journal's lock, held from inside, stops nothing ---------------
# A payload that may read the journal takes flock(LOCK_SH) on it (util-
# linux flock(1)), then has a control connection refused: the refusal's
# record needs the journal's exclusive lock.  It waits for it (the
# journal's writer, a thread of its own); the timeout, heartbeat and
# SIGTERM do not (the loop itself waited in flock: a 1 s timeout ran as
# long as the payload liked, its end record said timeout:false).
mkdir -p "$TMP/jl" "$TMP/flags"
JL=$TMP/jl/run.jnl
# lockplan TIMEOUT: the payload holds LOCK_SH on $JL, is refused on the
# control socket ($TMP/flags/refused then), and sleeps 10 s.
lockplan() {
	rm -f "$TMP/flags/refused"
	: >"$JL"
	# shellcheck disable=SC2086
	"$PE" $BASEP --unix --ro "$TMP" --rw "$TMP/flags" --timeout "$1" -- \
	    /usr/bin/flock -s "$JL" /bin/sh -c '"$0" unix-request "$1" x \
	    >"$2/out"; : >"$2/refused"; exec /bin/sleep 10' "$E" "$S" \
	    "$TMP/flags" >"$TMP/plan"
}
jrun() { sed -n '/"event":"start"/,$p' "$JL"; }
lockplan 1s
"$CX" --journal "$JL" --control "$S" <"$TMP/plan" >/dev/null \
    2>"$TMP/cx.err" &
CXPID=$!
wait_run
t_eq "payload holding the journal's lock: the 1 s timeout ends it (124)" \
	"$RC" 124
t_within "on time by the run's clock: after 1 s, before 1.7 s" \
	"$(end_ms "$JL")" 1000 1700
ok "the payload was refused on the socket, holding the lock" \
	test -e "$TMP/flags/refused"
t_eq "once the lock is free: start, the refusal, end" \
	"$(jrun | jq -r .event.event | tr '\n' ' ')" "start control_refused end "
t_eq "the end record says timeout:true" \
	"$(jrun | tail -n 1 | jq -r .event.timeout)" true
t_exit 0 "the journal verifies" "$BIN/journalchain" verify "$JL"

lockplan 30s
"$CX" --journal "$JL" --control "$S" <"$TMP/plan" >/dev/null \
    2>"$TMP/cx.err" &
CXPID=$!
wait_for -t 10 test -e "$TMP/flags/refused"
ok "the payload holds the lock, refused on the socket" \
	test -e "$TMP/flags/refused"
printf '%s\n' '{"v":1,"op":"heartbeat"}' |
	timeout 3 socat - "UNIX-CONNECT:$S" >"$A" 2>/dev/null
t_eq "heartbeat answered meanwhile: running" "$(jget .state)" running
t_eq "the refusal's record waits for the lock" \
	"$(grep -c '"control_refused"' "$JL")" 0
T0=$(($(date +%s%N) / 1000000))
kill -TERM "$CXPID"
wait_run
t_eq "SIGTERM acted on: exit 143" "$RC" 143
# The end's time (the run's realtime clock) against the signal's: at once.
t_within "  at once: the end within 0.7 s of the signal (the payload sleeps 10 s)" \
	"$(( $(end_ms "$JL" time_ns) - T0 ))" 0 700
t_eq "then the refusal and the end record, cancel signal 15" \
	"$(jrun | jq -r '[.event.event, .event.cancel // ""] | join(":")' |
	tr '\n' ' ')" "start: control_refused: end:signal 15 "
t_exit 0 "the journal verifies" "$BIN/journalchain" verify "$JL"

# A lock never released within the bound (5 s), held by a host process:
# before the start record the run is refused and nothing runs; at its
# end the record is said lost, and the exit fails.
# hold: a shared lock on $JL until $TMP/stop exists (30 s at most).
hold() {
	rm -f "$TMP/stop" "$TMP/stop.held"
	"$PY" - "$JL" "$TMP/stop" <<'PYEOF' &
import fcntl, os, sys, time
f = open(sys.argv[1])
fcntl.flock(f, fcntl.LOCK_SH)
open(sys.argv[2] + ".held", "w").close()
t = time.time() + 30
while not os.path.exists(sys.argv[2]) and time.time() < t:
    time.sleep(0.02)
PYEOF
	HPID=$!
	wait_for -t 10 test -e "$TMP/stop.held"
}
unhold() { : >"$TMP/stop"; wait "$HPID"; }
at_exit ': >"$TMP/stop"'
: >"$JL"
rm -f "$TMP/flags/ran"
"$PE" $BASEP --rw "$TMP/flags" -- /bin/sh -c ': >"$0"' "$TMP/flags/ran" \
	>"$TMP/plan"
hold
t_exit 125 "journal locked by another process at the start: refused (125)" \
	"$CX" --journal "$JL" <"$TMP/plan"
t_grep "stderr names the journal and the record lost" \
	"journal $JL: .*start record.* not written within 5000 ms before the payload runs" "$ERR"
t_eq "in one line, that refuses" "$(grep -c . "$ERR") $(grep -c "^confexec: refusing: journal $JL: .*start record.* not written within 5000 ms" "$ERR")" "1 1"
ok "the payload did not run" test ! -e "$TMP/flags/ran"
unhold
ok "nothing was written" test ! -s "$JL"

rm -f "$TMP/flags/running" "$TMP/flags/go"
"$PE" $BASEP --rw "$TMP/flags" --timeout 30s -- /bin/sh -c ': >"$0/running"
	while [ ! -e "$0/go" ]; do sleep 0.05; done' "$TMP/flags" >"$TMP/plan"
"$CX" --journal "$JL" <"$TMP/plan" >/dev/null 2>"$TMP/cx.err" &
CXPID=$!
wait_for -t 10 test -e "$TMP/flags/running"
hold
: >"$TMP/flags/go"
wait_run
t_eq "the end record cannot be written within 5 s: exit 125 (payload 0)" \
	"$RC" 125
t_grep "stderr names the journal and the record lost" \
	"journal $JL: end record not written within 5000 ms of the run's end" \
	"$TMP/cx.err"
unhold
t_eq "the journal holds the start record, no end" \
	"$(jrun | jq -r .event.event | tr '\n' ' ')" "start "
t_exit 0 "and verifies" "$BIN/journalchain" verify "$JL"

# ---- the log holds every record; a follower behind catches up -----------
# A start record of about 620 kB (104 arguments of 1000 bytes, each byte
# escaped to 6 in JSON) and 4096 egress events (as many as a run logs;
# each a CONNECT to a 253-byte name not on the list: 403) overflowed the
# 4 MiB log: records were dropped, the pages no longer verified, the end
# record could be the one dropped.  A follower (limit 4096) not read
# meanwhile then got one page per new record and never caught up.
CLI=$T_TOP/tests/egress-client.py
H=$(printf 'a%.0s' $(seq 63)).$(printf 'b%.0s' $(seq 63))
H=$H.$(printf 'c%.0s' $(seq 63)).$(printf 'd%.0s' $(seq 61))
BIG=$(printf '\001%.0s' $(seq 1000))
set --
for i in $(seq 104); do set -- "$@" "$BIG"; done
mkdir -p "$TMP/flags"
rm -f "$TMP/flags/made" "$TMP/flags/go"
# shellcheck disable=SC2086
"$PE" $BASEP --ro "$T_TOP/tests" --rw "$TMP/flags" --egress 127.0.0.1:9 \
	--timeout 120s -- /bin/sh -c '"$0" "$1" repeat 4096 "$2" >"$3/out"
	: >"$3/made"; while [ ! -e "$3/go" ]; do sleep 0.05; done' "$PY" \
	"$CLI" "CONNECT $H:443 HTTP/1.1\\r\\n\\r\\n" "$TMP/flags" "$@" \
	>"$TMP/plan"
set --
"$CX" --control "$S" <"$TMP/plan" >/dev/null 2>"$TMP/cx.err" &
CXPID=$!
wait_for -t 10 test -S "$S"
cat >"$TMP/behind.py" <<'EOF'
import json, os, socket, sys, time
path, flags, out = sys.argv[1:4]
def ask(req):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall((json.dumps(req) + "\n").encode())
    return s, s.makefile("rb")
log, off, t = b"", 0, time.time() + 30
while not log and time.time() < t:           # the start record
    s, f = ask({"v": 1, "op": "subscribe", "limit": 1048576})
    a = json.loads(f.readline())
    s.close()
    log, off = "".join(a["records"]).encode(), a["next"]
start = len(log)
s, f = ask({"v": 1, "op": "subscribe", "offset": off, "limit": 4096,
            "follow": True})
t = time.time() + 120                         # not read meanwhile
while not os.path.exists(flags + "/made") and time.time() < t:
    time.sleep(0.05)
s.settimeout(15)
pages = ends = 0
try:
    for line in f:
        a = json.loads(line)
        assert a["ok"] and a["offset"] == off, a
        data = "".join(a["records"]).encode()
        assert len(data) <= 4096 and a["next"] == off + len(data), a
        log, off = log + data, a["next"]
        pages, ends = pages + 1, ends + a["end"]
        if log.count(b"\n") >= 4097 and not os.path.exists(flags + "/go"):
            open(flags + "/go", "w").close()  # caught up: the run ends
except socket.timeout:
    pass
open(flags + "/go", "w").close()
open(out, "wb").write(log)
print(start, len(log) - start, pages, ends)
EOF
"$PY" "$TMP/behind.py" "$S" "$TMP/flags" "$TMP/biglog" >"$A" 2>"$TMP/py.err"
wait_run
diag_file "$TMP/py.err"
set -- $(cat "$A") x x x x
t_eq "the run with 4096 egress events ends 0" "$RC" 0
ok "its start record is large: $1 bytes (> 600000)" test "$1" -gt 600000
ok "the follower (limit 4096), behind, caught up: $2 bytes in $3 pages" \
	test "$2" -gt 2000000
t_eq "and got end:true, once" "$4" 1
t_nogrep "no record was turned away from the log" "log is full" \
	"$TMP/cx.err"
t_eq "every record: start, 4096 egress, end" \
	"$(jq -r .event.event <"$TMP/biglog" | uniq -c | tr -s ' ' |
	tr '\n' ';')" " 1 start; 4096 egress; 1 end;"
t_exit 0 "the pages verify (journalchain verify)" \
	"$BIN/journalchain" verify "$TMP/biglog"
t_eq "the end record: 4096 refused, none unlogged" \
	"$(tail -n 1 "$TMP/biglog" | jq -r '.event.egress |
	[.refused, .unlogged] | join(" ")')" "4096 0"

done_testing
