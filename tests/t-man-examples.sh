#!/bin/sh
# man pages: every EXAMPLES code block of every page renders as a code
# block (never text that scdoc joins into one line) and runs, on fixtures,
# with the outcome the page promises; where that outcome depends on what
# the host can enforce, the expectation comes from cgprobe.  The blocks are
# extracted from the scdoc sources (tests/man-examples.sh), named by their
# first "# " line, and run with fixture paths substituted for the page's;
# an example that cannot run here would be skipped by name, loudly, and its
# page would say why (none is).  The whole file runs in a private mount
# namespace: --guard mounts and the overlay on /usr/local/bin (where the
# pages' stand-in programs live) vanish with it.
if [ -z "${MX_UNSHARED:-}" ] && [ "$(id -u)" -eq 0 ]; then
	MX_UNSHARED=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/man-examples.sh"
needs root scdoc man jq socat getcap setcap

# ---- the extractor itself, on a page written the old (wrong) way ----
cat >"$TMP/bad.1.scd" <<'PAGE'
bad(1)

# EXAMPLES

Indented text is one paragraph to scdoc:

	first command
	second command

A block with an escaped backslash and no name:

```
printf '%s\\n' a |
	cat
```

A continuation written with one backslash, which scdoc drops:

```
echo a \
	| cat
```

# SEE ALSO
PAGE
t_eq "extractor: two code blocks found" "$(man_examples "$TMP/bad.1.scd" "$TMP/bad")" "2"
t_eq "extractor: indented text outside a block is flagged" \
	"$(cat "$TMP/bad/unfenced")" "$(printf '\tfirst command\n\tsecond command')"
t_eq "extractor: scdoc escapes undone, unnamed block named by number" \
	"$(sh "$TMP/bad/1.sh") $(cat "$TMP/bad/1.name")" "a example 1"
t_eq "extractor: a backslash ending a line is lost, as scdoc loses it" \
	"$(cat "$TMP/bad/2.sh")" "$(printf 'echo a \n\t| cat')"
t_exit 2 "extractor: so the example is the syntax error a reader would get" \
	sh "$TMP/bad/2.sh"
man_rendered "$TMP/bad.1.scd" "$TMP/bad.txt"
t_grep "render: the indented lines were joined (what the check must catch)" \
	"^first command second command$" "$TMP/bad.txt"
printf 'first command\nsecond command\n' >"$TMP/bad/9.sh"
if man_example_rendered "$TMP/bad" 9 "$TMP/bad.txt" >/dev/null; then
	fail "render: joined lines are not a code block"
else
	pass "render: joined lines are not a code block"
fi


# ---- the driver ----
# page_start PAGE: PAGE (e.g. cgprobe.1) extracted into $D and rendered,
# with a fresh working directory $W where its examples run, in order.
# page_examples FUNC SED: for each example, the render check, the script
# with SED applied written to $W/.ex.sh, then "FUNC NAME", which runs it
# (run STATUS) and checks its outcome.
TOTAL=0
SUMMARY=
DONE=
page_start() {
	PG=$1
	PGN="${1%.*}(${1##*.})"
	PAGE=$T_TOP/man/$1.scd
	D=$TMP/ex-$1
	W=$TMP/w-$1
	rm -rf "$W" && mkdir -p "$W"
	N=$(man_examples "$PAGE" "$D") || N=0
	ok "$PGN: has examples ($N)" test "$N" -ge 1
	t_eq "$PGN: no indented example outside a code block" "$(cat "$D/unfenced")" ""
	man_rendered "$PAGE" "$TMP/$PG.txt"
	RAN=0
}
page_examples() {
	ex_i=1
	while [ "$ex_i" -le "$N" ]; do
		NAME=$(cat "$D/$ex_i.name")
		ok "$PGN '$NAME': rendered as a code block" \
		    man_example_rendered "$D" "$ex_i" "$TMP/$PG.txt"
		EX_SUBST=$2	# for an example run twice
		man_example_script "$D" "$ex_i" "$2" >"$W/.ex.sh"
		"$1" "$NAME"
		ex_i=$((ex_i + 1))
	done
	t_eq "$PGN: every example ran" "$RAN" "$N"
	TOTAL=$((TOTAL + RAN))
	SUMMARY="$SUMMARY $PGN $RAN,"
	DONE="$DONE $PG "
}
# The example, in $W, with the environment changes given (NAME=VALUE...).
ex_sh() (cd "$W" && exec env "$@" sh ./.ex.sh)
# run STATUS [NAME=VALUE...]: run the example, expecting STATUS.
run() {
	ex_want=$1
	shift
	t_exit "$ex_want" "$PGN '$NAME': runs, exit $ex_want" ex_sh "$@"
	RAN=$((RAN + 1))
}
unexpected() { fail "$PGN '$NAME': no expected outcome in tests/t-man-examples.sh"; }

# What the host can enforce, from cgprobe: can MECHANISM[,MECHANISM...].
can() { "$BIN/cgprobe" --require "$1" 2>/dev/null; }
# What every confexec run needs, whatever the plan: the layers confexec(1)
# never drops (Mode selection).
BASE=cgroup2,cgroup-kill,clone-into-cgroup,landlock,seccomp,seccomp-kill-process,no-new-privs,execveat,pidfd
# cx_want [EXTRA]: the status of a strict confexec run whose plan also
# needs EXTRA: 0 when the host can enforce it all, else 125 (a refusal).
cx_want() {
	if can "$BASE${1:+,$1}"; then echo 0; else echo 125; fi
}
note "confexec can run a plain plan here: $(cx_want | sed 's/^0$/yes/; s/^125$/no (125)/')"

