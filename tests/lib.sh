# tests/lib.sh: TAP helpers for the sh tests, sourced by tests/t-*.sh.
#
#   ok DESC CMD...          pass when CMD exits 0
#   t_exit CODE DESC CMD... pass when CMD exits CODE; its stdout and
#                           stderr are kept in $OUT and $ERR
#   t_grep DESC RE FILE     pass when FILE has a line matching RE (ERE)
#   t_nogrep DESC RE FILE   pass when no line of FILE matches RE
#   t_eq DESC GOT WANT      pass when the two strings are equal
#   pass DESC / fail DESC   record a result directly
#   skip DESC REASON        a loud skip (a failure when CI=true)
#   skip_all REASON         skip the rest of the file loudly (a failure
#                           when CI=true); at the top of a file the plan is
#                           1..0, further down one skipped test stands for
#                           the rest, so a file always prints one plan
#   need_root, need_landlock, need_cgroup2, need_cmd CMD
#                           skip_all when missing
#   host_can MECH[,MECH...] true when cgprobe says this host can enforce
#                           every MECH: expected outcomes come from it,
#                           never from the shape of one machine
#   wait_for [-t SECS] CMD...
#                           poll CMD until it succeeds (every 50 ms, SECS
#                           at most, 30 by default): a test waits for the
#                           event it needs (a ready file, a port listed),
#                           never for a guessed time; false, with a diag
#                           naming CMD, when it never comes
#   done_testing            print the plan; exit non-zero on any failure
#
# Binaries come from $BORNE_BIN, probe helpers from $BORNE_HELPERS (set by
# make test), so the same scripts prove the dyn, asan and static builds.

set -u
T_N=0
T_FAIL=0
T_TOP=${BORNE_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BIN=${BORNE_BIN:-$T_TOP/.build/dyn/bin}
HELP=${BORNE_HELPERS:-$T_TOP/.build/dyn/helpers}
VARIANT=${BORNE_VARIANT:-dyn}
export PATH="$BIN:$PATH"
# The programs most files run, and the planenc options most plans start
# from: ROOTFS the system's programs and libraries (/lib and /lib64 may
# be links into /usr: followed), ASANQ the sanitized build's runtime kept
# quiet in a run (no leak report, no SEGV handler of its own).
CX=$BIN/confexec
PE=$BIN/planenc
E=$HELP/escape
ROOTFS="--rox /usr --rox /lib --rox /lib64 --follow-symlinks /lib"
ROOTFS="$ROOTFS --follow-symlinks /lib64"
ASANQ="--setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/borne-test.XXXXXX")
# plan ARGS...: planenc with the file's own $BASE options first.
plan() { "$PE" $BASE "$@"; }
OUT=$TMP/.out
ERR=$TMP/.err
T_CLEANUP=
trap 't_cleanup' EXIT
trap 'exit 130' INT TERM

t_cleanup() {
	[ -n "$T_CLEANUP" ] && eval "$T_CLEANUP"
	rm -rf "$TMP"
}

# at_exit CMD: run CMD (a string) when the test file ends.
at_exit() { T_CLEANUP="$1${T_CLEANUP:+; $T_CLEANUP}"; }
# journal_dir: $JD, a directory for journals out of the payloads' reach
# (plans that grant rw over $TMP: confexec refuses a journal that a rw
# rule reaches), removed at exit.
journal_dir() {
	JD=$(mktemp -d "${TMPDIR:-/tmp}/borne-jnl.XXXXXX")
	at_exit "rm -rf '$JD'"
}
# /etc/subuid and /etc/subgid are machine-wide: every test or bench that
# edits them takes this lock first (descriptor 9, 5 minutes at most) and
# restores them before letting go.  subid_lock: 0 once held.  subid_add:
# both saved, root:100000:65536 added to each, restored at exit only while
# still held (later the files are another holder's).  subid_restore:
# both as saved.  subid_unlock: the lock let go.
subid_lock() {
	exec 9>/run/lock/borne-subid.lock
	flock -w 300 9
}
subid_add() {
	cp -p /etc/subuid "$TMP/subuid.bak" &&
	    cp -p /etc/subgid "$TMP/subgid.bak" || return 1
	SUBID_HELD=1
	at_exit '[ -z "$SUBID_HELD" ] || subid_restore'
	echo "root:100000:65536" >>/etc/subuid
	echo "root:100000:65536" >>/etc/subgid
}
subid_restore() {
	cat "$TMP/subuid.bak" >/etc/subuid
	cat "$TMP/subgid.bak" >/etc/subgid
	SUBID_HELD=
}
subid_unlock() {
	flock -u 9
	exec 9>&-
}
# kill_ours [-P PARENT] [-SIG] PID...: signal each PID that is still a
# child of this test's shell (or of PARENT).  A pid waited for long
# before may be another process's by the time a test ends (pids are
# reused): a cleanup must never signal it.
kill_ours() {
	_ks= _kpar=$$
	[ "${1-}" = -P ] && { _kpar=$2; shift 2; }
	case ${1-} in -*) _ks=$1; shift ;; esac
	for _kp in "$@"; do
		[ -r "/proc/$_kp/stat" ] || continue
		# the field after the command name's ") " is the state, then ppid
		_kpp=$(sed 's/.*) [A-Za-z] \([0-9]*\).*/\1/' "/proc/$_kp/stat" \
		    2>/dev/null)
		[ "$_kpp" = "$_kpar" ] && kill $_ks "$_kp" 2>/dev/null
	done
	return 0
}
# pid_start PID: the process's start time (clock ticks since boot);
# kill_same [-SIG] PID START: signal PID only if it is still the process
# that started then (for a process whose parent changes, e.g. one that
# outlives its caller).
pid_start() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
kill_same() {
	_ks=
	case ${1-} in -*) _ks=$1; shift ;; esac
	[ -n "$2" ] && [ "$(pid_start "$1")" = "$2" ] && kill $_ks "$1" 2>/dev/null
	return 0
}

