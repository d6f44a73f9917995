# tests/serve-lib.sh: what the journalchain serve tests share, sourced
# after lib.sh (t-journalchain-serve.sh, -dashboard.sh, -agui.sh).
#
#   serve_start [OPTION...] FILE...
#                      journalchain serve on ephemeral loopback ports (its
#                      own --dashboard/--agui win when given); its pid in
#                      $SPID, its URLs in $DASH and $AGUI (empty when
#                      off), its stderr in $TMP/serve.err; stopped at exit
#   serve_stop         SIGTERM, waited for; its exit status in $SRC
#   mkruns J KIND...   real confexec runs of each KIND into J
#                      (tests/serve-runs.sh); false when one failed
#   run_ids J          the ids /api/runs lists, newest first

SPID=
serve_start() {
	_sd="--dashboard 127.0.0.1:0" _sa="--agui 127.0.0.1:0" _n=2
	for _o in "$@"; do
		case $_o in --dashboard*) _sd= ;; --agui*) _sa= ;; esac
	done
	case " $* " in *" --dashboard off "*) _n=$((_n - 1)) ;; esac
	case " $* " in *" --agui off "*) _n=$((_n - 1)) ;; esac
	rm -f "$TMP/serve.out"
	# shellcheck disable=SC2086
	"$BIN/journalchain" serve $_sd $_sa "$@" >"$TMP/serve.out" \
	    2>"$TMP/serve.err" &
	SPID=$!
	at_exit 'kill_ours $SPID'
	wait_for -t 20 sh -c "[ \$(wc -l <'$TMP/serve.out') -ge $_n ]" ||
	    { diag_file "$TMP/serve.err"; return 1; }
	DASH=$(awk '$1 == "dashboard" { print $2 }' "$TMP/serve.out")
	AGUI=$(awk '$1 == "agui" { print $2 }' "$TMP/serve.out")
	return 0
}
serve_stop() {
	kill -TERM "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	SRC=$?
}
mkruns() {
	_j=$1; shift
	mkdir -p "$TMP/runs"
	for _k in "$@"; do
		BIN=$BIN HELP=$HELP sh "$T_TOP/tests/serve-runs.sh" "$_k" "$_j" \
		    "$TMP/runs" >>"$TMP/runs/out" 2>>"$TMP/runs/err" || {
			diag "run $_k failed"; diag_file "$TMP/runs/err"
			return 1
		}
	done
}
run_ids() { curl -sS --max-time 10 "${DASH}api/runs" | jq -r '.runs[].id'; }
