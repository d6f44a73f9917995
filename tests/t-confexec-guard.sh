#!/bin/sh
# confexec's egress guard as the host is at each connection, the
# unspecified addresses, and names resolved for a confexec that is not
# root (confexec(1), EGRESS).  The host gains an address during the run
# (an interface of this test's own, removed at exit) with a listener on
# it: a listed name resolving to it is refused, and the listener sees
# nothing.  Names are the test's own: a private mount namespace where
# /etc/hosts is the test's, as in t-confexec-egress.sh.
. "$(dirname "$0")/lib.sh"

needs root landlock=4 jq ip unshare setpriv
. "$T_TOP/tests/egress-lib.sh"
chmod 755 "$TMP"

lines() { wc -l <"$1" | tr -d ' '; }
events() { jq -c ".event | select(.event == \"egress\") | $1" "$J" \
	2>/dev/null; }

# The addresses the host gains: public ones (the guard's ranges let them
# by), from AS112's blocks (192.175.48.0/24, 2001:4:112::/48: never a
# destination of this machine's), on an interface named after this
# test's pid.  Two concurrent runs may pick the same IPv4 address: each
# on its own interface, which the other's removal leaves.  The IPv6 ones
# are this test's pid's own; L6 is one the host loses.
IF=bgg$$
A4=192.175.48.$(($$ % 250 + 2))
if [ $(($$ >> 16)) -eq 0 ]; then PIDX=$(printf '%x' $$)
else PIDX=$(printf '%x:%x' $(($$ >> 16)) $(($$ & 65535))); fi
A6=2001:4:112::$PIDX
L6=2001:4:112:1::$PIDX
ip link add "$IF" type dummy 2>/dev/null ||
	ip link add "$IF" type veth peer name "${IF}p" 2>/dev/null ||
	skip_all "cannot make a network interface (dummy or veth)"
at_exit "ip link del $IF 2>/dev/null"
ip link set "$IF" up && { ! ip link show "${IF}p" >/dev/null 2>&1 ||
	ip link set "${IF}p" up; } || skip_all "cannot bring $IF up"
case $(ip route get "$A4" 2>&1) in
local*) skip_all "$A4 is this host's already" ;;
esac

upstream "$A4" g4 freebind
upstream "$A6" g6 freebind
upstream 127.0.0.1 up
upstream 0.0.0.0 any
G4=$(cat "$TMP/g4.port")
G6=$(cat "$TMP/g6.port")
UP=$(cat "$TMP/up.port")
ANY=$(cat "$TMP/any.port")
[ -n "$G4" ] && [ -n "$G6" ] && [ -n "$UP" ] && [ -n "$ANY" ] ||
	skip_all "the test destinations did not start"

cat /etc/hosts >"$TMP/hosts"
cat >>"$TMP/hosts" <<EOF
$A4 gained.borne.test
$A6 gained6.borne.test
$L6 lost6.borne.test
0.0.0.0 zero.borne.test
:: zero6.borne.test
::ffff:0.0.0.0 zerom.borne.test
EOF
chmod 644 "$TMP/hosts"

# cxh [--as-nobody] PLANENC-ARGS...: one run with the test's names,
# journal $J (root only); the plan in $TMP/plan.
cxh() {
	as=
	if [ "$1" = --as-nobody ]; then
		as="setpriv --reuid=65534 --regid=65534 --clear-groups"
		shift
		# shellcheck disable=SC2086
		"$PE" --degrade $BASEP "$@" >"$TMP/plan" || return 124
		chmod 644 "$TMP/plan"
		unshare -m sh -c 'mount --bind "$1" /etc/hosts &&
		    exec env ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
		    $2 "$3" <"$4"' sh "$TMP/hosts" "$as" "$CX" "$TMP/plan"
		return
	fi
	rm -f "$J"
	# shellcheck disable=SC2086
	"$PE" $BASEP "$@" >"$TMP/plan" || return 124
	unshare -m sh -c 'mount --bind "$1" /etc/hosts && exec "$2" --journal "$3" <"$4"' \
	    sh "$TMP/hosts" "$CX" "$J" "$TMP/plan"
}

# ---- an address the host gains during the run ---------------------------
# The run starts (the broker is up, its network made), then the host
# gains A4 and A6, then the payload asks for the names that resolve to
# them.  Read once at start, the host's addresses did not have them: the
# broker connected (200) to the host's own listeners.
rm -f "$IO/go" "$J"
"$PE" $BASEP --egress "gained.borne.test:$G4" \
	--egress "gained6.borne.test:$G6" -- /bin/sh -c \
	"i=0; while [ ! -e $IO/go ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i+1)); done
	 $PY $CLI status http://gained.borne.test:$G4/
	 $PY $CLI status http://gained6.borne.test:$G6/" >"$TMP/g.plan"