# Stand-ins for the programs the pages name (/usr/bin/tool, agent) live in
# an overlay on /usr/local/bin, in this file's mount namespace only: under
# /usr, so the pages' --rox /usr rules cover them as they would a real
# install.  They are copies of system programs or scripts run by /bin/sh:
# confexec runs no #! script from its sealed image, and a sanitized test
# helper would need /proc, which the pages' plans do not grant.
# An overlay keeps what is installed there visible (scdoc or jq may be).
SBIN=/usr/local/bin
mkdir -p "$TMP/sbin"
mount -t tmpfs -o mode=755 tmpfs "$TMP/sbin" && mkdir "$TMP/sbin/up" "$TMP/sbin/work" &&
    mount -t overlay overlay \
	-o "lowerdir=$SBIN,upperdir=$TMP/sbin/up,workdir=$TMP/sbin/work" "$SBIN" ||
    skip_all "cannot mount an overlay over $SBIN"
at_exit "umount '$SBIN'; umount -l '$TMP/sbin' 2>/dev/null"
# "docker inspect NAME" is answered from $TMP/inspect-NAME.json.
mkdir -p "$TMP/shim"
cat >"$TMP/shim/docker" <<EOF
#!/bin/sh
[ \$# -eq 2 ] && [ "\$1" = inspect ] && [ -f "$TMP/inspect-\$2.json" ] ||
    { echo "docker stand-in: only 'docker inspect' of a saved container" >&2; exit 125; }
exec cat "$TMP/inspect-\$2.json"
EOF
chmod 755 "$TMP/shim/docker"
SHIMPATH=$TMP/shim:$PATH
# mkbuild DIR: DIR/build, whose default target writes build/out and says
# "make ran", and whose test target lists its descriptors.
mkbuild() {
	mkdir -p "$1/build"
	printf 'all:\n\t@echo built >out\n\t@echo make ran\ntest:\n\t@%s\n' \
	    "$HELP/fd-list" >"$1/build/Makefile"
	rm -f "$1/build/out"
}
# ns_run CMD...: CMD with a private, empty /run (no daemon socket there).
ns_run() {
	unshare -m --propagation private sh -c \
	    'mount -t tmpfs -o mode=0755 tmpfs /run && exec "$@"' sh "$@"
}
echo secret >"$TMP/leak"

# ---- cgprobe(1) ----
ex_cgprobe() {
	case $1 in
	"choose a mode")
		echo 'echo "mode=$mode"' >>"$W/.ex.sh"
		expect=strict
		for m in landlock seccomp cgroup-kill memory; do
			can "$m" || expect=degrade
		done
		run 0
		t_eq "  the mode is what the host can enforce ($expect)" \
		    "$(tail -n 1 "$OUT")" "mode=$expect"
		if [ "$expect" = degrade ]; then
			t_grep "  and cgprobe says what is missing" \
			    "^cgprobe: [a-z-]+: not enforceable: " "$ERR"
		else
			t_eq "  and nothing is missing" "$(cat "$ERR")" ""
		fi
		;;
	"landlock ABI and daemons")
		abi=$("$HELP/landlock-abi")
		run 0
		t_eq "  the ABI first, as the kernel says" "$(head -n 1 "$OUT")" \
		    "landlock.abi=$abi"
		t_eq "  then daemon keys only" \
		    "$(sed '1d;$d' "$OUT" | grep -c -v '^daemon\.')" 0
		t_eq "  then the ABI from the JSON" "$(tail -n 1 "$OUT")" "$abi"
		;;
	"no reachable daemon")
		# With an empty /run the answer is cgprobe's own inventory
		# (a daemon elsewhere, under /var/lib say, is still found);
		# with a docker socket root can reach, it is no.
		n=$(ns_run env -u XDG_RUNTIME_DIR "$BIN/cgprobe" |
		    grep -c '^daemon\..* connectable$')
		expect=0
		[ "$n" -eq 0 ] || expect=1
		t_exit "$expect" "$PGN '$1': runs, exit $expect ($n reachable)" \
		    ns_run env -u XDG_RUNTIME_DIR sh -c 'cd "$1" && exec sh ./.ex.sh' sh "$W"
		t_exit 1 "  with a docker socket root can reach: exit 1" \
		    ns_run "$HELP/unix-listen" /run/docker.sock 0600 \
		    env -u XDG_RUNTIME_DIR sh -c 'cd "$1" && exec sh ./.ex.sh' sh "$W"
		RAN=$((RAN + 1))
		;;
	*) unexpected ;;
	esac
}
page_start cgprobe.1
page_examples ex_cgprobe ""

