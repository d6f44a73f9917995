#!/bin/sh
# Trust handoff records (confexec(1), HANDOFF RECORDS): each connection a
# payload makes to a privileged daemon's socket is a "handoff" event
# naming the daemon as the kernel reports it, and the end record counts
# them.  The daemons here are the test's own listeners (the handoff
# helper's serve) at inventory paths, on a tmpfs over /run in a private
# mount namespace this file re-executes itself in (the host's /run is
# untouched): their pid, uid and executable are known here, and each
# writes one line per connection it accepted (the host side).
if [ -z "${BORNE_HANDOFF_NS:-}" ] && [ "$(id -u)" -eq 0 ] &&
    command -v unshare >/dev/null 2>&1; then
	BORNE_HANDOFF_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
needs root jq
[ -n "${BORNE_HANDOFF_NS:-}" ] || skip_all "needs unshare -m"
H=$HELP/handoff
[ -x "$H" ] || skip_all "no handoff helper (make helpers)"
mount -t tmpfs tmpfs /run || skip_all "cannot mount a tmpfs on /run"
mkdir -p /run/containerd "$TMP/w"
J=$TMP/j

# serve NAME TYPE PATH: a daemon of the test's own; its pid in $SP, its
# executable in $SEXE, its accepted connections in $TMP/NAME.log.
serve() {
	"$H" serve "$2" "$3" "$TMP/$1.ready" "$TMP/$1.log" &
	SP=$!
	at_exit "kill_ours $SP"
	wait_for test -e "$TMP/$1.ready" || fail "$1: the listener came up"
	SEXE=$(readlink "/proc/$SP/exe")
}
serve docker stream /run/docker.sock
DP=$SP DEXE=$SEXE
serve containerd seqpacket /run/containerd/containerd.sock
CP=$SP

# run [PLANENC-OPTION...] -- PROGRAM [ARG...]: one run, journaled in $J
# (/proc: what a sanitized helper reads at its exit; /run: the daemons'
# sockets are in the run's view only where a rule names them).
run() {
	rm -f "$J"
	"$BIN/planenc" --preset sys --unix --ack-daemon docker \
	    --ack-daemon containerd --rw "$TMP/w" --ro /run \
	    --ro /proc --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 "$@" \
	    >"$TMP/plan" &&
	"$BIN/confexec" --journal "$J" <"$TMP/plan"
}
show() { "$BIN/journalchain" show --json "$J"; }
# The handoff events, one line each: daemon pid uid exe socket type.
events() {
	show | jq -r 'select(.event.event == "handoff") | .event |
	    [.daemon, .pid, .uid, .exe, .socket, .type] | @tsv'
}
endh() { show | jq -c 'select(.event.event == "end") | .event.handoff'; }
accepted() { wc -l <"$TMP/$1.log" | tr -d ' '; }

# route DESC HOW PATH: one connection to docker's socket by that route is
# one event naming the test's daemon, counted once at the end.
route() {
	n0=$(accepted docker)
	run -- "$H" connect "$2" "$3" >"$OUT" 2>"$ERR"
	t_eq "$1: the payload connected" "$?:$(cat "$OUT")" 0:OK
	t_eq "$1: the daemon accepted one connection (host side)" \
	    "$(accepted docker)" $((n0 + 1))
	t_eq "$1: one event naming the daemon's pid, uid and executable" \
	    "$(events)" "$(printf 'docker\t%s\t0\t%s\t/run/docker.sock\tstream' \
	    "$DP" "$DEXE")"
	t_eq "$1: the end record counts it" "$(endh)" \
	    '{"connects":1,"daemons":{"docker":1},"other":0,"unlogged":0,"unresolved":0}'
}

route "the socket's own path" plain /run/docker.sock
t_eq "the payload's pid is the kernel's, not the daemon's" "$(show | jq -r \
    'select(.event.event == "handoff") | .event.payload_pid |
    (. > 0 and . != '"$DP"')')" true
t_eq "the address is the one the daemon bound" "$(show | jq -r \
    'select(.event.event == "handoff") | .event.address')" /run/docker.sock
ok "the journal verifies" "$BIN/journalchain" verify --deep "$J"

ln /run/docker.sock /run/other.sock
route "a hard link" plain /run/other.sock
ln -s /run/docker.sock "$TMP/w/link"
route "a symlink" plain "$TMP/w/link"
: >"$TMP/w/bound"
mount --bind /run/docker.sock "$TMP/w/bound"
at_exit "umount '$TMP/w/bound'"
route "a bind mount (beneath a rule: the rule's clone holds it)" plain \
    "$TMP/w/bound"