unshare -m sh -c 'mount --bind "$1" /etc/hosts && exec "$2" --journal "$3" <"$4"' \
	sh "$TMP/hosts" "$CX" "$J" "$TMP/g.plan" >"$TMP/g.out" 2>"$TMP/g.err" &
GPID=$!
wait_for grep -q '"event":"start"' "$J"
t_grep "the run started before the host gained the addresses" \
	'"event":"start"' "$J"
ip addr add "$A4/32" dev "$IF" && ip addr add "$A6/128" dev "$IF" nodad
# An IPv6 address's local route comes a moment later (the kernel's
# address work queue), even without duplicate detection: polled for.
is_local() { ip $1 route get "$2" 2>&1 | grep -q '^local '; }
wait_for is_local -4 "$A4"
wait_for is_local -6 "$A6"
ip route get "$A4" >"$TMP/r4" 2>&1
ip -6 route get "$A6" >"$TMP/r6" 2>&1
t_grep "the host has $A4 now (a local route)" '^local ' "$TMP/r4"
t_grep "and $A6" '^local ' "$TMP/r6"
touch "$IO/go"
wait "$GPID"
t_eq "the run ends 0" "$?" 0
t_eq "the payload got 403 twice" "$(grep -c '^403$' "$TMP/g.out")" 2
t_grep "the reason names $A4 as this host's" \
	"^confexec egress: gained\\.borne\\.test resolves only to addresses refused unless listed as IP literals: $(printf '%s' "$A4" | sed 's/\./\\./g') \\(this host's address\\)$" \
	"$TMP/g.out"
t_grep "and $A6" \
	"^confexec egress: gained6\\.borne\\.test resolves only to .*: $A6 \\(this host's address\\)$" \
	"$TMP/g.out"
t_eq "two events: refused, 403, no address reached" \
	"$(events '[.verdict,.status,.address]' | sort -u)" '["refused",403,null]'
t_eq "host side: the listener on $A4 accepted nothing" "$(lines "$TMP/g4.acc")" 0
t_eq "host side: the listener on $A6 accepted nothing" "$(lines "$TMP/g6.acc")" 0
[ -s "$TMP/g.err" ] && diag_file "$TMP/g.err"

# ---- an address the host loses during the run ----------------------------
# The host has L6 when the run starts, then loses it (and routes it
# nowhere: unreachable, so that nothing leaves the machine).  Judged as
# the host is at the connection, L6 is no longer its own: the connect is
# tried, and fails as the route says (502).  Read once at start, it was
# refused as the host's (403).
ip addr add "$L6/128" dev "$IF" nodad
rm -f "$IO/go" "$J"
"$PE" $BASEP --egress "lost6.borne.test:$G6" -- /bin/sh -c \
	"i=0; while [ ! -e $IO/go ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i+1)); done
	 $PY $CLI status http://lost6.borne.test:$G6/" >"$TMP/l.plan"
unshare -m sh -c 'mount --bind "$1" /etc/hosts && exec "$2" --journal "$3" <"$4"' \
	sh "$TMP/hosts" "$CX" "$J" "$TMP/l.plan" >"$TMP/l.out" 2>"$TMP/l.err" &
LPID=$!
wait_for grep -q '"event":"start"' "$J"
t_grep "the run started while the host had $L6" '"event":"start"' "$J"
ip addr del "$L6/128" dev "$IF" &&
	ip -6 route add unreachable "$L6/128" && at_exit "ip -6 route del unreachable $L6/128 2>/dev/null"
ip -6 route get "$L6" >"$TMP/rl" 2>&1
t_nogrep "the host has lost it (no local route)" '^local ' "$TMP/rl"
touch "$IO/go"
wait "$LPID"
t_eq "the run ends 0" "$?" 0
t_eq "the payload got 502, not 403" "$(head -n 1 "$TMP/l.out")" 502
# EHOSTUNREACH, in either libc's words (glibc, musl).
t_grep "the connect was tried, and failed as the route says" \
	"^confexec egress: connect $L6 port $G6: (No route to host|Host is unreachable)$" \
	"$TMP/l.out"
t_eq "the event: failed, 502" "$(events '[.verdict,.status]')" '["failed",502]'
[ -s "$TMP/l.err" ] && diag_file "$TMP/l.err"