# ---- confexec(1) ----
# /srv/data, /tmp/out and /var/log/borne are fixtures in $W; /usr/bin/tool
# is a script under /usr/local/bin, run as "/bin/sh SCRIPT" (its digest is
# /bin/sh's), that copies its input, says what it could not write, or
# echoes its prompt.
ex_confexec() {
	case $1 in
	"a tool with its data, one port and a journal")
		expect=$(cx_want landlock-tcp)
		run "$expect"
		if [ "$expect" -eq 0 ]; then
			t_eq "  the tool read its data and wrote /tmp/out" \
			    "$(cat "$W/tmp/out/copy")" "input data"
			t_grep "  with the environment the plan set" "^LANG=C\.UTF-8$" "$OUT"
			t_grep "  and could not write its input" "^input is read-only$" "$OUT"
			t_exit 0 "  the journal verifies" \
			    "$BIN/journalchain" verify "$W/log/runs.jnl"
		else
			t_eq "  refused: the tool did not run" \
			    "$(ls "$W/tmp/out")" ""
		fi
		;;
	"a dry run")
		expect=$(cx_want memory,pids)
		run "$expect"
		t_eq "  would_run says the same" "$(jq .would_run "$OUT")" \
		    "$([ "$expect" -eq 0 ] && echo true || echo false)"
		;;
	"a pinned program and a prompt")
		expect=$(cx_want)
		run "$expect"
		[ "$expect" -eq 0 ] &&
		    t_eq "  the pinned tool got the prompt" "$(cat "$OUT")" \
			"prompt: summarise the data"
		;;
	"run only what the registry admits")
		expect=$(cx_want)
		run "$expect"
		t_eq "  the registry lists the interpreter that runs the tool" \
		    "$(cut -d' ' -f1 "$W/etc/borne/programs")" \
		    "$(sha256sum /bin/sh | cut -d' ' -f1)"
		[ "$expect" -eq 0 ] &&
		    t_eq "  the admitted tool ran" "$(cat "$OUT")" "prompt: "
		;;
	"fetch one listed host through the egress broker")
		# The listed host is a destination on this host's loopback,
		# listed as its IP literal (the guard refuses loopback
		# otherwise), reached over plain HTTP.
		expect=$(cx_want landlock-tcp)
		run "$expect"
		if [ "$expect" -eq 0 ]; then
			t_grep "  curl got 200 through the broker" '^200$' "$OUT"
			t_grep "  the journal has its connection, allowed" \
			    '^\["127\.0\.0\.1","allowed"\]$' "$OUT"
		fi
		;;
	"check a plan with canaries before trusting it")
		rm -f "$W/tmp/out/copy"
		expect=$(cx_want landlock-tcp)
		[ "$expect" -eq 0 ] || expect=1	# the script's own exit 1
		run "$expect"
		if [ "$expect" -eq 0 ]; then
			t_nogrep "  no canary line is a mismatch" 'MISMATCH' \
			    "$W/canary.txt"
			t_grep "  the write outside the rules was denied" \
			    '^write-outside	.*	denied \(landlock, mount-view\)	ENOENT	file unchanged	match$' \
			    "$W/canary.txt"
			t_grep "  a file of its own made in the rw rule" \
			    "^rw-create	create $W/tmp/out/\\.borne-canary\\.[0-9]+	.*	ok	-	match\$" \
			    "$W/canary.txt"
			t_eq "  then the tool ran" "$(cat "$W/tmp/out/copy")" \
			    "input data"
			t_eq "  and nothing of the canary is left in the rw rule" \
			    "$(ls -A "$W/tmp/out")" copy
		fi
		;;
	"which daemon took over")
		# Docker's stand-in: the handoff helper listening at
		# /run/docker.sock, on a tmpfs over /run in a mount namespace
		# of the example's own; the client: socat, reading from it.
		sed -i "s|/usr/bin/docker version|/usr/bin/socat -u UNIX-CONNECT:/run/docker.sock STDOUT|" \
		    "$W/.ex.sh"
		mv "$W/.ex.sh" "$W/.ex-docker.sh"
		cat >"$W/.ex-ns.sh" <<-EOF
		mount -t tmpfs tmpfs /run || exit 99
		"$HELP/handoff" serve stream /run/docker.sock "$W/.ho.ready" \
		    "$W/.ho.log" &
		echo \$! >"$W/.ho.pid"
		i=0
		until [ -e "$W/.ho.ready" ] || [ \$i -gt 600 ]; do
			sleep 0.05; i=\$((i + 1))
		done
		sh ./.ex-docker.sh; rc=\$?
		kill \$(cat "$W/.ho.pid")
		exit \$rc
		EOF
		echo 'exec unshare -m sh ./.ex-ns.sh' >"$W/.ex.sh"
		expect=$(cx_want)
		run "$expect"
		if [ "$expect" -eq 0 ]; then
			t_grep "  the event names the stand-in's pid, uid 0 and executable" \
			    "^\[\"docker\",$(cat "$W/.ho.pid"),0,\"$HELP/handoff\"\]\$" \
			    "$OUT"
			t_grep "  the end record counts it" \
			    '^\{"connects":1,"daemons":\{"docker":1\},"other":0,"unlogged":0,"unresolved":0\}$' \
			    "$OUT"
			t_eq "  the stand-in accepted one connection (host side)" \
			    "$(wc -l <"$W/.ho.log" | tr -d ' ')" 1
		fi
		;;
	"supervise a run through its control socket")
		# The same script, with a payload that outlives the
		# supervisor's deadline, made 1 s and polled every 0.2 s.
		sed -i "s|-- /bin/sh $SBIN/tool |-- /bin/sleep 60 |;
		    s|< 600000|< 1000|; s|sleep 10\$|sleep 0.2|" "$W/.ex.sh"
		expect=$(cx_want)
		[ "$expect" -eq 0 ] && expect=129
		run "$expect"
		if [ "$expect" -eq 129 ]; then
			t_grep "  the run was inspected while it ran" \
			    '^\{"elapsed_ms":[0-9]+,"cpu_usec":' "$OUT"
			t_grep "  the cancel was delivered" '"result":"delivered"' "$OUT"
		fi
		# And a payload that ends before the deadline: the loop ends
		# with the socket (with jq 1.6's -e, an empty answer was true
		# and the loop went on for ever), the script with the run's 0.
		man_example_script "$D" "$ex_i" "$EX_SUBST" >"$W/.ex.sh"
		sed -i "s|-- /bin/sh $SBIN/tool |-- /bin/sleep 0.5 |;
		    s|sleep 10\$|sleep 0.2|" "$W/.ex.sh"
		t_exit "$(cx_want)" "$PGN '$NAME': a run that ends first ends the script" \
		    timeout 60 sh -c 'cd "$1" && exec sh ./.ex.sh' sh "$W"
		t_nogrep "  no error once the socket is gone" . "$ERR"
		;;
	*) unexpected ;;
	esac
}
page_start confexec.1
# The journal's directory ($W/log) is made by the example itself.
mkdir -p "$W/srv/data" "$W/tmp/out"
echo "input data" >"$W/srv/data/input"
echo "summarise the data" >"$W/task.txt"
cat >"$SBIN/tool" <<EOF
#!/bin/sh
# stand-in for /usr/bin/tool
if [ "\${1:-}" = --input ]; then
	cat "\$2"/* >"$W/tmp/out/copy" && echo "LANG=\$LANG"
	{ true >"\$2/written"; } 2>/dev/null || echo "input is read-only"
else
	printf 'prompt: %s\n' "\$(cat)"
fi
EOF
chmod 755 "$SBIN/tool"
# The egress example's destination.
python3 "$T_TOP/tests/egress-upstream.py" 127.0.0.1 "$TMP/mxup.port" \
    "$TMP/mxup.log" >/dev/null 2>&1 &
at_exit "kill_ours $! 2>/dev/null"
wait_for test -s "$TMP/mxup.port"
MXUP=$(cat "$TMP/mxup.port" 2>/dev/null)
mkdir -p "$W/etc/borne"
page_examples ex_confexec "s|pkgs.example:443|127.0.0.1:$MXUP|;
    s|/etc/borne|$W/etc/borne|g;
    s|https://pkgs.example/simple/|http://127.0.0.1:$MXUP/|;
    s|sha256sum /usr/bin/tool|sha256sum /bin/sh|;
    s|-- /usr/bin/tool|-- /bin/sh $SBIN/tool|; s|/srv/data|$W/srv/data|g;
    s|/tmp/out|$W/tmp/out|g; s|/var/log/borne|$W/log|g"

# ---- confexec-control(5) ----
# /run/me/ctl is the control socket of a run started here, whose payload
# exits once the example's client is connected ($W/gate/go, made when
# the host lists a connection of that confexec's socket; 30 s at most):
# the follow ends with the end record.
ex_confexec_control() {
	case $1 in
	"follow a run's log")
		expect=$(cx_want)
		if [ "$expect" -ne 0 ]; then
			skip "$PGN '$1'" "confexec cannot run a plain plan here"
			RAN=$((RAN + 1))
			return
		fi
		mkdir -p "$W/gate"
		"$BIN/planenc" --preset sys --ro "$W/gate" -- /bin/sh -c '
		    i=0; while [ ! -e "$0/go" ] && [ $i -lt 600 ]; do
			sleep 0.05; i=$((i + 1)); done' "$W/gate" |
		    "$BIN/confexec" --control "$W/ctl" --journal "$W/j" \
		    >/dev/null 2>&1 &
		cc_pid=$!
		wait_for -t 10 test -S "$W/ctl"
		(
			# (the socket is bound as /proc/self/fd/N/ctl)
			wait_for sh -c 'ss -xpH | grep -F "pid=$1," |
			    grep -q "^u_str *ESTAB .*/ctl "' sh "$cc_pid"
			: >"$W/gate/go"
		) &
		gate_pid=$!
		run 0
		wait "$cc_pid"
		t_eq "  the run ended by itself" "$?" 0
		wait "$gate_pid"
		cmp -s "$OUT" "$W/j" && pass "  the records followed are the journal's, byte for byte" ||
		    fail "  the records followed are the journal's, byte for byte"
		t_grep "  through the end record" '"event":"end"' "$OUT"
		;;
	*) unexpected ;;
	esac
}
page_start confexec-control.5
page_examples ex_confexec_control "s|/run/me/ctl|$W/ctl|g"