route "/proc/self/root" plain /proc/self/root/run/docker.sock
route "a forked child" fork /run/docker.sock
route "a second thread" thread /run/docker.sock

# SOCK_SEQPACKET, to another daemon of the inventory.
run -- "$H" connect seqpacket /run/containerd/containerd.sock >"$OUT" 2>"$ERR"
t_eq "seqpacket: the payload connected" "$?:$(cat "$OUT")" 0:OK
t_eq "seqpacket: one event naming containerd's listener" "$(events | cut -f1,2,6)" \
    "$(printf 'containerd\t%s\tseqpacket' "$CP")"
t_eq "seqpacket: counted as containerd's" "$(endh | jq -c .daemons)" \
    '{"containerd":1}'

# A listener of the payload's own, named like docker's: no daemon's.
run -- "$H" own "$TMP/w" >"$OUT" 2>"$ERR"
t_eq "own listener: the payload connected to itself" "$?:$(cat "$OUT")" 0:OK
t_eq "own listener: no handoff event" "$(events)" ""
t_eq "own listener: counted as another peer" "$(endh)" \
    '{"connects":1,"daemons":{},"other":1,"unlogged":0,"unresolved":0}'

# A connect the kernel refuses (a stream socket to a seqpacket listener):
# no event; counted as unresolved (never seen connected).
run -- "$H" connect plain /run/containerd/containerd.sock >"$OUT" 2>"$ERR"
t_eq "refused connect: the kernel's errno" "$(cat "$OUT")" EPROTOTYPE
t_eq "refused connect: no event, counted unresolved" "$(events)$(endh)" \
    '{"connects":1,"daemons":{},"other":0,"unlogged":0,"unresolved":1}'

n0=$(accepted docker)
# A descriptor that is no socket, or none: the kernel's errno, given by
# the supervisor without the call going on (another thread could have
# put a socket under that number meanwhile).
for how in notsock:ENOTSOCK badfd:EBADF; do
	run -- "$H" connect "${how%:*}" /run/docker.sock >"$OUT" 2>"$ERR"
	t_eq "${how%:*}: ${how#*:}, nothing connected" \
	    "$(cat "$OUT"):$(endh):$(show | jq -r 'select(.event.event == "end")
	    | .event.notify.failed')" \
	    "${how#*:}:"'{"connects":0,"daemons":{},"other":0,"unlogged":0,"unresolved":0}:1'
done
# A socket connected already (a socketpair's end): EISCONN, and the call
# cannot be told from one on another socket: unresolved.
run -- "$H" connect pair /run/docker.sock >"$OUT" 2>"$ERR"
t_eq "connected already: EISCONN, counted unresolved" "$(cat "$OUT")$(endh)" \
    'EISCONN{"connects":1,"daemons":{},"other":0,"unlogged":0,"unresolved":1}'
t_eq "connected already: the daemon saw nothing" "$(accepted docker)" "$n0"

# A flood: 300 connections, 256 events, the rest counted (not hidden).
n0=$(accepted docker)
run -- "$H" connect plain /run/docker.sock 300 >"$OUT" 2>"$ERR"
t_eq "flood: the payload connected 300 times" "$?:$(cat "$OUT")" 0:OK
t_eq "flood: the daemon accepted 300 (host side)" "$(accepted docker)" \
    $((n0 + 300))
t_eq "flood: 256 events, each naming the daemon" \
    "$(events | cut -f1,2 | sort | uniq -c | tr -s ' ')" " 256 docker	$DP"
t_eq "flood: the end record counts all 300, 44 of them unlogged" "$(endh)" \
    '{"connects":300,"daemons":{"docker":300},"other":0,"unlogged":44,"unresolved":0}'

