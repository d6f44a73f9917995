#!/bin/sh
# journalchain serve's AG-UI adapter (journalchain(1), SERVE;
# journalchain(5), AG-UI EVENTS), consumed by the reference client from
# npm (@ag-ui/client's HttpAgent with its event-order checks, every event
# checked against @ag-ui/core's schemas; tests/agui-client.cjs), for runs
# made by confexec: a finished run, a followed run, a timed-out and a
# cancelled one, a refused one; bad input is an HTTP error and no stream.
. "$(dirname "$0")/lib.sh"
. "$T_TOP/tests/serve-lib.sh"

needs root landlock=4 jq curl socat node npm

# ---- the reference client, installed once under .build/npm ------------
NPMDIR=$T_TOP/.build/npm
if [ ! -f "$NPMDIR/node_modules/@ag-ui/client/package.json" ] ||
    [ ! -f "$NPMDIR/node_modules/@ag-ui/core/package.json" ]; then
	mkdir -p "$NPMDIR"
	# A registry behind an intercepting proxy: npm's own CA file, for
	# node too.
	ca=$(npm config get cafile 2>/dev/null)
	[ -f "$ca" ] && export NODE_EXTRA_CA_CERTS="$ca"
	# One installer at a time (the variants' runs of this file); the
	# one that waited finds it done.
	(flock -w 300 9 && { { [ -f "$NPMDIR/node_modules/@ag-ui/client/package.json" ] &&
	    [ -f "$NPMDIR/node_modules/@ag-ui/core/package.json" ]; } ||
	    npm install --prefix "$NPMDIR" --no-audit --no-fund \
	    --loglevel=error @ag-ui/client@1.0.0 @ag-ui/core@1.0.0; }) \
	    9>"$NPMDIR.lock" >"$TMP/npm.log" 2>&1 ||
	    { diag_file "$TMP/npm.log"; skip_all "cannot install @ag-ui/client from npm"; }
fi
export NODE_PATH="$NPMDIR/node_modules"
CLIENT=$T_TOP/tests/agui-client.cjs

J=$TMP/runs.jnl
mkruns "$J" ok refused timeout cancel egress denial ||
	skip_all "the runs for the journal could not be made"
ok "the journal of six runs verifies" "$BIN/journalchain" verify "$J"
# sid N: the id of the N-th run (its start record's seq).
sid() { "$BIN/journalchain" show --json "$J" |
	jq -s -r "[.[] | select(.event.event == \"start\") | .seq][$1 - 1]"; }

serve_start --dashboard off "$J" || skip_all "serve did not start"
R=$TMP/agui.json
# agui ID: the client's report on the run in $R, its exit status.
agui() { node "$CLIENT" "$AGUI" run "$1" >"$R" 2>"$TMP/agui.err"; }
q() { jq -c "$1" "$R"; }
qr() { jq -r "$1" "$R"; }

# ---- a finished run ------------------------------------------------------
t_exit 0 "a finished run streams to the reference client without error" \
	agui "$(sid 1)"
t_eq "  RUN_STARTED first, with the client's ids" \
	"$(q '.events[0] | [.type, .threadId, .runId]')" \
	'["RUN_STARTED","borne-thread","borne-agui-run"]'
t_eq "  RUN_FINISHED last, outcome success" \
	"$(q '.events[-1] | [.type, .outcome.type, .result.exit]')" \
	'["RUN_FINISHED","success",0]'
LAYERS=$("$BIN/journalchain" show --json "$J" |
	jq -s -c "[.[] | select(.seq == $(sid 1)) | .event.layers[] | \"layer:\" + .]")
t_eq "  one step per layer of the start record, in order" \
	"$(q '[.events[] | select(.type == "STEP_STARTED") | .stepName]')" \
	"$LAYERS"
t_eq "  each step closed before the tool call" \
	"$(q '[.events[] | select(.type | test("STEP|TOOL_CALL_START")) | .type] |
	    (map(select(. == "STEP_FINISHED")) | length) as $f |
	    [$f, .[-1]]')" \
	"[$(echo "$LAYERS" | jq length),\"TOOL_CALL_START\"]"