# ---- fdclose-verify(1) ----
ex_fdclose_verify() {
	exec 7<"$TMP/leak"
	case $1 in
	"a build step with nothing but stdio")
		(cd "$W" && make -s -C build test) >"$TMP/direct" 2>&1
		t_grep "  without fdclose-verify the step sees fd 7 (a leak is seen)" \
		    "^7 .*/leak$" "$TMP/direct"
		run 0
		t_eq "  the step sees only 0, 1 and 2" \
		    "$(grep -E '^[0-9]+ ' "$OUT" | cut -d' ' -f1 | tr '\n' ' ')" "0 1 2 "
		;;
	"keep descriptor 3 for a report")
		rm -f "$W/status.txt"
		run 0
		t_eq "  the report is in status.txt, and fd 7 was closed" \
		    "$(cat "$W/status.txt")" "report: done"
		;;
	"a chain of chain-loaders")
		run 0
		t_grep "  the job runs with no_new_privs" "^NoNewPrivs:[[:space:]]+1$" "$OUT"
		t_eq "  with PATH (and the shell's PWD) only" "$(sed -n 2p "$OUT")" \
		    "PATH PWD "
		t_nogrep "  and without the leaked fd 7" "fd 7 leaked" "$OUT"
		;;
	*) unexpected ;;
	esac
	exec 7<&-
}
page_start fdclose-verify.1
mkbuild "$W"
cat >"$W/report-to-fd3" <<'EOF'
#!/bin/sh
# stand-in: a report on fd 3, and whether fd 7 leaked in
if [ -e /proc/self/fd/7 ]; then echo "fd 7 leaked"; fi >&3
echo "report: done" >&3
EOF
cat >"$W/job" <<'EOF'
#!/bin/sh
# stand-in: what a job inherits
grep '^NoNewPrivs:' /proc/self/status
env | cut -d= -f1 | sort | tr '\n' ' '
echo
if [ -e /proc/self/fd/7 ]; then echo "fd 7 leaked"; fi
EOF
chmod 755 "$W/report-to-fd3" "$W/job"
page_examples ex_fdclose_verify "s|PATH=/usr/local/bin:/usr/bin|PATH=$BIN:/usr/bin|"