# Another thread swapping the descriptor under the connect (dup2): the
# supervisor may read a socket the kernel did not connect.  Whatever the
# race gives, a connection the daemon accepted without its record is
# one the end record counts as unresolved, never hidden.
n0=$(accepted docker)
run -- "$H" swap /run/docker.sock 100 >"$OUT" 2>"$ERR"
t_eq "swap: the payload ran its 100 rounds" "$?:$(cat "$OUT")" 0:OK
n=$(($(accepted docker) - n0))
rec=$(endh | jq .daemons.docker//0) unres=$(endh | jq .unresolved)
note "swap: $n accepted, $rec recorded, $unres unresolved"
ok "swap: every connection accepted is recorded or counted unresolved" \
    test "$rec" -le "$n" -a $((n - rec)) -le "$unres"
t_eq "swap: each event names the daemon" "$(events | cut -f1,2 | sort -u)" \
    "$(printf 'docker\t%s' "$DP")"

# inspect (--control): the counts so far, while the run runs.
if command -v socat >/dev/null 2>&1; then
	rm -f "$J"
	"$BIN/planenc" --preset sys --unix --ack-daemon docker \
	    --ack-daemon containerd --ro /proc --ro /run --rox "$HELP" \
	    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 -- /bin/sh -c \
	    "'$H' connect plain /run/docker.sock && exec sleep 60" \
	    >"$TMP/plan"
	"$BIN/confexec" --journal "$J" --control "$TMP/ctl" <"$TMP/plan" \
	    >"$OUT" 2>"$ERR" &
	CXP=$!
	at_exit "kill_ours $CXP"
	wait_for grep -q '"event":"handoff"' "$J" ||
	    fail "inspect: the run journaled its handoff"
	t_eq "inspect: the handoff so far, nothing pending" "$(printf \
	    '{"v":1,"op":"inspect"}\n' | socat - "UNIX-CONNECT:$TMP/ctl" |
	    jq -cS .handoff)" \
	    '{"connects":1,"daemons":{"docker":1},"other":0,"pending":0,"unlogged":0,"unresolved":0}'
	printf '{"v":1,"op":"cancel"}\n' | socat - "UNIX-CONNECT:$TMP/ctl" \
	    >/dev/null
	wait "$CXP"
	t_eq "inspect: the run cancelled (129)" "$?" 129
else
	skip "inspect: the handoff so far" "needs socat"
fi

# The journal out of the payload's reach: the chain has no key, so a
# payload that may write the journal could append a handoff record of
# its own that verifies.  A rw or rwx rule reaching it (its directory,
# one above, the file, through a symlink, one to a file not made yet)
# refuses the run, naming the journal and the rule, before the payload
# runs (its mark not made).
mkdir -p "$TMP/jw"
JW=$TMP/jw/runs.jnl
ln -s "$JW" "$TMP/jlink"
ln -s jw/new.jnl "$TMP/jdang"
jrun() { # JOURNAL PLANENC-OPTION...
	_j=$1; shift
	"$BIN/planenc" --preset sys --unix --ack-daemon docker \
	    --ack-daemon containerd "$@" -- /usr/bin/touch "$TMP/jw/mark" \
	    >"$TMP/plan" && "$BIN/confexec" --journal "$_j" <"$TMP/plan"
}
for c in "$JW|rw $TMP/jw|--rw $TMP/jw|a directory it is in" \
    "$JW|rwx $TMP|--rwx $TMP|a directory it is in" \
    "$JW|rw $JW|--rw $JW|it" \
    "$TMP/jlink|rw $TMP/jw|--rw $TMP/jw|a directory it is in" \
    "$TMP/jdang|rw $TMP/jw|--rw $TMP/jw|a directory it is in"; do
	IFS='|' read -r j rule opt what <<EOF2
$c
EOF2
	rm -f "$TMP/jw/new.jnl"
	: >"$JW"
	t_exit 125 "journal $j, $rule: refused" jrun "$j" $opt
	t_grep "  naming the journal and the rule" "^confexec: refusing: journal \
$j: the payload may write $what \\(rule $rule\\) and could forge or cut its \
records" "$ERR"
	t_eq "  the payload never ran (host side)" \
	    "$(ls "$TMP/jw/mark" 2>/dev/null)" ""
	t_eq "  the journal: the refusal's start and end, verified" \
	    "$("$BIN/journalchain" verify --deep "$j" >/dev/null &&
	    jq -c '.event | [.event, .exit]' "$j" | tr -d '\n')" \
	    '["start",null]["end",125]'
done
rm -f "$TMP/jlink" "$TMP/jdang"
t_exit 0 "the same plan, the journal elsewhere: the payload runs" \
    jrun "$J" --rw "$TMP/jw"
t_eq "  its mark made (host side)" "$(ls "$TMP/jw/mark" 2>/dev/null)" \
    "$TMP/jw/mark"

