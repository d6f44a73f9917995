#!/bin/sh
# journalchain serve's dashboard in a real browser (headless chromium,
# driven through its DevTools protocol by tests/dashboard-cdp.cjs): the
# runs of a journal made by confexec (a refused plan, a timeout, a denial,
# an egress refusal, a handoff, a canary) as the page shows them, each
# detail, a run appended while the page is open appearing without a
# reload; the screenshot is kept under .build/test-output.
. "$(dirname "$0")/lib.sh"
. "$T_TOP/tests/serve-lib.sh"

needs root landlock=4 jq curl node chromium unshare
[ -x "$BIN/confexec-canary" ] || skip_all "no $BIN/confexec-canary (make all)"
[ -x "$HELP/handoff" ] || skip_all "no handoff helper (make helpers)"
NODE="node"
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null ||
	NODE="node --experimental-websocket"
$NODE -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null ||
	skip_all "this node has no WebSocket client"

SHOTS=$T_TOP/.build/test-output/t-journalchain-dashboard-$VARIANT
mkdir -p "$SHOTS"

J=$TMP/runs.jnl
mkruns "$J" refused timeout denial egress handoff canary ||
	skip_all "the runs for the journal could not be made"
# sid N: the id of the N-th run (its start record's seq).
sid() { "$BIN/journalchain" show --json "$J" |
	jq -s -r "[.[] | select(.event.event == \"start\") | .seq][$1 - 1]"; }
serve_start --agui off "$J" || skip_all "serve did not start"

# chromium, fresh profile, nothing of its own on the network.
mkdir -p "$TMP/profile"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$TMP/profile" --remote-debugging-port=0 about:blank \
    >"$TMP/chromium.out" 2>"$TMP/chromium.err" &
CRP=$!
at_exit 'kill_ours $CRP'
wait_for -t 60 grep -q 'DevTools listening on ws://' "$TMP/chromium.err" ||
	{ diag_file "$TMP/chromium.err"; skip_all "chromium did not start"; }
CDP=$(sed -n 's|.*DevTools listening on ws://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' \
    "$TMP/chromium.err" | head -n 1)

printf 'BIN=%s HELP=%s sh %s ok %s %s\n' "$BIN" "$HELP" \
    "$T_TOP/tests/serve-runs.sh" "$J" "$TMP/runs" >"$TMP/append.sh"
V0=$("$BIN/journalchain" verify "$J" | cut -d' ' -f1)
H0=$("$BIN/journalchain" head "$J" | tr ' ' :)
IDS="$(sid 1),$(sid 2),$(sid 3),$(sid 4),$(sid 5),$(sid 6)"
$NODE "$T_TOP/tests/dashboard-cdp.cjs" "$CDP" "$DASH" 6 "$IDS" \
    "$TMP/append.sh" "$SHOTS/dashboard.png" >"$TMP/page.json" \
    2>"$TMP/cdp.err"
t_eq "the browser loaded the page, opened six details, saw a run appended" \
	"$?" 0
diag_file "$TMP/cdp.err"
P=$TMP/page.json
q() { jq -c "$1" "$P"; }
# row N: the N-th run row before the append (newest first: N=1 is run 6).
row() { q ".before.runs[$1 - 1]"; }

t_eq "the journal's chain: verified, its head as journalchain head says" \
	"$(q '.before.journals[0][1:4]')" \
	"$(printf '["verified","%s","%s"]' "$V0" "$H0")"
t_eq "the page is live (server-sent events)" "$(q .before.live)" '"live"'
t_eq "six runs, newest first, with their programs" \
	"$(q '[.before.runs[] | [.[0], .[1]]]')" \
	"[[\"$(sid 6)\",\"$BIN/confexec-canary\"],[\"$(sid 5)\",\"$HELP/handoff\"],[\"$(sid 4)\",\"/usr/bin/curl\"],[\"$(sid 3)\",\"$HELP/escape\"],[\"$(sid 2)\",\"/bin/sleep\"],[\"$(sid 1)\",\"/bin/true\"]]"