# ---- journalchain(1) ----
ex_journalchain_1() {
	case $1 in
	"record, write down the head, verify")
		run 0
		line=$(cat "$W/runs.jnl")
		t_eq "  the head written down is the record's" "$(cat "$W/safe/runs.head")" \
		    "1:$(printf '%s\n' "$line" | sha256sum | cut -d' ' -f1)"
		t_grep "  verify --from accepts it" "^1 records?, head 1:[0-9a-f]{64}$" "$OUT"
		t_eq "  show prints the start event's time" "$(tail -n 1 "$OUT")" \
		    "$(printf '%s\n' "$line" | jq -r .time)"
		;;
	"read a journal of runs, then one run whole")
		run 0
		if [ "$(cx_want)" != 0 ]; then
			note "confexec cannot run a plain plan here: no run to read"
			return
		fi
		t_eq "  the first run printed hello" "$(sed -n 1p "$OUT")" hello
		t_grep "  a line for its start: run 1, the preset by name" \
		    '^1  [0-9T:-]{19}Z  1  start    /bin/echo hello +  mode=strict preset=sys rules=[0-9]+ layers=[0-9]+ degraded=0$' "$OUT"
		t_grep "  its end: exit 0 and the counts" \
		    '^2  [0-9T:-]{19}Z  1  end      /bin/echo hello +  exit=0 denials=0 egress=0/0 handoffs=0$' "$OUT"
		t_grep "  the second run's end: exit 2" \
		    '^4  [0-9T:-]{19}Z  3  end      /bin/ls /nonexistent +  exit=2 ' "$OUT"
		t_eq "  --run 3 --json: that run's two records whole" \
		    "$(sed -n '6,$p' "$OUT" | tr '\n' ' ')" '["start",null] ["end",2] '
		;;
	"sign a checkpoint and check it")
		run 0
		t_eq "  the signer key has mode 600" "$(stat -c %a "$W/ci.key")" 600
		t_eq "  the checkpoint: origin, 2 records" \
		    "$(sed -n 1,2p "$W/ci.ckpt" | tr '\n' ' ')" \
		    "example.org/ci-runner-7/runs 2 "
		t_grep "  verified" "^checkpoint 2 [A-Za-z0-9+/]{43}= verified: example\.org/ci-runner-7/runs, 2 records$" "$OUT"
		;;
	"a witness checks that the journal only grew")
		run 0
		t_eq "  consistent from 1 to 2" "$(cat "$OUT")" \
		    "consistent: example.org/ci-runner-7/log 1 -> 2"
		t_eq "  a proof of one hash" "$(wc -l <"$W/proof" | tr -d ' ')" 2
		;;
	"serve a run, read it as JSON and as AG-UI events")
		# Two free ports for the page's 18082 and 18083.
		set -- $(python3 -c 'import socket
for _ in range(2):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		sed -i "s/18082/$1/g; s/18083/$2/g" "$W/.ex.sh"
		run 0
		t_eq "  the run listed, ok" "$(sed -n 1p "$OUT")" "$(printf '1\tok')"
		t_eq "  streamed from RUN_STARTED to RUN_FINISHED" \
		    "$(sed 1d "$OUT" | tr '\n' ' ')" \
		    "RUN_STARTED STATE_SNAPSHOT RAW STATE_DELTA STEP_STARTED STEP_FINISHED TOOL_CALL_START TOOL_CALL_ARGS RAW STATE_DELTA TOOL_CALL_END TOOL_CALL_RESULT STATE_DELTA RUN_FINISHED "
		;;
	*) unexpected ;;
	esac
}
page_start journalchain.1
mkdir -p "$W/safe"
page_examples ex_journalchain_1 "s|/safe/place|$W/safe|g"

