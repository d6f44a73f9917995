#!/bin/sh
# confexec --canary (confexec(1), CANARIES): the plan's boundary around
# the probe program instead of the plan's own; one line per probe, each
# judged against the plan's rules and the layers the run applied, its
# host side looked at by confexec.  A plan that denies every route
# passes, one that grants a route shows it granted and still passes,
# test builds of confexec without Landlock or without the mount view
# (helpers/confexec-weak-*) fail naming the probes that caught them, a
# refused boundary is 125.  The docker socket's probe with
# a real dockerd: tests/t-confexec-canary-docker.sh.
. "$(dirname "$0")/lib.sh"

needs root landlock=4 jq python3

WEAK=$HELP/confexec-weak-landlock
J=$TMP/run.jnl
[ -x "$BIN/confexec-canary" ] || skip_all "no $BIN/confexec-canary (make all)"
for w in "$WEAK" "$HELP/confexec-weak-mountview" \
    "$HELP/confexec-weak-privcheck"; do
	[ -x "$w" ] || skip_all "no $w (make helpers)"
done

# canary [CONFEXEC [OPTION...]] -- PLANENC-ARGS...: one canary run of the
# plan, journal $J (emptied); lines in $OUT, stderr in $ERR.
canary() {
	c=$CX
	o=
	while [ "$1" != -- ]; do
		case $1 in /*) c=$1 ;; *) o="$o $1" ;; esac
		shift
	done
	shift
	rm -f "$J"
	"$PE" "$@" -- /bin/sh -c "echo ran >$TMP/ran" >"$TMP/plan" || return 124
	# shellcheck disable=SC2086
	"$c" --canary $o --journal "$J" <"$TMP/plan"
}
# line PROBE [N]: the N-th line (1) of probe PROBE, its fields tab-separated.
line() { awk -F'\t' -v p="$1" -v n="${2:-1}" '$1 == p && ++i == n' "$OUT"; }
# field PROBE N: field N (2 tried, 3 expected, 4 got, 5 host, 6 verdict).
field() { line "$1" | cut -f"$2"; }
# expect PROBE EXPECTED GOT HOST VERDICT: the probe's line says so.
expect() {
	t_eq "  $1: $2, got $3, host: $4" \
	    "$(line "$1" | cut -f1,3-6)" \
	    "$(printf '%s\t%s\t%s\t%s\t%s' "$1" "$2" "$3" "$4" "$5")"
}
# no_mismatch: every line has six fields and a verdict of match or not run.
no_mismatch() {
	t_eq "  every line is a match (or a probe not run, saying why)" \
	    "$(awk -F'\t' 'NF != 6 || ($6 != "match" && $6 != "not run")' "$OUT")" ""
}
# t_like DESC RE STRING: STRING matches RE.
t_like() { printf '%s\n' "$3" >"$TMP/like"; t_grep "$1" "$2" "$TMP/like"; }
DIRRE='/(tmp|var/tmp|dev/shm|run)/borne-canary\.[A-Za-z0-9]{6}'

# ---- a plan that denies every route -------------------------------------
t_exit 0 "a plan with no rule, no socket: every probe matches, exit 0" canary --
no_mismatch
t_eq "  the plan's own program never ran" "$(ls "$TMP/ran" 2>/dev/null)" ""
dir=$(field write-outside 2 | sed 's|^write ||; s|/write$||')
t_like "  the probes aim at a fresh directory outside the rules" \
    "^write $DIRRE/write\$" "$(field write-outside 2)"
# Outside every rule the view has nothing (ENOENT); the view's own root
# is there, and only Landlock is in the way of listing it.
expect write-outside "denied (landlock, mount-view)" ENOENT "file unchanged" match
expect chmod-outside "denied (mount-view)" ENOENT "file unchanged" match
expect utimes-outside "denied (mount-view)" ENOENT "file unchanged" match
expect read-outside "denied (landlock, mount-view)" ENOENT - match
expect exec-outside "denied (landlock, mount-view)" ENOENT - match
expect list-root "denied (landlock)" EACCES - match
expect udp "denied (seccomp)" EPERM - match
expect tcp-ungranted "denied (seccomp)" EPERM "listener saw nothing" match
expect abstract-unix "denied (seccomp)" EPERM "listener saw nothing" match
expect ptrace "denied (seccomp)" EPERM "process alive, untraced" match
expect sysv-ipc "denied (ipc-namespace)" EINVAL "queue unchanged" match
if [ "$("$HELP/landlock-abi")" -ge 6 ]; then
	expect signal "denied (pid-namespace, landlock-scope)" ESRCH \
	    "process alive, no signal" match
else
	expect signal "denied (pid-namespace)" ESRCH "process alive, no signal" match
fi
t_eq "  the egress probe says why it did not run" "$(field egress-unlisted 6)" "not run"
t_eq "  no daemon line: none is listed here" "$(line daemon)" ""
t_eq "  nothing on stderr" "$(cat "$ERR")" ""
t_eq "  the directory is gone after the run" "$(ls -d "$dir" 2>/dev/null)" ""
pid=$(field signal 2 | sed 's/.* //')
t_eq "  the journal has start, canary, end" \
    "$(jq -r '.event.event' "$J" | tr '\n' ' ')" "start canary end "
t_eq "  the end record's canary: the counts and exit 0" \
    "$(jq -c 'select(.event.event == "end") | .event.canary' "$J")" \
    "$(jq -c 'select(.event.event == "canary") | .event |
	{exit, matched, mismatched, not_run, unanswered}' "$J")"
t_eq "  the canary record counts its lines, exit 0" \
    "$(jq -r 'select(.event.event == "canary") | .event |
	[.matched + .mismatched + .not_run + .unanswered, .mismatched,
	.exit] | @tsv' "$J")" \
    "$(printf '%s\t0\t0' "$(wc -l <"$OUT")")"
t_eq "  and has each line's verdict" \
    "$(jq -r 'select(.event.event == "canary") | .event.probes[] |
	[.probe, .tried, .expected, .got, .host, .verdict] | @tsv' "$J")" \
    "$(cat "$OUT")"
t_eq "  the start record's program is the probe program, sealed" \
    "$(jq -r 'select(.event.event == "start") | .event |
	[.program, .program_sha256] | @tsv' "$J")" \
    "$(printf '%s\t%s' "$BIN/confexec-canary" \
	"$(sha256sum "$BIN/confexec-canary" | cut -d' ' -f1)")"
t_exit 0 "  the journal verifies" "$BIN/journalchain" verify "$J"
gone() { ! kill -0 "$1" 2>/dev/null; }
ok "  the host process it probed ends with confexec" wait_for gone "$pid"

t_exit 0 "--json: one object" canary --json --
t_eq "  with every probe and the exit" \
    "$(jq -r '[(.probes | length > 10), .mismatched, .exit] | @tsv' "$OUT")" \
    "$(printf 'true\t0\t0')"
t_eq "  one line only" "$(wc -l <"$OUT")" 1

# ---- a plan that grants routes: shown granted, still a match ------------
mkdir -p "$TMP/rw"
echo keep >"$TMP/rw/mine"
t_exit 0 "--rw DIR: the rw probes are granted, exit 0" canary -- --rw "$TMP/rw"
no_mismatch
f=$TMP/rw/.borne-canary.
for p in rw-create rw-chmod rw-read rw-remove; do
	t_eq "  $p: granted (rw rule), ok" \
	    "$(line "$p" | cut -f3,4,6)" \
	    "$(printf 'granted (rw rule %s)\tok\tmatch' "$TMP/rw")"
done
t_like "  in a file of its own in DIR" "^create $f[0-9]+\$" \
    "$(field rw-create 2)"
# A setuid file beneath the rw rule, rewritten through a shared mapping:
# its privilege was stripped before the run (confexec(1), PRIVILEGED
# FILES), the host sees a plain file with the probe's bytes.
t_eq "  rw-privileged: granted, stripped before the run, ok" \
    "$(line rw-privileged | cut -f3,4,6)" \
    "$(printf 'granted (rw rule %s), its privilege stripped before the run\tok\tmatch' "$TMP/rw")"
t_like "  made setuid and setgid in DIR" \
    "^rewrite $TMP/rw/\\.borne-canary-priv\\.[0-9]+ \\(mode 6755\\) through a shared mapping\$" \
    "$(field rw-privileged 2)"
t_eq "  host side: its privilege gone, its bytes the probe's" \
    "$(field rw-privileged 5)" "mode 0755, bytes rewritten"
t_eq "  removed on the host afterwards" "$(ls -A "$TMP/rw")" mine
t_eq "  the user's file untouched" "$(cat "$TMP/rw/mine")" keep
expect write-outside "denied (landlock, mount-view)" ENOENT "file unchanged" match

# A rule path with a tab and a newline: escaped, one line per probe still.
odd="$TMP/a	b
c"
mkdir "$odd"
t_exit 0 "a rw rule whose path holds a tab and a newline: exit 0" \
    canary -- --rw "$odd"
no_mismatch
t_eq "  the path escaped in its lines" "$(field rw-create 3)" \
    "granted (rw rule $TMP/a\\x09b\\x0ac)"

# A host listener of the test's own, its connections logged.
python3 "$T_TOP/tests/egress-upstream.py" 127.0.0.1 "$TMP/up.port" \
    "$TMP/up.log" "$TMP/up.accept" >/dev/null 2>&1 &
UP=$!
at_exit "kill_ours $UP"
wait_for test -s "$TMP/up.port"
P=$(cat "$TMP/up.port")
if host_can landlock-tcp; then
	t_exit 0 "--tcp --connect-tcp P with a host listener on P: exit 0" \
	    canary -- --tcp --connect-tcp "$P"
	no_mismatch
	expect tcp-granted "granted (connect-tcp $P)" ok - match
	expect tcp-ungranted "denied (landlock-tcp)" EACCES "listener saw nothing" match
	expect udp "denied (seccomp)" EPERM - match
	# The listener logs a connection from its handler: polled.
	ok "  the test's listener took that connection" \
	    wait_for grep -q '^accepted' "$TMP/up.accept"
	t_eq "  one connection" "$(grep -c '^accepted' "$TMP/up.accept")" 1
	t_exit 0 "  a granted port with no listener: not run, exit 0" \
	    canary -- --tcp --connect-tcp 1
	t_eq "  says so" "$(line tcp-granted | cut -f3,6)" \
	    "$(printf 'not run: no host listener on 127.0.0.1:1\tnot run')"

	t_exit 0 "--egress HOST:PORT: the broker allows it, refuses another" \
	    canary -- --egress "127.0.0.1:$P"
	no_mismatch
	expect egress-listed "allowed (listed)" "http 200" - match
	expect egress-unlisted "refused (http 403: not listed)" "http 403" - match
	expect tcp-ungranted \
	    "denied (landlock-tcp, net-namespace (the egress broker's))" \
	    EACCES "listener saw nothing" match
	t_grep "  the broker said its refusal" \
	    "^confexec: egress: refused: canary\.invalid port 443" "$ERR"
else
	skip "--tcp --connect-tcp and --egress" "no landlock-tcp here"
fi

t_exit 0 "--unix: abstract names stay out of reach, exit 0" canary -- --unix
if [ "$("$HELP/landlock-abi")" -ge 6 ]; then
	expect abstract-unix "denied (landlock-scope, net-namespace)" \
	    ECONNREFUSED "listener saw nothing" match
else
	expect abstract-unix "denied (net-namespace)" ECONNREFUSED \
	    "listener saw nothing" match
fi

# ---- a daemon's socket (a stand-in listening on /run/docker.sock) ------
# In a private mount namespace with a /run of its own.
dns() {
	unshare -m --propagation private sh -c '
	mount -t tmpfs -o mode=0755 tmpfs /run || exit 124
	python3 -c "
import os, signal, socket
s = socket.socket(socket.AF_UNIX)
s.bind(\"/run/docker.sock\"); s.listen(8); os.chmod(\"/run/docker.sock\", 0o660)
print(\"up\", flush=True)
signal.pause()" >"$1" &
	i=0
	until [ -s "$1" ]; do
		i=$((i + 1)); [ $i -gt 600 ] && exit 124; sleep 0.05
	done
	shift
	"$@"; rc=$?
	kill $! 2>/dev/null
	exit $rc' sh "$TMP/dns.up" "$@"
}
rm -f "$TMP/dns.up"
t_exit 125 "--unix with docker's socket, not acknowledged: refused, 125" \
    dns sh -c '"$1" --unix -- /bin/true | "$2" --canary' sh "$PE" "$CX"
t_grep "  naming the daemon" "acknowledge with --ack-daemon docker" "$ERR"
t_eq "  no probe line" "$(cat "$OUT")" ""
rm -f "$TMP/dns.up"
t_exit 0 "--unix --ack-daemon docker: the socket is granted, exit 0" \
    dns sh -c '"$1" --unix --ack-daemon docker -- /bin/true | "$2" --canary' \
    sh "$PE" "$CX"
no_mismatch
expect daemon "denied (mount-view: no rule names it)" ENOENT - match
rm -f "$TMP/dns.up"
t_exit 0 "--unix --ack-daemon docker --ro /run: the socket is granted, exit 0" \
    dns sh -c '"$1" --unix --ack-daemon docker --ro /run -- /bin/true |
	"$2" --canary' sh "$PE" "$CX"
no_mismatch
expect daemon "granted (acknowledged: --ack-daemon docker)" ok - match
rm -f "$TMP/dns.up"
t_exit 0 "without --unix the socket is denied, exit 0" \
    dns sh -c '"$1" -- /bin/true | "$2" --canary' sh "$PE" "$CX"
expect daemon "denied (seccomp: no unix right)" EPERM - match

# ---- a uid switch: the file modes count (no capability in the run) -----
# /etc/subuid and /etc/subgid are machine-wide: edited under the lock every
# test that edits them takes (tests/t-confexec.sh), restored before it is
# released.
U=$(mktemp -d /tmp/borne-canary-uid.XXXXXX)
at_exit "rm -rf '$U'"
chmod 755 "$U"
mkdir -m 777 "$U/open"
mkdir -m 755 "$U/closed"
mkdir -m 700 "$U/priv"
mkdir -m 777 "$U/priv/inner"
chmod 777 "$U/open" "$U/priv/inner"
if subid_lock; then pass "subid lock taken"; else fail "subid lock taken"; fi
subid_add
t_exit 0 "--uid 100123: every probe matches, exit 0" canary -- --uid 100123 \
    --gid 100456 --rw "$U/open" --rw "$U/closed" --rw "$U/priv/inner"
subid_restore
subid_unlock
no_mismatch
# rwc DIR: the rw-create line of the rule DIR, fields 3 and 4.
rwc() { awk -F'\t' -v d="$1/" '$1 == "rw-create" &&
    substr($2, 8, length(d)) == d {print $3 "\t" $4}' "$OUT"; }
t_eq "  a rw rule the uid may write: granted" "$(rwc "$U/open")" \
    "$(printf 'granted (rw rule %s)\tok' "$U/open")"
t_eq "  one it may not: denied by the file modes, EACCES" "$(rwc "$U/closed")" \
    "$(printf 'denied (file modes on the path, for uid 100123)\tEACCES')"
t_eq "  one beneath a directory it may not search: denied too" \
    "$(rwc "$U/priv/inner")" \
    "$(printf 'denied (file modes on the path, for uid 100123)\tEACCES')"
t_eq "  nothing left in them" "$(find "$U" -name '.borne-canary.*')" ""
t_like "  the host process, root's: the uid is in the signal's way too" \
    "^denied \(pid-namespace(, landlock-scope)?, uid 100123\)	ESRCH	process alive, no signal	match\$" \
    "$(line signal | cut -f3-6)"
expect write-outside "denied (landlock, mount-view)" ENOENT "file unchanged" match
expect read-outside "denied (landlock, mount-view)" ENOENT - match

# ---- a caller that is not root: its own user namespace ----------------
# (The sanitized build's leak checker cannot stop the threads of a
# process in its own user namespace: off for confexec here.)
need_cmd setpriv
t_exit 0 "a caller that is not root (uid 65534, --degrade: no cgroup of its own)" \
    sh -c '"$1" --degrade -- /bin/true |
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    env ASAN_OPTIONS=detect_leaks=0 "$2" --canary --no-image-cache' \
    sh "$PE" "$CX"
no_mismatch
expect write-outside "denied (landlock, mount-view)" ENOENT "file unchanged" match
t_like "  its host process, its own uid's: denied by the pid namespace" \
    "^denied \(pid-namespace(, landlock-scope)?\)	ESRCH	process alive, no signal	match\$" \
    "$(line signal | cut -f3-6)"
t_grep "  the missing cgroup said" "^confexec: WARNING: running without cgroup" "$ERR"

# ---- degrade mode: a missing layer changes what the plan gives ----------
if host_can memory,pids; then
	t_exit 0 "--degrade with memory and pids limits the host enforces" \
	    canary -- --degrade --memory-max 16M --pids-max 16
	expect memory "killed (memory)" "signal 9" - match
	expect pids "denied (pids)" EAGAIN - match
else
	t_exit 0 "--degrade, memory and pids limits the host cannot apply: exit 0" \
	    canary -- --degrade --memory-max 16M --pids-max 16
	no_mismatch
	expect memory "granted (memory missing)" ok - match
	expect pids "granted (pids missing)" ok - match
	t_grep "  the missing layers said loudly" "^confexec: WARNING: running without memory" "$ERR"
	t_exit 125 "the same limits, strict: the boundary is refused, 125" \
	    canary -- --memory-max 16M --pids-max 16
	t_eq "  no probe line" "$(cat "$OUT")" ""
	t_grep "  refusing, naming the layer" "^confexec: refusing: .*memory" "$ERR"
fi

# A rule whose path is gone at run time refuses the ruleset (after the
# probes' host side is made: removed all the same).
mkdir "$TMP/gone"
"$PE" --ro "$TMP/gone" -- /bin/true >"$TMP/plan.gone"
rmdir "$TMP/gone"
t_exit 125 "a rule path gone at run time: refused, 125" \
    sh -c '"$1" --canary <"$2"' sh "$CX" "$TMP/plan.gone"
t_eq "  no probe line" "$(cat "$OUT")" ""
t_grep "  refusing, naming the path" "^confexec: refusing: .*$TMP/gone" "$ERR"

# The plan's limits hold the probe program too: one that cannot even map
# its stack (64 KiB of address space) ends before its first probe: the
# plan is not judged, 125, no line.
t_exit 125 "a probe program killed by the plan's limits: not judged, 125" \
    canary -- --rlimit as=64K
t_eq "  no line" "$(cat "$OUT")" ""
t_grep "  said in one line, with how it ended" \
    "^confexec: canary: the probe program ended \((signal|exit) [0-9]+\) before its first probe: the plan is not judged\$" \
    "$ERR"
t_eq "  no canary record; the end record's canary null, exit 125" \
    "$(jq -r '.event | select(.event == "canary" or .event == "end") |
	[.event, .canary, .exit] | @tsv' "$J")" "$(printf 'end\t\t125')"
# ---- a boundary weakened on purpose: caught -----------------------------
t_exit 1 "a test build without Landlock fails --canary, exit 1" canary "$WEAK" --
t_eq "  the probe that caught it: the view's root listed" \
    "$(awk -F'\t' '$6 == "MISMATCH" {print $1}' "$OUT" | tr '\n' ' ')" \
    "list-root "
expect list-root "denied (landlock)" ok - MISMATCH
expect write-outside "denied (landlock, mount-view)" ENOENT "file unchanged" match
t_grep "  stderr names the probe" \
    "^confexec: canary: list-root: list the entries of /: expected denied \(landlock\), got ok\$" "$ERR"
t_eq "  the canary record says exit 1, one mismatch" \
    "$(jq -r 'select(.event.event == "canary") | .event | [.mismatched, .exit] | @tsv' "$J")" \
    "$(printf '1\t1')"
t_eq "  the end record too" \
    "$(jq -r 'select(.event.event == "end") | .event.exit' "$J")" 1

t_exit 1 "a test build without the mount view fails --canary, exit 1" \
    canary "$HELP/confexec-weak-mountview" --
t_eq "  caught by the metadata probes outside the rules" \
    "$(awk -F'\t' '$6 == "MISMATCH" {print $1}' "$OUT" | tr '\n' ' ')" \
    "chmod-outside utimes-outside "
expect chmod-outside "denied (mount-view)" ok "mode 0644 -> 0600" MISMATCH
expect utimes-outside "denied (mount-view)" ok "mtime changed" MISMATCH
expect write-outside "denied (landlock, mount-view)" EACCES "file unchanged" match

t_exit 1 "a test build without the check of the rw trees fails --canary, exit 1" \
    canary "$HELP/confexec-weak-privcheck" -- --rw "$TMP/rw"
t_eq "  caught by rw-privileged alone" \
    "$(awk -F'\t' '$6 == "MISMATCH" {print $1}' "$OUT" | tr '\n' ' ')" \
    "rw-privileged "
t_eq "  host side: setuid, setgid and a capability kept on rewritten bytes" \
    "$(field rw-privileged 5)" "mode 6755 with a capability, bytes rewritten"
t_eq "  the file removed on the host afterwards" "$(ls -A "$TMP/rw")" mine

# ---- usage -------------------------------------------------------------
t_exit 125 "--json without --canary" sh -c '"$1" --json </dev/null' sh "$CX"
t_grep "  says so" "^confexec: --json goes with --canary" "$ERR"
t_exit 125 "--canary with --dry-run" sh -c '"$1" --canary --dry-run </dev/null' sh "$CX"

done_testing