t_eq "the refused plan: refused, with confexec's reason" \
	"$(row 6 | jq -c '.[4]')" \
	'"refused: /bin/true: SHA-256 differs from the pinned digest"'
t_eq "the timeout: timeout, exit 124, killed by confexec" \
	"$(row 5 | jq -c '[.[4], .[5]]')" '["timeout (exit 124)","confexec"]'
t_eq "the denial run: one denial counted" "$(row 4 | jq -c '.[8]')" '"1"'
t_eq "the egress run: none allowed, one refused" "$(row 3 | jq -c '.[9]')" \
	'"0 allowed, 1 refused"'
t_eq "the handoff run: one handoff" "$(row 2 | jq -c '.[10]')" '"1"'
t_like() { printf '%s\n' "$3" >"$TMP/like"; t_grep "$1" "$2" "$TMP/like"; }
t_like "the canary run: its matches, no mismatch" \
	'^"[0-9]+ match, 0 MISMATCH, [0-9]+ not run"$' "$(row 1 | jq -c '.[11]')"
t_eq "every run's mode: strict" "$(q '[.before.runs[][6]] | unique')" '["strict"]'

d() { q ".details[\"$1\"] | $2"; }
t_eq "detail of the denial run: the path, the access, the flag that grants it" \
	"$(d "$(sid 3)" .denials)" '[["read","/var/lib/dpkg/status","--ro /var/lib/dpkg/status","1"]]'
t_eq "  its layers in the start record's order" \
	"$(d "$(sid 3)" '.layers | map(.[1])')" \
	"$(sed -n "$(sid 3)p" "$J" | jq -c .event.layers)"
t_eq "  its rules: the preset by name, then its own" \
	"$(d "$(sid 3)" '.rules | [.[0][0], (.[1:] | map(.[1]))]')" \
	"[\"preset sys\",[\"/proc\",\"$HELP\"]]"
t_eq "detail of the egress run: the refused destination and why" \
	"$(d "$(sid 4)" .egress)" \
	"[[\"refused\",\"127.0.0.1\",\"2\",\"\",\"127.0.0.1 port 2 is not on this run's egress list\"]]"
t_eq "detail of the handoff run: the daemon, its socket, its uid" \
	"$(d "$(sid 5)" '.handoffs | map(.[0:2] + [.[3]])')" \
	'[["docker","/run/docker.sock","0"]]'
t_eq "detail of the canary run: each probe's verdict as journaled" \
	"$(d "$(sid 6)" '.canary | map(.[5])')" \
	"$("$BIN/journalchain" show --json "$J" | jq -c 'select(.event.event == "canary") | .event.probes | map(.verdict)')"
t_eq "detail of the refused run: no layer, its records" \
	"$(d "$(sid 1)" '[(.layers | length), (.records | map(.[1]))]')" \
	'[0,["start","end"]]'

t_eq "the appended run appears on the open page, marked new" \
	"$(q '[.after.runs[0][1], .after.classes[0]]')" '["/bin/echo","run ok new"]'
t_eq "  and only it (the runs there when the page loaded are not)" \
	"$(q '[.after.classes[1:][] | select(test("\\bnew\\b"))] | length')" 0
t_eq "  without a reload (a server-sent update)" \
	"$(q '[.reloads, (.after.updates > .before.updates)]')" '[0,true]'
t_eq "  the chain still verified, one run's records more" \
	"$(q '.after.journals[0][1:3]')" \
	"$(printf '["verified","%s"]' "$("$BIN/journalchain" verify "$J" | cut -d' ' -f1)")"
ok "the screenshot is a PNG" sh -c "head -c 8 '$SHOTS/dashboard.png' |
	od -An -tx1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a"
ok "and the detail's screenshot too" sh -c "head -c 8 '$SHOTS/dashboard-detail.png' |
	od -An -tx1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a"
note "screenshots: $SHOTS/dashboard.png, $SHOTS/dashboard-detail.png"
serve_stop
kill_ours "$CRP"
wait "$CRP" 2>/dev/null
done_testing