# ---- journalchain(5) ----
# DESCRIPTION's sample journal is itself a valid journal.
man_examples "$T_TOP/man/journalchain.5.scd" "$TMP/jc5" DESCRIPTION >/dev/null
sample=$(grep -l '^{"seq":1,' "$TMP"/jc5/*.sh | head -n 1)
t_exit 0 "journalchain(5): the sample journal verifies (--deep)" \
    "$BIN/journalchain" verify --deep "${sample:-/nonexistent}"
t_grep "  two records" "^2 records, head 2:" "$OUT"
# CHECKPOINTS' samples: the verifier key (1), the signer key (2), the
# checkpoints of the sample journal's first record (3) and of both (4),
# the proof between them (5), the state kept with the second (6), all
# real.
C5=$TMP/jc5c
t_eq "journalchain(5): CHECKPOINTS has its six samples" \
    "$(man_examples "$T_TOP/man/journalchain.5.scd" "$C5" CHECKPOINTS)" 6
head -n 1 "${sample:-/nonexistent}" >"$C5/first.jnl"
t_exit 0 "  the checkpoint of both records verifies with the sample key" \
    "$BIN/journalchain" verify --checkpoint "$C5/4.sh" --pub "$C5/1.sh" "${sample:-/nonexistent}"
t_exit 0 "  the checkpoint of the first, against the first record" \
    "$BIN/journalchain" verify --checkpoint "$C5/3.sh" --pub "$C5/1.sh" "$C5/first.jnl"
t_exit 0 "  the sample proof takes the first to the second" \
    "$BIN/journalchain" consistent --pub "$C5/1.sh" --old "$C5/3.sh" --proof "$C5/5.sh" "$C5/4.sh"
t_exit 0 "  prove --from 1 prints the sample proof" \
    "$BIN/journalchain" prove --from 1 "${sample:-/nonexistent}"
cp "$OUT" "$C5/proof"
ok "  byte for byte" cmp "$C5/proof" "$C5/5.sh"
cp "$C5/2.sh" "$C5/k.key" && chmod 600 "$C5/k.key"
t_exit 0 "  the sample signer key signs a checkpoint of the sample journal" \
    "$BIN/journalchain" checkpoint --key "$C5/k.key" "${sample:-/nonexistent}"
cp "$OUT" "$C5/ckpt"
ok "  which is the sample checkpoint, byte for byte (Ed25519 is deterministic)" \
    cmp "$C5/ckpt" "$C5/4.sh"
t_exit 0 "  checkpoint --state of the sample journal" \
    "$BIN/journalchain" checkpoint --key "$C5/k.key" --state "$C5/state" "${sample:-/nonexistent}"
t_eq "  keeps the sample state" "$(head -n 4 "$C5/state")" "$(cat "$C5/6.sh")"
ex_journalchain_5() {
	case $1 in
	"append two events and look")
		run 0
		t_eq "  two records" "$(wc -l <"$OUT" | tr -d ' ')" 2
		t_eq "  the first is the sample's but for its time" \
		    "$(sed -n 1p "$OUT" | sed 's/"time":"[0-9]*"/"time":"T"/')" \
		    "$(sed -n 1p "$sample" | sed 's/"time":"[0-9]*"/"time":"T"/')"
		t_eq "  the second has the sample's shape and event" \
		    "$(sed -n 2p "$OUT" | sed 's/"prev":"[0-9a-f]*","time":"[0-9]*"/P/')" \
		    "$(sed -n 2p "$sample" | sed 's/"prev":"[0-9a-f]*","time":"[0-9]*"/P/')"
		;;
	"check a link by hand")
		run 0
		t_eq "  the two hashes are the same" "$(sed -n 1p "$OUT" | cut -d' ' -f1)" \
		    "$(sed -n 2p "$OUT")"
		t_grep "  a SHA-256" "^[0-9a-f]{64}$" "$OUT"
		;;
	*) unexpected ;;
	esac
}
page_start journalchain.5
page_examples ex_journalchain_5 ""

# ---- launchplan(5) ----
# The examples print the samples STRUCTURE and ESCAPING show.
man_examples "$T_TOP/man/launchplan.5.scd" "$TMP/lp-s" STRUCTURE >/dev/null
man_examples "$T_TOP/man/launchplan.5.scd" "$TMP/lp-e" ESCAPING >/dev/null
ex_launchplan() {
	case $1 in
	"a plan with a prompt")
		run 0
		t_eq "  prints the plan STRUCTURE shows" "$(cat "$OUT")" \
		    "$(cat "$TMP/lp-s/1.sh")"
		;;
	"escaped values")
		run 0
		k=0
		while IFS= read -r l; do
			k=$((k + 1))
			t_eq "  prints line $k of the sample ESCAPING shows" \
			    "$(grep -c -Fx -- "$l" "$OUT")" 1
		done <"$TMP/lp-e/1.sh"
		ok "  (a sample of two lines)" test "$k" -eq 2
		;;
	"a path that is not UTF-8, in JSON")
		run 0
		t_eq "  an escaped object" "$(cat "$OUT")" '[{"escaped":"/srv/caf\\351"}]'
		;;
	*) unexpected ;;
	esac
}
page_start launchplan.5
page_examples ex_launchplan ""
t_exit 0 "launchplan(5): STRUCTURE's pinned script sample is a valid plan" \
    "$BIN/planenc" --check <"$TMP/lp-s/2.sh"

# ---- planenc(1) ----
ex_planenc() {
	case $1 in
	"a confined build")
		expect=$(cx_want)
		mkbuild "$W"
		run "$expect"
		if [ "$expect" -eq 0 ]; then
			t_eq "  make built in build/" "$(cat "$W/build/out")" built
			t_exit 0 "  the journal verifies" "$BIN/journalchain" verify "$W/runs.jnl"
		else
			t_eq "  refused: make did not run" "$(ls "$W/build/out" 2>/dev/null)" ""
		fi
		;;
	"a build with memory and process limits")
		expect=$(cx_want memory,pids)
		mkbuild "$W"
		run "$expect"
		if [ "$expect" -eq 0 ]; then
			t_eq "  make built in build/" "$(cat "$W/build/out")" built
		else
			t_eq "  refused: make did not run" "$(ls "$W/build/out" 2>/dev/null)" ""
			can "$BASE" && t_grep "  and confexec says which limit it cannot enforce" \
			    "^confexec: .*(memory|pids)" "$ERR"
		fi
		;;
	"a prompt for an agent")
		expect=$(cx_want landlock-tcp)
		# A version manager's shim ahead on the caller's PATH (a
		# script in the home directory): the plan's PATH is used.
		mkdir -p "$W/.shims"
		printf '#!/bin/sh\nexec agent "$@"\n' >"$W/.shims/agent"
		chmod 755 "$W/.shims/agent"
		run "$expect" PATH="$W/.shims:$BIN:$SBIN:/usr/bin:/bin" HOME="$W"
		t_grep "  the decoded plan runs the agent, not the shim" "^\"$SBIN/agent\"$" "$OUT"
		t_grep "  with the prompt's length" "^$(wc -c <"$W/task.txt" | tr -d ' ')$" "$OUT"
		[ "$expect" -eq 0 ] &&
		    t_eq "  the agent got the prompt" "$(tail -n 1 "$OUT")" \
			"summarise the build log"
		;;
	"a plan that may reach the package index only")
		run 0
		t_eq "  the destinations, sorted by host" "$(cat "$OUT")" \
		    '[{"host":"*.files.example","port":443},{"host":"pkgs.example","port":443}]'
		;;
	"check a plan")
		run 0
		t_eq "  the plan is valid" "$(cat "$OUT")" valid
		;;
	"scripts: their interpreter runs them")
		if ! command -v pytest >/dev/null 2>&1 ||
		    ! command -v npm >/dev/null 2>&1; then
			man_example_skip "$NAME" "needs pytest and npm"
			return
		fi
		expect=$(cx_want)
		printf 'def test_it():\n    assert True\n' >"$W/test_ex.py"
		run "$expect"
		if [ "$expect" -eq 0 ]; then
			t_grep "  pytest ran the test" "^1 passed" "$OUT"
			t_eq "  npm printed its version" "$(tail -n 1 "$OUT")" \
			    "$(npm --version)"
		fi
		;;
	"a pinned script")
		printf '#!/usr/bin/python3\nprint("checked")\n' >"$W/check.py"
		run 0
		t_eq "  the plan runs python3 with the script pinned" \
		    "$(tr -d '\n' <"$OUT")" \
		    "\"/usr/bin/python3\"{\"arg\":1,\"sha256\":\"$(sha256sum "$W/check.py" | cut -c1-64)\"}"
		;;
	*) unexpected ;;
	esac
}
page_start planenc.1
echo "summarise the build log" >"$W/task.txt"
# The agent: a copy of cat(1), which prints the prompt it reads.
cp /usr/bin/cat "$SBIN/agent"
page_examples ex_planenc ""
# ---- suidstrip(1) ----
# A fixture tree in place of /srv/sbx/docker, on a tmpfs of our own;
# "docker inspect build1" prints one bind mount under the root and one
# outside it.
F=$TMP/fx
mkdir -p "$F"
mount -t tmpfs -o mode=755 tmpfs "$F" || skip_all "cannot mount tmpfs"
at_exit "umount -l '$F' 2>/dev/null"
R=$F/srv/sbx/docker
plant() {
	umount "$R" 2>/dev/null
	rm -rf "$F/srv" "$F/elsewhere"
	mkdir -p "$R/w/sub" "$F/elsewhere"
	: >"$R/w/su"; chmod 4755 "$R/w/su"
	: >"$R/w/sub/sg"; chmod 2755 "$R/w/sub/sg"
	: >"$R/w/cap"; setcap cap_net_raw+ep "$R/w/cap"
	: >"$R/w/plain"; chmod 644 "$R/w/plain"
	: >"$F/elsewhere/x"; chmod 4755 "$F/elsewhere/x"
}
cat >"$TMP/inspect-build1.json" <<EOF
[{"Name":"/build1","Mounts":[
  {"Type":"bind","Source":"$R/w","Destination":"/w","RW":true},
  {"Type":"bind","Source":"$F/elsewhere","Destination":"/e","RW":true}]}]
EOF
note "suidstrip(1), borne(7): 'docker inspect' is answered by a stand-in (saved JSON)"
mode() { stat -c %a "$R/w/$1"; }
srun() { run "$1" PATH="$SHIMPATH"; }
ex_suidstrip() {
	plant
	case $1 in
	"teardown: strip a stopped container's mounts under the sandbox root")
		srun 0
		t_eq "  the bind mount under the root is stripped" \
			"$(mode su) $(mode sub/sg) $(getcap -r "$R/w")" "755 755 "
		t_eq "  the one outside is left alone" "$(stat -c %a "$F/elsewhere/x")" "4755"
		t_grep "  and reported" "elsewhere: skipped: outside every --within root" "$ERR"
		;;
	"preview: what would change, changing nothing")
		srun 0
		t_grep "  lists the setuid file" "^would strip: $R/w/su: mode 04755 -> 00755$" "$OUT"
		t_grep "  lists the capability" "^would strip: $R/w/cap: .*capability cap_net_raw=ep" "$OUT"
		t_eq "  changes nothing" "$(mode su) $(mode sub/sg) $(getcap "$R/w/cap" | wc -l)" \
			"4755 2755 1"
		;;
	"chown: give root-owned files back, strip, list what was chowned")
		srun 0
		t_eq "  prints only chowned records, one per root-owned entry" \
			"$(jq -r .action "$OUT" | sort | uniq -c | tr -s ' ')" " 6 chowned"
		t_eq "  the files are the user's" "$(stat -c %u:%g "$R/w/su" "$R/w/sub/sg" | sort -u)" \
			"1000:1000"
		t_eq "  and stripped" "$(mode su) $(mode sub/sg) $(getcap -r "$R/w")" "755 755 "
		;;
	"guard and audit: nosuid,nodev on the root, then list what is privileged")
		srun 1
		t_grep "  the guard is in place" "^guard: $R: in place \(nosuid,nodev\)$" "$OUT"
		t_grep "  the audit lists the setuid file" "^privileged: $R/w/su: mode 04755$" "$OUT"
		t_eq "  findmnt agrees: nosuid and nodev" \
			"$(findmnt -n -o OPTIONS "$R" | tr ',' '\n' | grep -c -E '^(nosuid|nodev)$')" "2"
		t_eq "  the audit changed nothing" "$(mode su) $(mode sub/sg)" "4755 2755"
		umount "$R"
		;;
	"teardown script: a target already removed is not a failure")
		srun 0
		t_eq "  the existing target is stripped" "$(mode su) $(getcap -r "$R/w")" "755 "
		t_grep "  the removed one gets a one-line note" \
			"^suidstrip: $R/removed: skipped: missing \(not recreated\)$" "$ERR"
		;;
	"manual recipe: setuid/setgid bits with find, capabilities listed by getcap")
		srun 0
		t_eq "  find stripped the bits" "$(mode su) $(mode sub/sg)" "755 755"
		t_grep "  getcap lists the capability left for setcap -r" "^$R/w/cap (= )?cap_net_raw[=+]ep" "$OUT"
		;;
	*)
		unexpected
		;;
	esac
}
page_start suidstrip.1
page_examples ex_suidstrip "s|/srv/sbx/docker|$R|g"

# ---- borne(7) ----
# /srv/sandboxes is a fixture root on the tmpfs; "docker inspect C" prints
# one bind mount under it and one outside.
S=$F/srv/sandboxes
cat >"$TMP/inspect-C.json" <<EOF
[{"Name":"/C","Mounts":[
  {"Type":"bind","Source":"$S/c1","Destination":"/w","RW":true},
  {"Type":"bind","Source":"$F/outside","Destination":"/o","RW":true}]}]
EOF
ex_borne() {
	case $1 in
	"decide the mode")
		echo 'echo "mode=$mode"' >>"$W/.ex.sh"
		expect=strict
		for m in landlock seccomp cgroup-kill; do
			can "$m" || expect=degrade
		done
		run 0
		t_eq "  the mode is what the host can enforce ($expect)" \
		    "$(tail -n 1 "$OUT")" "mode=$expect"
		;;
	"plan, run, record")
		expect=$(cx_want)
		mkbuild "$W"
		rm -f "$W/runs.jnl"
		if [ "$expect" -eq 0 ]; then
			run 0
			t_eq "  make built in build/" "$(cat "$W/build/out")" built
			t_grep "  the journal verifies" "^[0-9]+ records?, head " "$OUT"
		else
			ex_sh >"$OUT" 2>"$ERR"
			RAN=$((RAN + 1))
			t_eq "  refused: make did not run" "$(ls "$W/build/out" 2>/dev/null)" ""
			t_grep "  and confexec says why" "^confexec: " "$ERR"
		fi
		;;
	"nothing inherited but stdio")
		printf '#!/bin/sh\nexec %s\n' "$HELP/fd-list" >"$W/step.sh"
		chmod 755 "$W/step.sh"
		exec 7<"$TMP/leak"
		run 0
		exec 7<&-
		t_eq "  the step sees only 0, 1 and 2" \
		    "$(cut -d' ' -f1 "$OUT" | tr '\n' ' ')" "0 1 2 "
		;;
	"strip after a container")
		rm -rf "$S" "$F/outside"
		mkdir -p "$S/c1" "$F/outside"
		: >"$S/c1/su"; chmod 4755 "$S/c1/su"
		: >"$F/outside/su"; chmod 4755 "$F/outside/su"
		run 0 PATH="$SHIMPATH"
		t_eq "  the mount under the root is stripped, the other is not" \
		    "$(stat -c %a "$S/c1/su") $(stat -c %a "$F/outside/su")" "755 4755"
		;;
	*) unexpected ;;
	esac
}
page_start borne.7
page_examples ex_borne "s|/srv/sandboxes|$S|g"

# Every page of man/ had its examples run.
for p in "$T_TOP"/man/*.scd; do
	p=$(basename "$p" .scd)
	case $DONE in
	*" $p "*) pass "${p%.*}(${p##*.}): examples run" ;;
	*) fail "${p%.*}(${p##*.}): examples run (no section of this file runs them)" ;;
	esac
done
note "man page examples executed:$SUMMARY total $TOTAL"

done_testing