# The same listeners, listed as IP literals: reached.  The refusals above
# were the guard's, not a listener out of reach.
t_exit 0 "$A4 listed as an IP literal: allowed" \
	cxh --egress "$A4:$G4" -- "$PY" "$CLI" status "http://$A4:$G4/"
t_grep "200" '^200$' "$OUT"
t_eq "host side: that listener saw the connection" "$(lines "$TMP/g4.acc")" 1
t_exit 0 "and [$A6] listed: allowed" \
	cxh --egress "[$A6]:$G6" -- "$PY" "$CLI" status "http://[$A6]:$G6/"
t_grep "200" '^200$' "$OUT"

# ---- the unspecified addresses ------------------------------------------
# A connect(2) to 0.0.0.0, :: or ::ffff:0.0.0.0 is one to this host.  A
# hand-made plan listing one (planenc refuses to write it) is refused
# before anything runs; the host's listener on 0.0.0.0 sees nothing.
"$PE" $BASEP --egress "127.0.0.1:$ANY" -- "$PY" "$CLI" status \
	"http://0.0.0.0:$ANY/" >"$TMP/u.plan"
for h in 0.0.0.0 :: ::ffff:0.0.0.0; do
	sed "s/^egress 127\\.0\\.0\\.1 $ANY\$/egress $h $ANY/" "$TMP/u.plan" \
		>"$TMP/uh.plan"
	t_eq "the hand-made plan lists $h" \
		"$(grep -a -c "^egress $h $ANY\$" "$TMP/uh.plan")" 1
	rm -f "$J"
	t_exit 125 "confexec refuses a plan listing $h" \
		"$CX" --journal "$J" <"$TMP/uh.plan"
	t_grep "  naming the line and why" \
		"egress $h $ANY: an unspecified address is not a destination" "$ERR"
	t_eq "  the payload never ran (no start record)" \
		"$(cat "$J" 2>/dev/null | grep -c '"event":"start"')" 0
done
t_eq "host side: the listener on 0.0.0.0 accepted nothing" \
	"$(lines "$TMP/any.acc")" 0
# A name resolving to one is refused, with 127.0.0.1 listed or not.
t_exit 0 "names resolving to 0.0.0.0, :: and ::ffff:0.0.0.0" \
	cxh --egress "zero.borne.test:$ANY" --egress "zero6.borne.test:$ANY" \
	--egress "zerom.borne.test:$ANY" --egress "127.0.0.1:$ANY" -- \
	/bin/sh -c "for n in zero zero6 zerom; do
	    $PY $CLI status http://\$n.borne.test:$ANY/; done"
t_eq "  each refused: 403" "$(grep -c '^403$' "$OUT")" 3
t_eq "  each named unspecified" "$(grep -c ': \(0\.0\.0\.0\|::\|::ffff:0\.0\.0\.0\) (unspecified)$' "$OUT")" 3
t_eq "host side: the listener on 0.0.0.0 accepted nothing" \
	"$(lines "$TMP/any.acc")" 0

# ---- not root: names resolved all the same ------------------------------
# Not root, confexec enters a user namespace and stays in the run's pid
# namespace: its children there see getppid() == 0.  The resolver used
# to take that for a dead parent and end (502, "the resolver ended").
n0=$(lines "$TMP/up.log")
t_exit 0 "not root (uid 65534): a listed name, 127.0.0.1 listed" \
	cxh --as-nobody --egress "localhost:$UP" --egress "127.0.0.1:$UP" -- \
	"$PY" "$CLI" status "http://localhost:$UP/"
t_eq "  relayed: 200" "$(cat "$OUT")" 200
[ "$(cat "$OUT")" = 200 ] || diag_file "$ERR"
t_eq "host side: the destination saw the request" \
	"$(lines "$TMP/up.log")" $((n0 + 1))
t_exit 0 "not root: a name of the test's own, twice in one run" \
	cxh --as-nobody --egress "gained.borne.test:$G4" \
	--egress "127.0.0.1:$UP" -- /bin/sh -c \
	"$PY $CLI status http://gained.borne.test:$G4/; $PY $CLI status http://gained.borne.test:$G4/"
t_eq "  refused twice: the host's address, asked from the user namespace" \
	"$(grep -c "^confexec egress: gained\\.borne\\.test resolves only to .* (this host's address)$" "$OUT")" 2
[ "$(grep -c '^403$' "$OUT")" = 2 ] || diag_file "$OUT"
t_eq "host side: the listener on $A4 saw only the literal's connection" \
	"$(lines "$TMP/g4.acc")" 1

done_testing