# t_now: centiseconds since boot (no external command).
t_now() {
	read -r _tu _ </proc/uptime
	_tu=${_tu%.*}${_tu#*.}
	_tu=${_tu#"${_tu%%[1-9]*}"}
	echo "${_tu:-0}"
}
wait_for() {
	_ws=30
	[ "${1-}" = -t ] && { _ws=$2; shift 2; }
	_wend=$(($(t_now) + _ws * 100))
	while ! "$@" >/dev/null 2>&1; do
		if [ "$(t_now)" -ge "$_wend" ]; then
			diag "waited ${_ws} s in vain for: $*"
			return 1
		fi
		sleep 0.05
	done
	return 0
}

pass() { T_N=$((T_N + 1)); echo "ok $T_N - $1"; }
fail() {
	T_N=$((T_N + 1)); T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - $1"
}
# diag: what a failure says, on stderr (prove shows it without -v, so a
# failed CI run says why); note: what a test reports, on stdout.
diag() { printf '%s\n' "$@" | sed 's/^/# /' >&2; }
diag_file() {
	[ -s "$1" ] && head -n "${2:-20}" "$1" | sed 's/^/#   /' >&2
	return 0
}
note() { printf '%s\n' "$@" | sed 's/^/# /'; }

skip() {
	if [ "${CI:-}" = true ]; then
		fail "$1 # skipped on CI: $2 (a skip on CI is a gap)"
	else
		T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"
	fi
}

ok() {
	desc=$1; shift
	if "$@" >"$OUT" 2>"$ERR"; then pass "$desc"; else
		fail "$desc"; diag "command: $*"; diag_file "$ERR"; fi
}

t_exit() {
	want=$1; desc=$2; shift 2
	"$@" >"$OUT" 2>"$ERR"; got=$?
	if [ "$got" -eq "$want" ]; then pass "$desc"; else
		fail "$desc"; diag "command: $*" "exit $got, wanted $want"
		diag_file "$ERR"; fi
}

t_grep() {
	if grep -Eq -- "$2" "$3"; then pass "$1"; else
		fail "$1"; diag "no line matches /$2/ in:"; diag_file "$3"; fi
}

# t_said: a line confexec says while the payload runs, on the same
# stderr, when the payload may be writing at that moment: the broker
# names why a TLS client gave up only after the client closed, as the
# client prints its own error (curl writes it a byte at a time).
# confexec's line is written whole; what the payload wrote of its own
# line may come before it.  Matched from "confexec: " to the line's end.
t_said() {
	t_grep "$1" "confexec: $2" "$3"
}

# t_grep_soon: t_grep on a file another process is still writing (a
# journal the run appends to without blocking): polled first, bounded.
t_grep_soon() {
	wait_for grep -Eq -- "$2" "$3" || :
	t_grep "$@"
}

t_nogrep() {
	if grep -Eq -- "$2" "$3"; then
		fail "$1"; diag "unexpected match of /$2/ in:"; diag_file "$3"
	else pass "$1"; fi
}

t_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else
		fail "$1"; diag "got:  '$2'" "want: '$3'"; fi
}

# end_ms JOURNAL [FIELD]: the last end record's FIELD (wall_ns by default:
# the run's own clock, from just before its start record to its end) in
# ms.  A bound on a run's time is asserted on it, never on the test's own
# clock (a loaded machine delays the test, not the run's clock).
end_ms() {
	sed -n "s/.*\"event\":\"end\".*\"${2:-wall_ns}\":\"\([0-9]*\)\".*/\1/p" \
	    "$1" | tail -n 1 | awk '{ printf "%.0f\n", int($1 / 1000000) }'
}
# t_within DESC GOT LO HI: pass when LO <= GOT < HI (integers; a bound
# tight enough that a doubled or shifted value falls outside).
t_within() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -lt "$4" ]
	then pass "$1"; else
		fail "$1"; diag "got:  '$2'" "want: within [$3, $4)"; fi
}