# A socket the caller connected to a daemon before the run, handed to it
# (a kept descriptor): no connect of the payload's, so no handoff record.
# Strict mode refuses it unless the daemon is acknowledged, with or
# without AF_UNIX; the start record's warnings name the daemon as the
# kernel reports it.
serve other stream "$TMP/other.sock"
kept() { # SOCKET PLANENC-OPTION...
	_s=$1; shift
	rm -f "$J" "$TMP/w/kept"
	"$BIN/planenc" --preset sys --keep-fd 5 --rw "$TMP/w" "$@" -- \
	    /usr/bin/touch "$TMP/w/kept" >"$TMP/plan" &&
	"$H" hold "$_s" 5 "$BIN/confexec" --journal "$J" <"$TMP/plan"
}
kwarn() {
	show | jq -r 'select(.event.event == "start") | .event.warnings[] |
	    select(startswith("kept fd 5 is connected"))'
}
n0=$(accepted docker)
t_exit 125 "kept fd connected to docker, not acknowledged: refused" \
    kept /run/docker.sock
t_grep "  naming the fd, the daemon's socket, pid, uid and the flag" \
    "^confexec: refusing: kept fd 5 is connected to the docker socket \
/run/docker.sock \\(pid $DP, uid 0\\): .*--ack-daemon docker" "$ERR"
t_eq "  the payload never ran (host side)" "$(ls "$TMP/w/kept" 2>/dev/null)" ""
t_eq "  the daemon accepted the caller's one connection (host side)" \
    "$(accepted docker)" $((n0 + 1))
t_exit 0 "acknowledged: runs" kept /run/docker.sock --ack-daemon docker
t_eq "  the start record names the daemon's pid, uid and executable" \
    "$(kwarn)" "kept fd 5 is connected to the docker socket \
/run/docker.sock (pid $DP, uid 0, $DEXE): the payload's requests on it are \
not recorded"
t_grep "  and so does standard error" "^confexec: WARNING: kept fd 5 is \
connected to the docker socket" "$ERR"
t_exit 0 "degrade, not acknowledged: runs" kept /run/docker.sock --degrade
t_eq "  said as not acknowledged" "$(kwarn | sed 's/.*), //')" \
    "not acknowledged: the payload's requests on it are not recorded"
t_exit 0 "a kept socket to a listener of no daemon: runs" kept \
    "$TMP/other.sock"
t_eq "  nothing said" "$(kwarn)$(cat "$ERR")" ""
t_eq "  the payload ran (host side)" "$(ls "$TMP/w/kept")" "$TMP/w/kept"

# A plan without AF_UNIX: no connect is notified, nothing recorded.
rm -f "$J"
"$BIN/planenc" --preset sys --rw "$TMP/w" --ro /proc \
    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 -- "$H" connect plain \
    /run/docker.sock >"$TMP/plan" &&
    "$BIN/confexec" --journal "$J" <"$TMP/plan" >"$OUT" 2>"$ERR"
t_eq "no --unix: the socket is refused (EPERM)" "$(cat "$OUT")" EPERM
t_eq "no --unix: no handoff object, no connect notified" \
    "$(show | jq -c 'select(.event.event == "end") | .event |
    [.handoff, .notify.observed]')" '[null,"0"]'

# Without a seccomp listener (confexec inside confexec, whose filter
# refuses one): strict refuses, degrade says the records are missing.
# The outer run still records its payload's connections.
nested() {
	"$BIN/planenc" --preset sys --unix --ack-daemon docker \
	    --ack-daemon containerd \
	    --ro /proc --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 "$@" -- \
	    "$H" connect plain /run/docker.sock >"$TMP/inner" &&
	run --rox "$BIN" --ro "$HELP" --prompt-file "$TMP/inner" -- "$BIN/confexec" \
	    --no-image-cache --journal "$TMP/w/inner.j"
}
rm -f "$TMP/w/inner.j"
nested --degrade >"$OUT" 2>"$ERR"
t_eq "nested, degrade: runs" "$?:$(cat "$OUT")" 0:OK
t_grep "saying no handoff is recorded" \
    "^confexec: WARNING: no seccomp listener: the payload's connections to privileged daemons' sockets are not recorded" \
    "$ERR"
t_eq "the inner journal's start record says it too" "$("$BIN/journalchain" \
    show --json "$TMP/w/inner.j" | jq -r 'select(.event.event == "start") |
    .event.warnings[] | select(test("not recorded")) | "said"')" said
t_eq "the inner end record has no handoff object" "$("$BIN/journalchain" \
    show --json "$TMP/w/inner.j" | jq -c 'select(.event.event == "end") |
    .event.handoff')" null
t_eq "the outer run recorded the connection" "$(events | cut -f1,2)" \
    "$(printf 'docker\t%s' "$DP")"
nested >"$OUT" 2>"$ERR"
t_eq "nested, strict: refused" "$?" 125
t_grep "naming the listener" "seccomp-listener" "$ERR"
done_testing
