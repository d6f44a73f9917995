#!/bin/sh
# serve-runs.sh: real confexec runs into a journal, for the journalchain
# serve tests (t-journalchain-serve.sh, t-journalchain-dashboard.sh,
# t-journalchain-agui.sh).  Not a test itself.
#
# usage: BIN=... HELP=... sh tests/serve-runs.sh KIND JOURNAL [WORKDIR]
#   ok        /bin/echo, exit 0
#   refused   a pinned digest that differs: refused (125)
#   timeout   /bin/sleep 30 with --timeout 1: killed (124)
#   denial    a read outside the rules (the package database), --explain-denials
#   egress    a request to a destination not on the egress list (403)
#   handoff   a connection to a docker socket of the test's own, in a
#             private mount namespace with a tmpfs on /run
#   canary    confexec --canary
#   cancel    /bin/sleep 30 cancelled through the control socket
#   slow      /bin/sh waiting for WORKDIR/go (bounded: --timeout 30)
# Exit: confexec's, except 0 for the runs expected to fail as they did
# (refused, timeout) and for cancel.
set -u
kind=$1 J=$2 W=${3:-${TMPDIR:-/tmp}}
: "${BIN:?}" "${HELP:?}"
PE=$BIN/planenc CX=$BIN/confexec
# /proc and ASAN_OPTIONS: what a sanitized helper needs at its exit.
BASEP="--preset sys --ro /proc --rox $HELP \
	--setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0"

# poll N CMD...: CMD until it succeeds, every 50 ms, N times at most.
poll() {
	_n=$1; shift
	while ! "$@" 2>/dev/null; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || return 1
		sleep 0.05
	done
}
# want CODE CMD...: CMD exits CODE (0 then), else its code.
want() {
	_w=$1; shift
	"$@"
	_r=$?
	[ "$_r" -eq "$_w" ] && return 0
	echo "serve-runs: $kind: exit $_r, wanted $_w" >&2
	return "$_r"
}
run() {
	# shellcheck disable=SC2086
	"$PE" $BASEP "$@" >"$W/plan.$$" || return 2
	"$CX" --journal "$J" <"$W/plan.$$"
}

case $kind in
ok)	run -- /bin/echo hello ;;
refused)
	want 125 run --sha256 \
	    0000000000000000000000000000000000000000000000000000000000000000 \
	    -- /bin/true ;;
timeout)
	want 124 run --timeout 1 -- /bin/sleep 30 ;;
denial)
	# shellcheck disable=SC2086
	"$PE" $BASEP -- "$HELP/escape" read /var/lib/dpkg/status >"$W/plan.$$" &&
	    "$CX" --explain-denials --journal "$J" <"$W/plan.$$" ;;
egress)
	run --egress 127.0.0.1:1 -- /usr/bin/curl -sS -o /dev/null \
	    -w '%{http_code}\n' http://127.0.0.1:2/ ;;
handoff)
	if [ -z "${SERVE_RUNS_NS:-}" ]; then
		SERVE_RUNS_NS=1 exec unshare -m --propagation private \
		    sh "$0" "$@"
	fi
	mount -t tmpfs tmpfs /run || exit 1
	rm -f "$W/docker.ready"
	"$HELP/handoff" serve stream /run/docker.sock "$W/docker.ready" \
	    "$W/docker.log" &
	sp=$!
	poll 200 test -e "$W/docker.ready" || { kill "$sp"; exit 1; }
	run --unix --ack-daemon docker --ro /run/docker.sock -- \
	    "$HELP/handoff" connect plain \
	    /run/docker.sock
	r=$?
	kill "$sp"
	wait "$sp" 2>/dev/null
	exit "$r" ;;
canary)
	# shellcheck disable=SC2086
	"$PE" $BASEP -- /bin/true >"$W/plan.$$" &&
	    "$CX" --canary --journal "$J" <"$W/plan.$$" >/dev/null ;;
cancel)
	S=$W/ctl.$$
	# shellcheck disable=SC2086
	"$PE" $BASEP --timeout 60 -- /bin/sleep 30 >"$W/plan.$$" || exit 2
	"$CX" --journal "$J" --control "$S" <"$W/plan.$$" &
	cp=$!
	poll 200 test -S "$S" || { kill "$cp"; exit 1; }
	# the run's start record first: the cancel must find it running
	printf '{"v":1,"op":"cancel"}\n' | socat - "UNIX-CONNECT:$S" \
	    >/dev/null
	# its exit status and end record are the callers' to check
	wait "$cp"
	exit 0 ;;
slow)
	run --timeout 30 --ro "$W" -- /bin/sh -c \
	    'while [ ! -e "$0" ]; do sleep 0.05; done' "$W/go" ;;
*)	echo "serve-runs: unknown kind: $kind" >&2; exit 2 ;;
esac