# plain_edits DESC: the file's cx (a run granted --rw over $W) changes a
# plain file of $W's: chmod +x, touch -d, then setfattr user.* (DESC);
# each seen from the host.
plain_edits() {
	echo plain >"$W/plain"
	chmod 644 "$W/plain"
	t_exit 0 "chmod +x" cx -- /usr/bin/chmod +x "$W/plain"
	t_eq "host side: now 755" "$(stat -c %a "$W/plain")" 755
	t_exit 0 "touch -d" cx -- /usr/bin/touch -d '2001-09-09 01:46:40 UTC' \
		"$W/plain"
	t_eq "host side: mtime set" "$(stat -c %Y "$W/plain")" 1000000000
	t_exit 0 "$1" \
		cx -- /usr/bin/setfattr -n user.origin -v build "$W/plain"
	t_eq "host side: the xattr is there" \
		"$(getfattr --absolute-names --only-values -n user.origin \
		    "$W/plain")" build
}

# Skip the remainder of the file (every later test) with a loud reason.
# After a test has been printed, a "1..0" plan would be a second plan:
# one skipped test stands for the rest and done_testing prints the plan.
skip_all() {
	echo "# SKIP: ${0##*/}: $1" >&2
	if [ "$T_N" -gt 0 ] || [ "${CI:-}" = true ]; then
		skip "the rest of ${0##*/}" "$1"
		done_testing
	fi
	echo "1..0 # SKIP $1"
	T_N=-1
	exit 0
}

# try WANT DESC [PLANENC-OPTION... --] ROUTE [ARG...]: the suite's route
# helper $A, run by the suite's cx (its plan plus the options), must
# print WANT (an errno name, OK); what confexec said is shown otherwise.
try() {
	want=$1 desc=$2
	shift 2
	opts=
	case " $* " in
	*" -- "*)
		while [ "$1" != -- ]; do opts="$opts $1"; shift; done
		shift ;;
	esac
	cx $opts -- "$A" "$@" >"$OUT" 2>"$ERR"
	t_eq "$desc" "$(cat "$OUT")" "$want"
	[ "$(cat "$OUT")" = "$want" ] || diag_file "$ERR"
}

need_root() { [ "$(id -u)" -eq 0 ] || skip_all "needs root"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip_all "needs $1"; }
need_landlock() {
	[ -x "$HELP/landlock-abi" ] || skip_all "no landlock-abi helper"
	v=$("$HELP/landlock-abi" 2>/dev/null) || v=0
	[ "${v:-0}" -ge "${1:-1}" ] || skip_all "needs Landlock ABI ${1:-1} (have $v)"
}
host_can() { "$BIN/cgprobe" --require "$1" >/dev/null 2>&1; }
# needs WHAT...: a file's guards on one line, each WHAT in turn: root,
# landlock=N (need_landlock N), cgroup2 (need_cgroup2), else a command
# (need_cmd).
needs() {
	for _nw in "$@"; do
		case $_nw in
		root) need_root ;;
		landlock=*) need_landlock "${_nw#landlock=}" ;;
		cgroup2) need_cgroup2 ;;
		*) need_cmd "$_nw" ;;
		esac
	done
}
need_cgroup2() {
	grep -q ' - cgroup2 ' /proc/self/mountinfo || skip_all "needs a cgroup2 mount"
}

done_testing() {
	[ "$T_N" -lt 0 ] && exit 0
	echo "1..$T_N"
	[ "$T_FAIL" -eq 0 ] || exit 1
	exit 0
}

# json_of FILE: each record as journalchain show --json prints it (its
# hash after its seq).
json_of() {
	while IFS= read -r l; do
		h=$(printf '%s\n' "$l" | sha256sum | cut -d' ' -f1)
		printf '%s\n' "$l" | sed "s/^{\"seq\":\([0-9]*\),/&\"hash\":\"$h\",/"
	done <"$1"
}