t_eq "  the payload is one tool call named after the program" \
	"$(q '[.events[] | select(.type == "TOOL_CALL_START") | .toolCallName]')" \
	'["/bin/echo"]'
t_eq "  its args: argv and the plan's hash" \
	"$(q '[.events[] | select(.type == "TOOL_CALL_ARGS") | .delta | fromjson |
	    [.argv, (.plan | length)]]')" '[[["/bin/echo","hello"],64]]'
t_eq "  its result: exit 0, the time, the counts" \
	"$(q '[.events[] | select(.type == "TOOL_CALL_RESULT") | .content | fromjson |
	    [.exit, (.wall_ns | tonumber > 0), (.counts | type)]]')" \
	'[[0,true,"object"]]'
t_eq "  ended before the run ends: TOOL_CALL_END, RESULT, the state, RUN_FINISHED" \
	"$(q '[.types[-4:][]]')" \
	'["TOOL_CALL_END","TOOL_CALL_RESULT","STATE_DELTA","RUN_FINISHED"]'
t_eq "  the agent's state (snapshot, then JSON Patch deltas): its records, finished" \
	"$(q '.state | [.run, .records, .state, .chain.status]')" \
	"[\"$(sid 1)\",2,\"finished\",\"verified\"]"
t_eq "  each journal record as RAW, the client verifying the links" \
	"$(q '[([.events[] | select(.type == "RAW")] | length), .chain]')" \
	'[2,{"linked":1,"broken":0}]'
t_eq "  the RAW lines are the journal's bytes" \
	"$(qr '.events[] | select(.type == "RAW") | .event.line' | sha256sum)" \
	"$(sed -n "$(sid 1),$(($(sid 1) + 1))p" "$J" | sha256sum)"

t_exit 0 '"last" names the newest run' agui last
t_eq "  the last run's records (the denial run)" \
	"$(q '[.events[] | select(.type == "RAW") | .event.seq][0]')" "$(sid 6)"
t_eq "  its denial as CUSTOM borne.denials" \
	"$(q '[.events[] | select(.name == "borne.denials") | .value.listed[0] |
	    [.access, .path, .grant]]')" '[["read","/var/lib/dpkg/status","--ro /var/lib/dpkg/status"]]'
t_exit 0 "the egress run" agui "$(sid 5)"
t_eq "  its refused destination as CUSTOM borne.egress" \
	"$(q '[.events[] | select(.name == "borne.egress") | .value |
	    [.verdict, .status, .port]]')" '[["refused",403,2]]'

# ---- a refused run, a timed-out one, a cancelled one --------------------
t_exit 0 "a refused run streams without a client error" agui "$(sid 2)"
t_eq "  it ends in RUN_ERROR borne.refused with confexec's reason" \
	"$(q '.events[-1] | [.type, .code, .message]')" \
	'["RUN_ERROR","borne.refused","/bin/true: SHA-256 differs from the pinned digest"]'
t_eq "  its state: refused" "$(q .state.state)" '"refused"'
t_eq "  no step and no tool call: nothing ran" \
	"$(q '[.types[] | select(test("STEP|TOOL"))] | length')" 0
t_exit 0 "a timed-out run" agui "$(sid 3)"
t_eq "  RUN_FINISHED, outcome cancelled, the timeout in the result" \
	"$(q '.events[-1] | [.type, .outcome.type, .result.timeout, .result.exit]')" \
	'["RUN_FINISHED","cancelled",true,124]'
t_eq "  its state: timeout" "$(q .state.state)" '"timeout"'
t_exit 0 "a run cancelled through confexec's control socket" \
	agui "$(sid 4)"
t_eq "  RUN_FINISHED, outcome cancelled, by the control socket" \
	"$(q '.events[-1] | [.type, .outcome.type, .result.cancel]')" \
	'["RUN_FINISHED","cancelled","control"]'
t_eq "  its state: cancelled" "$(q .state.state)" '"cancelled"'

