#!/bin/sh
# journalchain show over the records confexec makes: the fields of each
# line are its record's, a preset run's lines bounded however long its
# argv, --run over real runs.  Apart from t-journalchain.sh: it needs
# confexec's layers, curl and the helpers, which the VM tier's guest
# (tests/vm/guest.list) does not have.
. "$(dirname "$0")/lib.sh"
need_cmd jq

# Runs confexec made: the fields of their start and end lines are their
# records'; a preset run's lines are bounded however long its argv.
if [ "$(id -u)" -ne 0 ] || ! host_can landlock,seccomp,cgroup2 ||
    [ ! -x "$HELP/handoff" ] || ! command -v curl >/dev/null; then
	skip "show: the lines of confexec's runs" \
	    "needs root, landlock, seccomp, cgroup2, curl and the helpers"
else
	. "$T_TOP/tests/serve-lib.sh"
	R=$TMP/runs.jnl
	long=$(head -c 3000 /dev/zero | tr '\0' a)
	"$BIN/planenc" --preset sys -- /bin/echo "$long" "$long" "$long" \
	    >"$TMP/long.plan" && "$BIN/confexec" --journal "$R" \
	    <"$TMP/long.plan" >/dev/null
	t_eq "a preset run with a 9,000-byte argv" "$?" 0
	mkruns "$R" denial egress handoff refused
	t_eq "runs with a denial, an egress refusal, a handoff, a refusal" "$?" 0
	t_exit 0 "show" journalchain show "$R"
	cp "$OUT" "$TMP/runs.show"
	journalchain show --json "$R" >"$TMP/runs.json"
	# ev SEQ FILTER: record SEQ's event through jq FILTER.
	ev() { jq -r "select(.seq == $1) | .event | $2" "$TMP/runs.json"; }
	# start SEQ: its line's run, event, program, mode, preset, counts.
	t_grep "the preset run's start: run 1, the preset by name" \
	    "^ 1  [0-9T:-]{19}Z   1  start    \\.\\.\\./echo a{28}\\.\\.\\.  mode=$(ev 1 .mode) preset=sys rules=$(ev 1 '.rules | length') layers=$(ev 1 '.layers | length') degraded=0\$" \
	    "$TMP/runs.show"
	t_eq "  its start record is 9,000 bytes and more" \
	    "$(sed -n 1p "$R" | wc -c | awk '$1 > 9000 { print "yes" }')" yes
	t_eq "  no line over 162 bytes and twice the number width (166)" \
	    "$(LC_ALL=C awk 'length > 166' "$TMP/runs.show")" ""
	t_grep "  its end: exit 0, no denial counted (writes observed, none denied)" \
	    '^ 2  [0-9T:-]{19}Z   1  end      \.\.\./echo a{28}\.\.\.  exit=0 denials=0 egress=0/0 handoffs=0$' \
	    "$TMP/runs.show"
	t_grep "the denial's end: the denied calls its record counts" \
	    "^ 4  [0-9T:-]{19}Z   3  end      \\.\\.\\./escape read /var/lib/dpkg/status {4}  exit=$(ev 4 .exit) denials=$(ev 4 .denials.calls)\\(ignored\\) egress=0/0 handoffs=0\$" \
	    "$TMP/runs.show"
	t_eq "  at least one" "$(ev 4 '.denials.calls | tonumber > 0')" true
	t_eq "  ignored: the program exited 0" "$(ev 4 '.denials.ignored')" true
	t_grep "the egress refusal: its event, verdict and destination" \
	    '^ 6  [0-9T:-]{19}Z   5  egress   \.\.\./curl -sS .*  refused 127\.0\.0\.1:2 status=403: ' \
	    "$TMP/runs.show"
	t_grep "  its end counts it" \
	    '^ 7  [0-9T:-]{19}Z   5  end      \.\.\./curl -sS .*  exit=0 denials=0 egress=0/1 handoffs=0$' \
	    "$TMP/runs.show"
	t_grep "the handoff: the daemon and its pid, as recorded" \
	    "^ 9  [0-9T:-]{19}Z   8  handoff  \\.\\.\\./handoff connect plain /run/docker\\.\\.\\.  docker pid=$(ev 9 .pid) uid=$(ev 9 .uid)\$" \
	    "$TMP/runs.show"
	t_grep "  its end counts it" \
	    '^10  [0-9T:-]{19}Z   8  end      .*  exit=0 denials=0 egress=0/0 handoffs=1$' \
	    "$TMP/runs.show"
	t_grep "the refusal: exit 125 and why" \
	    '^12  [0-9T:-]{19}Z  11  end      /bin/true {31}  exit=125: /bin/true: SHA-256 differs from the pinned digest$' \
	    "$TMP/runs.show"
	t_eq "twelve lines, one a record" "$(wc -l <"$TMP/runs.show" | tr -d ' ')" 12
	json_of "$R" >"$TMP/runs.want"
	ok "show --json: the records whole, byte for byte" cmp "$TMP/runs.json" "$TMP/runs.want"
	t_exit 0 "show --run 8: the handoff run" journalchain show --run 8 "$R"
	t_eq "  its three records" "$(cut -c1-2 "$OUT" | tr -d ' ' | tr '\n' ' ')" "8 9 10 "
fi

done_testing
