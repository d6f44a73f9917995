#!/bin/sh
# confexec's egress broker holds a bounded amount of kernel memory
# (confexec(1), Egress: 64 MiB for its sockets and pipes, whatever the
# payload and the destinations do).  64 CONNECT tunnels stalled both
# ways: the destination sends forever and reads nothing
# (tests/egress-upstream.py, STALL), the payload sends while it can and
# reads nothing (tests/egress-client.py stall).  The payload and the
# destination keep small buffers of their own; the queues that grow are
# the broker's.  Read from the host (tests/egress-mem.py): confexec's own
# sockets (ss -p names its pid; those from the payload in the run's
# network) and the pipes it holds both ends of.  /proc/net/sockstat is
# the whole machine's (other runs share it): said, not asserted.
. "$(dirname "$0")/lib.sh"

needs root landlock=4 jq ss nsenter
. "$T_TOP/tests/egress-lib.sh"
MEM=$T_TOP/tests/egress-mem.py
BOUND=$((64 * 1048576))	# confexec(1), Egress
N=64			# BROKER_MAXCONN: the most a payload can hold

upstream 127.0.0.1 up
UP=$(cat "$TMP/up.port" 2>/dev/null)
[ -n "$UP" ] || skip_all "the test destination did not start"

# sockstat's TCP line: "mem" is the machine's TCP memory in pages.
tcpmem() { awk '$1 == "TCP:" { for (i = 2; i < NF; i++)
	if ($i == "mem") print $(i + 1) }' /proc/net/sockstat; }
# field NAME: NAME= of the measurement in $TMP/mem.
field() { tr ' ' '\n' <"$TMP/mem" | sed -n "s/^$1=//p"; }

"$PE" --preset sys --ro "$T_TOP/tests" --rw "$IO" --timeout 300s \
	--setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
	--egress "127.0.0.1:$UP" -- "$PY" "$CLI" stall 127.0.0.1 "$UP" "$N" \
	"$IO/ready" "$IO/go" >"$TMP/plan"
m0=$(tcpmem)
"$CX" --journal "$J" <"$TMP/plan" >"$TMP/cx.out" 2>"$TMP/cx.err" &
CXPID=$!
at_exit "kill_ours $CXPID 2>/dev/null"
# The stalled state: every tunnel refused more bytes from the payload and
# has bytes from the destination waiting (the client makes ready); a
# confexec that ended is no state to wait for.
for i in $(seq 1200); do
	[ -e "$IO/ready" ] && break
	kill -0 "$CXPID" 2>/dev/null || break
	sleep 0.1
done
ok "the payload stalled $N tunnels both ways" test -e "$IO/ready"
[ -e "$IO/ready" ] || diag_file "$TMP/cx.err"
# The peak, once it no longer grows (the queues fill as the loop turns).
if "$PY" "$MEM" "$CXPID" peak >"$TMP/mem" 2>"$TMP/mem.err"; then
	pass "confexec's sockets and pipes measured from the host"
else
	fail "confexec's sockets and pipes measured from the host"
	diag_file "$TMP/mem.err"
fi
m1=$(tcpmem)
note "broker: $(cat "$TMP/mem")"
note "sockstat TCP mem: $m0 -> $m1 pages (the whole machine's)"

t_eq "$N sockets of confexec's from the payload (in the run's network)" \
	"$(field run_sockets)" "$N"
t_eq "$N sockets of confexec's to the destination (in the host's)" \
	"$(field host_sockets)" "$N"
t_eq "$((2 * N)) relay pipes, two per tunnel" "$(field pipes)" $((2 * N))
SB=$(field socket_bytes); PB=$(field pipe_bytes); TOT=$(field total)
ok "the stall is real: the sockets hold more than 64 KiB a tunnel" \
	test "${SB:-0}" -gt $((N * 65536))
ok "sockets ($SB) + pipes ($PB) = $TOT bytes, under the bound ($BOUND)" \
	test "${TOT:-$BOUND}" -le "$BOUND"
# Each socket's buffers as the kernel holds them, twice SO_RCVBUF and
# SO_SNDBUF, set by the broker and never autotuned past (confexec(1)):
# from the payload 1 MiB each at most, to the destination 8 MiB; and all
# of them, each queue taking one segment (64 KiB) more, and the pipes,
# within the bound: what they hold could never pass it, whatever moves
# next.
ok "from the payload: 2 MiB received, 2 MiB to send at most ($(field run_rb_max), $(field run_tb_max))" \
	test "$(field run_rb_max)" -le 2097152 -a "$(field run_tb_max)" -le 2097152
ok "to the destination: 16 MiB and 16 MiB at most ($(field host_rb_max), $(field host_tb_max))" \
	test "$(field host_rb_max)" -le 16777216 -a "$(field host_tb_max)" -le 16777216
BB=$(field buf_bytes)
ok "buffer sizes ($BB) + a segment a queue + pipes ($PB) within the bound" \
	test $((${BB:-$BOUND} + 4 * N * 65536 + ${PB:-0})) -le "$BOUND"

touch "$IO/go"
wait "$CXPID"
t_eq "the run ends 0" "$?" 0
t_eq "every tunnel was still open at the end" "$(cat "$TMP/cx.out")" "$N"
t_eq "the end record counts $N allowed connections" \
	"$(grep '"event":"end"' "$J" | jq -r '.event.egress.allowed')" "$N"

done_testing