# ---- a followed run ------------------------------------------------------
rm -f "$TMP/runs/go" "$TMP/follow.ready"
node "$CLIENT" "$AGUI" follow "$TMP/follow.ready" >"$TMP/follow.json" \
    2>"$TMP/follow.err" &
FP=$!
at_exit 'kill_ours $FP'
ok "a follow is answered (200) before any run starts" \
	wait_for -t 20 grep -qx 200 "$TMP/follow.ready"
n0=$(grep -c '"event":"start"' "$J")
BIN=$BIN HELP=$HELP sh "$T_TOP/tests/serve-runs.sh" slow "$J" "$TMP/runs" \
    >/dev/null 2>"$TMP/slow.err" &
RP=$!
at_exit 'kill_ours $RP'
ok "the next run starts" wait_for -t 30 sh -c \
	"[ \$(grep -c '\"event\":\"start\"' '$J') -gt $n0 ]"
ok "  and the follower is still streaming it (no end record yet)" \
	kill -0 "$FP"
touch "$TMP/runs/go"
wait "$RP"
t_eq "the run ends" "$?" 0
wait "$FP"
t_eq "  the follower's client ends without error" "$?" 0
R=$TMP/follow.json
t_eq "  it streamed the new run: RUN_STARTED, the run's records, RUN_FINISHED" \
	"$(q '[.types[0], ([.events[] | select(.type == "RAW")][0].event.seq), .events[-1].outcome.type]')" \
	"[\"RUN_STARTED\",$(sid 7),\"success\"]"
t_eq "  its tool call is the run's program" \
	"$(q '[.events[] | select(.type == "TOOL_CALL_START") | .toolCallName]')" \
	'["/bin/sh"]'

# ---- bad input: an HTTP error, no stream ---------------------------------
# post STATUS DESC BODY [TYPE [ACCEPT]]: the status, a JSON body.
post() {
	_st=$1 _d=$2 _b=$3
	_got=$(curl -sS --max-time 10 -o "$TMP/post.out" -w '%{http_code} %{content_type}' \
	    -H "Content-Type: ${4:-application/json}" \
	    -H "Accept: ${5:-text/event-stream}" --data-binary "$_b" "$AGUI")
	t_eq "$_d: $_st, JSON, no stream" "$_got" "$_st application/json"
}
post 400 "a body that is not JSON" '{"threadId":'
post 400 "a duplicate key" \
	'{"threadId":"t","threadId":"u","runId":"r","messages":[],"forwardedProps":{"borne":{"run":"last"}}}'
post 400 "no threadId" '{"runId":"r","messages":[],"forwardedProps":{"borne":{"run":"last"}}}'
post 400 "no messages" '{"threadId":"t","runId":"r","forwardedProps":{"borne":{"run":"last"}}}'
post 400 "neither run nor follow" '{"threadId":"t","runId":"r","messages":[],"forwardedProps":{}}'
post 400 "both run and follow" \
	'{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"borne":{"run":"last","follow":true}}}'
post 404 "a run that is not in the journal" \
	'{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"borne":{"run":"999999"}}}'
post 415 "a body not declared JSON" \
	'{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"borne":{"run":"last"}}}' \
	text/plain
post 406 "a client that does not take an event stream" \
	'{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"borne":{"run":"last"}}}' \
	application/json application/json
t_eq "no Accept at all: answered with the stream" \
	"$(curl -sS --max-time 10 -o "$TMP/na.out" -w '%{http_code} %{content_type}' \
	    -H 'Content-Type: application/json' -H 'Accept:' \
	    --data '{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"borne":{"run":"last"}}}' \
	    "$AGUI")" "200 text/event-stream"
t_grep "  ending in RUN_FINISHED" '^data: \{"type":"RUN_FINISHED"' "$TMP/na.out"
head -c 70000 /dev/zero | tr '\0' ' ' >"$TMP/big"
post 413 "a body over 64 KiB" "@$TMP/big"
t_eq "a GET: 405" "$(curl -sS -o /dev/null -w '%{http_code}' "$AGUI")" 405
serve_stop
t_eq "serve ends on SIGTERM with status 0" "$SRC" 0
done_testing
