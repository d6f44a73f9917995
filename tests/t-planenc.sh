#!/bin/sh
# planenc: round trips of every field, canonical re-encoding, one test per
# refusal, and hostile input (every prefix, padding, bit flips, oversize).
# FLIP_STRIDE (default 4): flip a bit in every FLIP_STRIDE-th byte of the
# mid-sized plan (1: every byte; about 4 processes per flip).
. "$(dirname "$0")/lib.sh"
need_cmd jq

P=planenc

# refuse DESC FIELD-RE CMD...: CMD exits 2 and stderr names the field.
refuse() {
	rdesc=$1; re=$2; shift 2
	t_exit 2 "refused: $rdesc" "$@"
	t_grep "refusal names the field: $rdesc" "$re" "$ERR"
}

# jq_is DESC FILTER WANT: the JSON in $TMP/j.json gives WANT.
jq_is() { t_eq "json: $1" "$(jq -c "$2" "$TMP/j.json")" "$3"; }

# ---- round trip of every field ----
NL=$(printf 'line\nbreak')
HI=$(printf 'bytes\377\376end')
SP=' lead and trail '
printf 'the prompt\000with NUL\n\377' >"$TMP/prompt"
HEX=$(sha256sum "$TMP/prompt" | cut -c1-64)
export BORNE_T_PASS='passed value'
t_exit 0 "plan with every field encodes" $P \
	--ro /usr --ro / --rw "$TMP/w" --rox /bin --rw "/tmp/new
line" --unix --tcp --connect-tcp 443 --connect-tcp 80 --bind-tcp 8080 \
	--env BORNE_T_PASS --setenv "ODD=$HI" --setenv 'EMPTY=' \
	--rlimit nofile=1024:4096 --rlimit core=0 --rlimit as=inf \
	--memory-max 512M --pids-max 64 --cpu-max 50000/200000 \
	--timeout 2m --uid 1000 --gid 1001 --sha256 "$HEX" \
	--prompt-file "$TMP/prompt" --ack-daemon podman --ack-daemon docker \
	--keep-fd 9 --keep-fd 3 --degrade \
	-- /usr/bin/env "" "two words" "$NL" "$HI" "$SP" 'back\slash'
cp "$OUT" "$TMP/full.plan"
t_grep "magic line first" '^borne-plan 1$' "$TMP/full.plan"
t_eq "first line is the magic" "$(head -n 1 "$TMP/full.plan")" "borne-plan 1"
t_grep "empty arg is the bare key" '^arg$' "$TMP/full.plan"
t_grep "newline escaped" '^arg line\\012break$' "$TMP/full.plan"
t_grep "non-UTF-8 escaped" '^arg bytes\\377\\376end$' "$TMP/full.plan"
t_grep "edge spaces escaped" '^arg \\040lead and trail\\040$' "$TMP/full.plan"
t_grep "backslash escaped" '^arg back\\134slash$' "$TMP/full.plan"
t_grep "ports sorted" '^connect-tcp 80$' "$TMP/full.plan"
t_grep "prompt length line" '^prompt 21$' "$TMP/full.plan"

t_exit 0 "--check accepts it" $P --check <"$TMP/full.plan"
t_eq "--check prints nothing" "$(wc -c <"$OUT" | tr -d ' ')" 0
t_exit 0 "--reencode accepts it" $P --reencode <"$TMP/full.plan"
cp "$OUT" "$TMP/re.plan"
ok "--reencode gives identical bytes" cmp "$TMP/re.plan" "$TMP/full.plan"
t_exit 0 "--decode accepts it" $P --decode <"$TMP/full.plan"
cp "$OUT" "$TMP/j.json"
ok "--decode output is one JSON object" jq -e 'type == "object"' "$TMP/j.json"
t_eq "--decode output is one line" "$(wc -l <"$TMP/j.json" | tr -d ' ')" 1
jq_is program .program '"/usr/bin/env"'
jq_is "argv count" '.argv | length' 7
jq_is "empty arg" '.argv[1]' '""'
jq_is "arg with space" '.argv[2]' '"two words"'
jq_is "arg with newline" '.argv[3]' '"line\nbreak"'
jq_is "non-UTF-8 arg losslessly escaped" '.argv[4]' \
	'{"escaped":"bytes\\377\\376end"}'
jq_is "edge spaces kept" '.argv[5]' '" lead and trail "'
jq_is "backslash kept" '.argv[6]' '"back\\slash"'
jq_is sha256 .sha256 "\"$HEX\""
jq_is ro '.ro' '["/","/usr"]'
jq_is "rw (sorted by bytes)" '.rw' "[\"$TMP/w\",\"/tmp/new\\nline\"]"
jq_is rox '.rox' '["/bin"]'
jq_is socket '.socket' '["unix","tcp"]'
jq_is connect-tcp '.connect_tcp' '[80,443]'
jq_is bind-tcp '.bind_tcp' '[8080]'
jq_is "env passed through, resolved now" '.env.BORNE_T_PASS' \
	'"passed value"'
jq_is "env non-UTF-8 value" '.env.ODD' '{"escaped":"bytes\\377\\376end"}'
jq_is "env empty value" '.env.EMPTY' '""'
jq_is rlimit '.rlimit' \
	'{"core":{"soft":0,"hard":0},"nofile":{"soft":1024,"hard":4096},"as":{"soft":"inf","hard":"inf"}}'
jq_is memory-max .memory_max 536870912
jq_is pids-max .pids_max 64
jq_is cpu-max .cpu_max '{"quota_us":50000,"period_us":200000}'
jq_is "timeout 2m" .timeout_ms 120000
jq_is uid .uid 1000
jq_is gid .gid 1001
jq_is ack-daemon .ack_daemon '["docker","podman"]'
jq_is keep-fd .keep_fd '[3,9]'
jq_is mode .mode '"degrade"'
jq_is "prompt as length and digest" .prompt "{\"length\":21,\"sha256\":\"$HEX\"}"
jq_is "plan digest" .plan_sha256 \
	"\"$(sha256sum "$TMP/full.plan" | cut -c1-64)\""
t_nogrep "prompt bytes not in JSON" 'the prompt' "$TMP/j.json"
# The prompt is the exact bytes after the end line.
n=$(wc -c <"$TMP/full.plan")
tail -c 21 "$TMP/full.plan" >"$TMP/tail"
ok "prompt bytes follow the end line" cmp "$TMP/tail" "$TMP/prompt"
t_eq "text part ends with end" \
	"$(head -c $((n - 21)) "$TMP/full.plan" | tail -n 1)" end

t_exit 0 "defaults: minimal plan" $P -- /bin/true
cp "$OUT" "$TMP/min.out"
printf 'borne-plan 1\nprogram /bin/true\narg /bin/true\nmode strict\nend\n' \
	>"$TMP/min.plan"
ok "minimal plan is exactly the documented text" \
	cmp "$TMP/min.out" "$TMP/min.plan"
t_exit 0 "--argv0" $P --argv0 make -- /usr/bin/make -C build
t_grep "argv0 replaces argv[0]" '^arg make$' "$OUT"
t_grep "program stays the path" '^program /usr/bin/make$' "$OUT"
refuse "--argv0 twice" '^planenc: --argv0 b: given twice on the command line; it takes one value$' \
	$P --argv0 a --argv0 b -- /bin/true
# Every option that takes one value is refused a second time, never
# last-wins; the refusal names the option, its second value and where
# the first came from (a profile line or the command line).
for ov in 'timeout 20s 5m' 'memory-max 64M 128M' 'pids-max 10 20' \
    'cpu-max 10000 20000' 'uid 1001 1002' 'gid 1001 1002' \
    "sha256 $(printf '%064d' 0) $(printf '%064d' 1)" \
    "prompt-file /dev/null /etc/hostname"; do
	set -- $ov
	refuse "--$1 twice" "^planenc: --$1 $3: given twice on the command line; it takes one value\$" \
		$P --"$1" "$2" --"$1" "$3" -- /bin/true
	t_eq "--$1 twice: one line on stderr" "$(wc -l <"$ERR")" 1
	ok "--$1 twice: nothing on stdout" test ! -s "$OUT"
done
printf -- '--timeout 5m\n' >"$TMP/once.prof"
refuse "--timeout in a profile and on the command line" \
	"^planenc: --timeout 1h: given twice \\(first in $TMP/once.prof:1, again on the command line\\); it takes one value\$" \
	$P --profile "$TMP/once.prof" --timeout 1h -- /bin/true
refuse "--timeout on the command line, then in a profile" \
	"^planenc: $TMP/once.prof:1: --timeout 5m: given twice \\(first on the command line, again in $TMP/once.prof:1\\)" \
	$P --timeout 1h --profile "$TMP/once.prof" -- /bin/true
refuse "--strict then --degrade" \
	'^planenc: --degrade: --strict was given \(on the command line\); the mode is one choice$' \
	$P --strict --degrade -- /bin/true
printf -- '--degrade\n' >"$TMP/deg.prof"
refuse "--degrade in a profile, --strict on the command line" \
	"^planenc: --strict: --degrade was given \\(in $TMP/deg.prof:1\\); the mode is one choice\$" \
	$P --profile "$TMP/deg.prof" --strict -- /bin/true
t_exit 0 "the same mode and preset repeated" \
	$P --degrade --profile "$TMP/deg.prof" --preset sys --preset sys -- /bin/true
t_grep "the repeated mode kept" '^mode degrade$' "$OUT"
t_exit 0 "timeout 500ms" $P --timeout 500ms -- /bin/true
t_grep "500ms in the plan" '^timeout-ms 500$' "$OUT"
t_exit 0 "timeout bare seconds" $P --timeout 7 -- /bin/true
t_grep "7 s in the plan" '^timeout-ms 7000$' "$OUT"
t_exit 0 "cpu-max default period" $P --cpu-max 20000 -- /bin/true
t_grep "period 100000" '^cpu-max 20000 100000$' "$OUT"
t_exit 0 "sha256 in upper case" $P --sha256 \
	"$(echo "$HEX" | tr a-f A-F)" -- /bin/true
t_grep "digest written lower case" "^sha256 $HEX\$" "$OUT"

# ---- modes and usage ----
if command -v script >/dev/null 2>&1; then
	t_exit 2 "refuses to write a plan to a terminal" \
		script -qec "$BIN/planenc -- /bin/true" /dev/null
	t_grep "says why" 'terminal' "$OUT"
else
	fail "script(1) needed for the terminal test"
fi
t_exit 2 "no program is a usage error" $P --ro /usr
t_eq "no program: what was wrong, then the hint" "$(cat "$ERR")" \
    "planenc: no PROGRAM (after --)
try 'planenc --help'"
t_exit 2 "--decode takes no plan options" $P --decode --ro /usr
t_exit 2 "--decode and --check exclude each other" $P --decode --check
t_exit 2 "unknown option" $P --frob -- /bin/true
t_exit 0 "PROGRAM without --: the first operand" $P --ro /usr /bin/true --ro /x
cp "$OUT" "$TMP/noddash.plan"
t_exit 0 "  decodes" $P --decode <"$TMP/noddash.plan"
t_grep "  the options after PROGRAM are its arguments" \
    '"argv":\["/bin/true","--ro","/x"\]' "$OUT"
t_exit 0 "-h" $P -h
t_grep "-h prints usage" 'usage: planenc' "$OUT"
t_exit 2 "--check refuses an empty input" $P --check </dev/null
t_grep "says the input is empty" 'empty: no bytes' "$ERR"

# ---- refusals, each naming the field ----
refuse "connect-tcp without tcp" 'connect-tcp 443.*tcp socket right' \
	$P --unix --connect-tcp 443 -- /bin/true
refuse "bind-tcp without tcp" 'bind-tcp 80.*tcp socket right' \
	$P --bind-tcp 80 -- /bin/true
refuse "relative path" 'ro usr: not an absolute path' \
	$P --ro usr -- /bin/true
refuse "path with .." 'rw /usr/\.\./etc: .*\. or \.\.' \
	$P --rw /usr/../etc -- /bin/true
refuse "path with ." 'rox /usr/\./bin: .*\. or \.\.' \
	$P --rox /usr/./bin -- /bin/true
refuse "path with //" 'ro /usr//lib: .*//' $P --ro /usr//lib -- /bin/true
refuse "path with trailing /" 'ro /usr/: .*trailing' \
	$P --ro /usr/ -- /bin/true
refuse "empty path" 'ro : empty path' $P --ro '' -- /bin/true
refuse "same path, two intents" 'rw /usr: same path also given as ro' \
	$P --ro /usr --rw /usr -- /bin/true
refuse "same path twice" 'ro /usr: same path given twice' \
	$P --ro /usr --ro /usr -- /bin/true
refuse "relative program" 'program bin/true: not an absolute path' \
	$P -- bin/true
refuse "env name grammar (--setenv)" 'env 1X=a: env name fails' \
	$P --setenv 1X=a -- /bin/true
refuse "env name grammar (--env)" '--env A-B: env name fails' \
	$P --env A-B -- /bin/true
refuse "--setenv without =" '--setenv NOVALUE' $P --setenv NOVALUE -- /bin/true
BIG=$(head -c 32767 /dev/zero | tr '\0' a)
refuse "NAME=VALUE over 32768 bytes" 'env X=a+.*longer than 32768' \
	$P --setenv "X=$BIG" -- /bin/true
t_exit 0 "NAME=VALUE of exactly 32768 bytes accepted" \
	$P --setenv "X=${BIG%a}" -- /bin/true
refuse "same env name twice" 'env A: same name given twice' \
	$P --setenv A=1 --setenv A=2 -- /bin/true
refuse "--env and --setenv of one name" 'env HOME: same name given twice' \
	env HOME=/h $P --env HOME --setenv HOME=/x -- /bin/true
refuse "--env of an unset variable" \
	'--env BORNE_T_UNSET: not set in the caller' \
	env -u BORNE_T_UNSET $P --env BORNE_T_UNSET -- /bin/true
refuse "malformed digest (short)" '--sha256 abc:' \
	$P --sha256 abc -- /bin/true
refuse "malformed digest (not hex)" '--sha256 g' \
	$P --sha256 "g$(echo "$HEX" | cut -c2-)" -- /bin/true
refuse "port 0" '--connect-tcp 0: port outside 1-65535' \
	$P --tcp --connect-tcp 0 -- /bin/true
refuse "port 65536" '--bind-tcp 65536: port outside 0-65535' \
	$P --tcp --bind-tcp 65536 -- /bin/true
refuse "uid 0" '--uid 0:' $P --uid 0 --gid 1 -- /bin/true
refuse "gid 0" '--gid 0:' $P --uid 1 --gid 0 -- /bin/true
refuse "uid without gid" 'uid: without gid' $P --uid 1000 -- /bin/true
refuse "memory-max 0" '--memory-max 0:' $P --memory-max 0 -- /bin/true
refuse "memory-max over 1P" '--memory-max 2048T:' \
	$P --memory-max 2048T -- /bin/true
refuse "pids-max 0" '--pids-max 0:' $P --pids-max 0 -- /bin/true
refuse "pids-max over the kernel limit" '--pids-max 4194305:' \
	$P --pids-max 4194305 -- /bin/true
refuse "timeout 0" '--timeout 0s:' $P --timeout 0s -- /bin/true
refuse "timeout over 31 days" '--timeout 745h:' \
	$P --timeout 745h -- /bin/true
refuse "timeout with a bad unit" '--timeout 5d:' $P --timeout 5d -- /bin/true
refuse "cpu quota 0" '--cpu-max 0:' $P --cpu-max 0 -- /bin/true
refuse "cpu period over 1 s" '--cpu-max 1000/2000000:' \
	$P --cpu-max 1000/2000000 -- /bin/true
refuse "rlimit soft above hard" 'rlimit nofile: soft limit above hard' \
	$P --rlimit nofile=10:5 -- /bin/true
refuse "rlimit nofile 0" 'rlimit nofile: zero limit' \
	$P --rlimit nofile=0 -- /bin/true
refuse "rlimit unknown resource" '--rlimit bogus: unknown resource' \
	$P --rlimit bogus=1 -- /bin/true
refuse "rlimit given twice" 'rlimit core: same resource given twice' \
	$P --rlimit core=0 --rlimit core=1 -- /bin/true
refuse "keep-fd 2" '--keep-fd 2:' $P --keep-fd 2 -- /bin/true
refuse "keep-fd twice" 'keep-fd 5: same descriptor given twice' \
	$P --keep-fd 5 --keep-fd 5 -- /bin/true
refuse "ack-daemon grammar" 'ack-daemon Docker:' \
	$P --ack-daemon Docker -- /bin/true
refuse "ack-daemon twice" 'ack-daemon docker: same name given twice' \
	$P --ack-daemon docker --ack-daemon docker -- /bin/true
refuse "prompt file missing" '--prompt-file /nonexistent' \
	$P --prompt-file /nonexistent -- /bin/true
head -c $((16 * 1024 * 1024 + 1)) /dev/zero >"$TMP/bigprompt"
refuse "prompt over 16 MiB" '--prompt-file .*longer than 16777216' \
	$P --prompt-file "$TMP/bigprompt" -- /bin/cat
# Too many of anything.
set --
i=0; while [ $i -le 1024 ]; do set -- "$@" --ro "/p$i"; i=$((i + 1)); done
refuse "1025 paths" 'more than 1024 paths' $P "$@" -- /bin/true
set --
i=1; while [ $i -le 65 ]; do set -- "$@" --connect-tcp $i; i=$((i + 1)); done
refuse "65 ports" 'connect-tcp: more than 64 ports' $P --tcp "$@" -- /bin/true
set --
i=0; while [ $i -le 16 ]; do set -- "$@" --ack-daemon "d$i"; i=$((i + 1)); done
refuse "17 daemons" 'ack-daemon: more than 16' $P "$@" -- /bin/true
set --
i=0; while [ $i -le 256 ]; do set -- "$@" --setenv "V$i=x"; i=$((i + 1)); done
refuse "257 env entries" 'env: more than 256' $P "$@" -- /bin/true
set --
i=3; while [ $i -le 67 ]; do set -- "$@" --keep-fd $i; i=$((i + 1)); done
refuse "65 kept descriptors" 'keep-fd: more than 64' $P "$@" -- /bin/true
set --
i=1; while [ $i -le 4096 ]; do set -- "$@" x; i=$((i + 1)); done
refuse "4097 arguments" 'arg: more than 4096 arguments' $P -- /bin/true "$@"
shift
t_exit 0 "4096 arguments (argv[0] included) accepted" $P -- /bin/true "$@"
set --

# ---- hostile plans: the decoder applies the same rules ----
# hostile DESC FIELD-RE LINES...: a plan with LINES before "mode strict".
hostile() {
	hdesc=$1; re=$2; shift 2
	{ printf 'borne-plan 1\nprogram /bin/true\narg /bin/true\n'
	  for l in "$@"; do printf '%s\n' "$l"; done
	  printf 'mode strict\nend\n'; } >"$TMP/h.plan"
	refuse "hostile plan: $hdesc" "$re" $P --check <"$TMP/h.plan"
}
hostile "port without tcp" 'line 4: connect-tcp 443: without the tcp' \
	'connect-tcp 443'
hostile "relative path" 'line 4: ro usr: not an absolute' 'ro usr'
hostile "two intents" 'line 5: rw /usr: same path also given as ro' \
	'ro /usr' 'rw /usr'
hostile "env grammar" 'line 4: env 1X=a: env name fails' 'env 1X=a'
hostile "env twice" 'line 5: env A: same name given twice' 'env A=1' 'env A=2'
hostile "uid 0" 'line 4: uid 0:' 'uid 0' 'gid 1'
hostile "memory-max 0" 'line 4: memory-max: 0:' 'memory-max 0'
hostile "unknown key" 'line 4: unknown key "landlock"' 'landlock off'
hostile "out of order" 'line 5: ro: out of order' 'rw /a' 'ro /b'
hostile "non-canonical escape" 'line 4: arg: escape of a byte' 'arg \101'
hostile "bad escape" 'line 4: arg: bad escape' 'arg \9'
hostile "non-canonical number" 'line 4: pids-max: 010' 'pids-max 010'

# ---- truncated, padded, bit-flipped, oversized ----
# Process start-up dominates here, so the loops use a mid-sized plan with
# every kind of line (tests/unit/plan.c does every prefix and every bit
# flip of the full plan in-process; the fuzzer does the rest).
printf 'p\000\377' >"$TMP/p3"
$P --tcp --connect-tcp 443 --setenv "A=$(printf '\377')" --uid 7 --gid 7 \
	--prompt-file "$TMP/p3" -- /bin/cat ' a' '' >"$TMP/mid.plan" 2>"$ERR"
t_eq "mid-sized plan written" "$?" 0
n=$(wc -c <"$TMP/mid.plan" | tr -d ' ')
# Every strict prefix of a real plan is refused cleanly (exit 2).
i=0; bad=0
while [ "$i" -lt "$n" ]; do
	head -c "$i" "$TMP/mid.plan" >"$TMP/pre.plan"
	$P --check <"$TMP/pre.plan" 2>/dev/null
	rc=$?
	[ "$rc" -eq 2 ] || { bad=$((bad + 1)); diag "prefix $i: exit $rc"; }
	i=$((i + 1))
done
t_eq "all $n prefixes refused with exit 2" "$bad" 0
{ cat "$TMP/full.plan"; printf x; } >"$TMP/pad.plan"
refuse "one trailing byte" '1 trailing bytes after the prompt' \
	$P --check <"$TMP/pad.plan"
{ printf ' '; cat "$TMP/min.plan"; } >"$TMP/pad.plan"
refuse "one leading byte" 'line 1: not a launch plan' \
	$P --check <"$TMP/pad.plan"
{ cat "$TMP/min.plan"; echo; } >"$TMP/pad.plan"
refuse "a blank line after end" '1 trailing bytes after end' \
	$P --check <"$TMP/pad.plan"
# Flip one bit in every FLIP_STRIDE-th byte: exit 2, or exit 0 only when
# the result is itself canonical (re-encodes to the same bytes).
stride=${FLIP_STRIDE:-4}
od -An -v -tu1 "$TMP/mid.plan" | tr -s ' ' '\n' | grep . >"$TMP/bytes"
i=0; bad=0; acc=0; tried=0
while read -r b; do
	if [ $((i % stride)) -eq 0 ]; then
		v=$((b ^ (1 << (i % 8))))
		{ head -c "$i" "$TMP/mid.plan"
		  printf "\\$(printf %o "$v")"
		  tail -c +$((i + 2)) "$TMP/mid.plan"; } >"$TMP/flip.plan"
		$P --reencode <"$TMP/flip.plan" >"$TMP/flip.out" 2>/dev/null
		rc=$?
		tried=$((tried + 1))
		if [ "$rc" -eq 0 ]; then
			acc=$((acc + 1))
			cmp -s "$TMP/flip.out" "$TMP/flip.plan" || {
				bad=$((bad + 1))
				diag "flip $i accepted, not canonical"; }
		elif [ "$rc" -ne 2 ]; then
			bad=$((bad + 1)); diag "flip $i: exit $rc"
		fi
	fi
	i=$((i + 1))
done <"$TMP/bytes"
t_eq "$tried bit flips: refused or canonical ($acc accepted)" "$bad" 0
t_eq "bit flips covered the plan" "$i" "$n"
{ printf 'borne-plan 1\narg '; head -c 1100000 /dev/zero | tr '\0' a; } \
	>"$TMP/big.plan"
refuse "text part over 1 MiB" 'text part longer than 1048576' \
	$P --check <"$TMP/big.plan"
{ cat "$TMP/min.plan"; head -c $((17 * 1024 * 1024 + 1)) /dev/zero; } \
	>"$TMP/big.plan"
refuse "input over 17 MiB" 'plan longer than 17825792 bytes' \
	$P --check <"$TMP/big.plan"
printf 'borne-plan 1\nprogram /bin/true\narg /bin/true\nmode strict\nprompt 16777217\nend\n' \
	>"$TMP/big.plan"
refuse "prompt length over 16 MiB" 'line 5: prompt 16777217: longer' \
	$P --check <"$TMP/big.plan"

# ---- plans people can write: --preset, --tmp, --rwx, follow, PATH, port 0,
# ---- --profile ----
t_exit 0 "--preset sys encodes" $P --preset sys -- /bin/true
cp "$OUT" "$TMP/sys.plan"
$P --decode <"$TMP/sys.plan" >"$TMP/j.json"
# What the preset must hold, from this host: every entry that exists and
# is not a symlink, as itself; a symlinked one only as its target when
# nothing else covers it.
want_sys() { # want_sys INTENT PATH...
	wi=$1; shift
	for wp in "$@"; do
		if [ -e "$wp" ] && [ ! -L "$wp" ]; then
			jq_is "preset: $wi $wp" \
				"[.$wi[] | select(. == \"$wp\")] | length" 1
		elif [ -L "$wp" ]; then
			jq_is "preset: symlink $wp is not a rule path" \
				"[.ro[], .rw[], .rox[] | select(. == \"$wp\")] | length" 0
			tgt=$(readlink -f "$wp")
			cov=0
			for c in /usr /lib /lib64 /lib32 /libx32 /bin /sbin; do
				[ -L "$c" ] && continue
				case $tgt/ in "$c"/*) cov=1 ;; esac
			done
			[ "$cov" = 1 ] || jq_is "preset: $wp as its target $tgt" \
				"[.$wi[] | select(. == \"$tgt\")] | length" 1
		else
			jq_is "preset: $wp absent here, not in the plan" \
				"[.ro[], .rw[], .rox[] | select(. == \"$wp\")] | length" 0
		fi
	done
}
want_sys rox /usr /lib /lib64 /lib32 /libx32 /bin /sbin
want_sys ro /dev/random /dev/urandom
want_sys rw /dev/null /dev/zero /dev/full
jq_is "preset: nothing else" '[.ro[], .rw[], .rox[], .rwx[]] |
	map(select(test("^/(usr|lib|lib64|lib32|libx32|bin|sbin|etc|dev/(null|zero|full|random|urandom))$") | not)) | length' 0
# /etc whole, one rule, whatever it holds: the run's view withholds the
# host's secrets beneath it (confexec(1)); the plan says it is the
# preset's.
jq_is "preset: /etc is one rule" '[.ro[] | select(. == "/etc" or startswith("/etc/"))]' '["/etc"]'
jq_is "preset: the plan names it" '.preset' '"sys"'
t_eq "json: a plan without --preset names none" \
	"$($P -- /bin/true | $P --decode | jq -c .preset)" null
jq_is "preset: no rwx, no warning" '[(.rwx | length), (.warnings | length)]' \
	'[0,0]'
t_exit 0 "--preset sys with the same path given explicitly" \
	$P --preset sys --rw /etc -- /bin/true
t_grep "the explicit rule wins" '^rw /etc$' "$OUT"
t_nogrep "and the preset's is left out" '^ro /etc$' "$OUT"
refuse "--preset with an unknown name" '--preset web: unknown preset' \
	$P --preset web -- /bin/true
refuse "--preset sys then rw inside a rox system dir" \
	'--preset sys: refusing the plan: rox /usr: contains rw /usr/local/x' \
	$P --preset sys --rw /usr/local/x -- /bin/true

t_exit 0 "--tmp" $P --tmp -- /bin/true
t_grep "tmp line" '^tmp private$' "$OUT"
$P --decode <"$OUT" >"$TMP/j.json"
jq_is "tmp in JSON" .tmp true
t_exit 0 "no --tmp" $P -- /bin/true
$P --decode <"$OUT" >"$TMP/j.json"
jq_is "tmp false by default" .tmp false
refuse "--tmp with --setenv TMPDIR" 'env TMPDIR: contradicts tmp' \
	$P --tmp --setenv TMPDIR=/x -- /bin/true
refuse "--tmp with --env TMPDIR" 'env TMPDIR: contradicts tmp' \
	env TMPDIR=/y $P --tmp --env TMPDIR -- /bin/true
hostile "tmp with env TMPDIR" 'line 5: env TMPDIR: contradicts tmp' \
	'tmp private' 'env TMPDIR=/x'
hostile "tmp with another value" 'line 4: tmp: want private' 'tmp on'
hostile "tmp twice" 'line 5: tmp: given twice' 'tmp private' 'tmp private'

t_exit 0 "--rwx" $P --rwx /w/build --rox /usr -- /bin/true
t_grep "rwx line after rox" '^rwx /w/build$' "$OUT"
$P --decode <"$OUT" >"$TMP/j.json"
jq_is "rwx in JSON" .rwx '["/w/build"]'
jq_is "rwx warned loudly" '.warnings[0] | test("^rwx /w/build: .*write.*execute")' \
	true
refuse "rw with rox inside it" \
	'rox /a/b: inside rw /a \(write and execute .*use rwx' \
	$P --rw /a --rox /a/b -- /bin/true
refuse "rox with rw inside it" 'rw /a/b: inside rox /a' \
	$P --rox /a --rw /a/b -- /bin/true
refuse "rox / with rw anywhere" 'rw /tmp/w: inside rox /' \
	$P --rox / --rw /tmp/w -- /bin/true
t_exit 0 "rw /a and rox /ab are not nested" $P --rw /a --rox /ab -- /bin/true
t_exit 0 "ro and rw nested: fine" $P --ro /usr --rw /usr/local -- /bin/true
t_exit 0 "rwx with rox inside: explicit" $P --rwx /a --rox /a/b -- /bin/true
refuse "rwx and rw on one path" 'same path also given as rw' \
	$P --rw /a --rwx /a -- /bin/true
hostile "rw and a rox inside it" 'line 5: rox /a/b: inside rw /a' \
	'rw /a' 'rox /a/b'
hostile "rox around a rw" 'line 5: rox /a: contains rw /a/b' \
	'rw /a/b' 'rox /a'

t_exit 0 "--follow-symlinks" $P --rox /lib --follow-symlinks /lib -- /bin/true
t_grep "follow line" '^follow /lib$' "$OUT"
$P --decode <"$OUT" >"$TMP/j.json"
jq_is "follow in JSON" .follow_symlinks '["/lib"]'
refuse "--follow-symlinks without a rule" \
	'follow /x: no ro, rw, rox or rwx rule for this path' \
	$P --follow-symlinks /x -- /bin/true
refuse "--follow-symlinks twice" 'follow /x: same path given twice' \
	$P --ro /x --follow-symlinks /x --follow-symlinks /x -- /bin/true
hostile "follow out of order" 'line 7: follow: /a: out of order' \
	'ro /a' 'ro /b' 'follow /b' 'follow /a'

t_exit 0 "--bind-tcp 0" $P --tcp --bind-tcp 0 -- /bin/true
t_grep "bind-tcp 0 line" '^bind-tcp 0$' "$OUT"
refuse "--connect-tcp 0 still refused" '--connect-tcp 0: port outside 1-65535' \
	$P --tcp --connect-tcp 0 -- /bin/true
hostile "connect-tcp 0" 'line 5: connect-tcp 0: port outside' \
	'socket tcp' 'connect-tcp 0'

# PROGRAM without a slash: the plan's PATH, else planenc's.
mkdir -p "$TMP/bin1" "$TMP/bin2"
printf '\177ELF' >"$TMP/bin2/borne-t-prog"	# not a script
chmod 755 "$TMP/bin2/borne-t-prog"
printf 'x' >"$TMP/bin1/borne-t-prog"	# not executable: skipped
t_exit 0 "PROGRAM looked up in the plan's PATH" \
	$P --setenv "PATH=relative:$TMP/bin1:$TMP/bin2/" -- borne-t-prog a
t_grep "the absolute path recorded" "^program $TMP/bin2/borne-t-prog\$" "$OUT"
t_grep "argv[0] as given" '^arg borne-t-prog$' "$OUT"
t_exit 0 "PROGRAM looked up in planenc's PATH" \
	env PATH="$TMP/bin2:$PATH" $P -- borne-t-prog
t_grep "found in planenc's PATH" "^program $TMP/bin2/borne-t-prog\$" "$OUT"
t_exit 0 "--env PATH is the plan's PATH" \
	env PATH="$TMP/bin2:/usr/bin:/bin" "$BIN/planenc" --env PATH -- \
	borne-t-prog
t_grep "found in the plan's PATH (--env)" "^program $TMP/bin2/borne-t-prog\$" "$OUT"
refuse "PROGRAM not found" \
	"program borne-t-none: not found in the plan's PATH $TMP/bin2:/nonexistent" \
	$P --setenv "PATH=$TMP/bin2:/nonexistent" -- borne-t-none
refuse "PROGRAM not in the plan's PATH although in planenc's" \
	"program borne-t-prog: not found in the plan's PATH /nonexistent" \
	env PATH="$TMP/bin2:$PATH" $P --setenv PATH=/nonexistent -- borne-t-prog
refuse "relative PROGRAM with a slash is not searched" \
	'program bin/true: not an absolute path' $P -- bin/true

# ---- a #! PROGRAM: its interpreter is the plan's program ----------------
# Only a regular file is read for a #! line: a FIFO named as PROGRAM
# (nobody writing it) never holds planenc; confexec refuses it at run time.
mkfifo "$TMP/fifo-prog"
t_exit 0 "a FIFO as PROGRAM: encoded at once, not read" \
	timeout 20 "$BIN/planenc" -- "$TMP/fifo-prog"
t_grep "  as its own program" "^program $TMP/fifo-prog\$" "$OUT"
# The #! line read as the kernel reads it (one optional argument, blanks
# and all; the line within BINPRM_BUF_SIZE), env NAME looked up on the
# plan's PATH; each refusal one line, exit 2.
S=$TMP/scr
mkdir -p "$S/bin"
# script NAME CONTENT: an executable file NAME in $S holding CONTENT.
script() { printf '%b' "$2" >"$S/$1" && chmod 755 "$S/$1"; }
# refuse1: refuse, and the message is one line.
refuse1() {
	refuse "$@"
	t_eq "  one line: $1" "$(wc -l <"$ERR" | tr -d ' ')" 1
}
# argv_is DESC WANT: the argv of the plan in $OUT, as JSON.
argv_is() {
	t_eq "$1" "$($P --decode <"$OUT" | jq -c '[.program, .argv]')" "$2"
}
script sh1 '#!/bin/sh\necho hi\n'
t_exit 0 "#!/bin/sh script" $P --ro "$S" -- "$S/sh1" a b
argv_is "  runs /bin/sh with the script's path, then the arguments" \
	"[\"/bin/sh\",[\"/bin/sh\",\"$S/sh1\",\"a\",\"b\"]]"
t_exit 0 "  with --argv0" $P --ro "$S" --argv0 myname -- "$S/sh1" a
argv_is "  --argv0 is the interpreter's argv[0]" \
	"[\"/bin/sh\",[\"myname\",\"$S/sh1\",\"a\"]]"
script arg1 '#!  /bin/sh  -e  -x  \n'
t_exit 0 "#! with blanks and an argument" $P --ro "$S" -- "$S/arg1"
argv_is "  one optional argument, inner blanks kept (the kernel's rule)" \
	"[\"/bin/sh\",[\"/bin/sh\",\"-e  -x\",\"$S/arg1\"]]"
script nonl '#!/bin/sh -e'
t_exit 0 "#! line without a newline in a short file" $P --ro "$S" -- "$S/nonl"
argv_is "  read to the end of the file" \
	"[\"/bin/sh\",[\"/bin/sh\",\"-e\",\"$S/nonl\"]]"
cp "$S/sh1" "$S/bin/borne-t-script"
t_exit 0 "#! PROGRAM found on PATH" $P --ro "$S" \
	--setenv "PATH=$S/bin:/usr/bin:/bin" -- borne-t-script x
argv_is "  its absolute path is the script argument" \
	"[\"/bin/sh\",[\"/bin/sh\",\"$S/bin/borne-t-script\",\"x\"]]"
ENVP=$(command -v env)
SHP=$(command -v sh)
script env1 "#!$ENVP sh\n"
t_exit 0 "#!$ENVP sh" $P --ro "$S" --setenv "PATH=${SHP%/sh}" -- "$S/env1" y
argv_is "  sh looked up on the plan's PATH; env not run" \
	"[\"$SHP\",[\"sh\",\"$S/env1\",\"y\"]]"
script envs "#!$ENVP -S sh -e  -u\n"
t_exit 0 "#!$ENVP -S sh -e -u" $P --ro "$S" --setenv "PATH=${SHP%/sh}" -- "$S/envs"
argv_is "  env -S: split on blanks" \
	"[\"$SHP\",[\"sh\",\"-e\",\"-u\",\"$S/envs\"]]"
t_exit 0 "--preset sys: the preset's PATH finds the interpreter" \
	$P --preset sys --ro "$S" -- "$S/env1"
t_exit 2 "  without a rule over the script's directory" $P --preset sys -- "$S/env1"
SH1=$(sha256sum "$S/sh1" | cut -c1-64)
t_exit 0 "--sha256 with a script" $P --ro "$S" --sha256 "$SH1" -- "$S/sh1" a
t_grep "  pins the script: its argument and digest" "^script 1 $SH1\$" "$OUT"
t_eq "  not the interpreter" "$(grep -c '^sha256 ' "$OUT")" 0
t_exit 0 "--sha256 with a script and a #! argument" $P --ro "$S" \
	--sha256 "$SH1" -- "$S/arg1"
t_grep "  the script is argument 2" "^script 2 $SH1\$" "$OUT"
t_exit 0 "--sha256 with env -S" $P --ro "$S" --setenv "PATH=${SHP%/sh}" \
	--sha256 "$SH1" -- "$S/envs"
t_grep "  the script after env -S's words" "^script 3 $SH1\$" "$OUT"
$P --decode <"$OUT" >"$TMP/j.json"
jq_is "script" .script "{\"arg\":3,\"sha256\":\"$SH1\"}"
jq_is "no sha256" .sha256 null
script elf '\177ELF'
t_exit 0 "a file that is not a script is the program itself" $P -- "$S/elf"
argv_is "  unchanged" "[\"$S/elf\",[\"$S/elf\"]]"

script noint '#!\n'
refuse1 "#! line naming no interpreter" \
	"program $S/noint: its #! line names no interpreter\$" $P --ro "$S" -- "$S/noint"
script blanks '#!   \n'
refuse1 "#! line of blanks" "its #! line names no interpreter" \
	$P --ro "$S" -- "$S/blanks"
script long "#!/bin/sh $(printf '%0300d' 0)\n"
refuse1 "#! line longer than the kernel reads" \
	"program $S/long: its #! line is longer than 255 bytes" \
	$P --ro "$S" -- "$S/long"
script missing '#!/nonexistent/borne-t-interp\n'
refuse1 "interpreter missing" \
	"#!/nonexistent/borne-t-interp: interpreter /nonexistent/borne-t-interp: No such file" \
	$P --ro "$S" -- "$S/missing"
script rel '#!bin/sh\n'
refuse1 "interpreter not absolute" "#!bin/sh: the interpreter is not an absolute path" \
	$P --ro "$S" -- "$S/rel"
script nested "#!$S/sh1\n"
refuse1 "interpreter itself a script" \
	"interpreter $S/sh1 is itself a script \\(#!\\): planenc resolves one level" \
	$P --ro "$S" -- "$S/nested"
script envnone "#!$ENVP borne-t-none\n"
refuse1 "env NAME not on the plan's PATH" \
	"#!$ENVP borne-t-none: borne-t-none not found in the plan's PATH /nonexistent\$" \
	$P --ro "$S" --setenv PATH=/nonexistent -- "$S/envnone"
refuse1 "env NAME not on planenc's PATH" \
	"borne-t-none not found in planenc's PATH" \
	$P --ro "$S" -- "$S/envnone"
script envsp "#!$ENVP sh -e\n"
refuse1 "env NAME with a blank, without -S" 'env takes "sh -e" as one program name' \
	$P --ro "$S" -- "$S/envsp"
script envi "#!$ENVP -i sh\n"
refuse1 "env option other than -S" 'env options other than -S are not resolved' \
	$P --ro "$S" -- "$S/envi"
script envset "#!$ENVP A=1 sh\n"
refuse1 "env NAME=VALUE" 'env settings are not resolved; give them with --setenv' \
	$P --ro "$S" -- "$S/envset"
script envq "#!$ENVP -S sh -c 'x'\n"
refuse1 "env -S with quotes" 'env -S with quotes, escapes, variables or comments' \
	$P --ro "$S" -- "$S/envq"
script envalone "#!$ENVP\n"
refuse1 "env alone" 'env without a program name' $P --ro "$S" -- "$S/envalone"
ln -s "$S" "$TMP/scr-link"
t_exit 0 "a script beneath a followed symlink rule is readable" \
	$P --ro "$TMP/scr-link" --follow-symlinks "$TMP/scr-link" -- "$S/sh1"
printf '#!/bin/sh\n' >"$TMP/rel.sh" && chmod 755 "$TMP/rel.sh"
refuse "a relative #! PROGRAM is refused as any relative PROGRAM" \
	'program ./rel.sh: not an absolute path' sh -c "cd '$TMP' && exec $P -- ./rel.sh"
refuse1 "no rule grants read on the script" \
	"program $S/sh1 is a script \\(#!/bin/sh\\): its interpreter reads it by path, and no rule grants read on $S/sh1 \\(grant it with --ro $S\\)\$" \
	$P --rox /usr -- "$S/sh1"

# --profile FILE: flags one a line, comments, blank lines; composable.
cat >"$TMP/p.prof" <<'PROF'
# a profile
   --preset sys

--tmp
--rwx=/w/build
	--setenv LANG=C.UTF-8 with spaces
--tcp
--bind-tcp 0
PROF
t_exit 0 "--profile" $P --profile "$TMP/p.prof" --ro /srv -- /bin/true
cp "$OUT" "$TMP/prof.plan"
t_exit 0 "the same flags on the command line" $P --preset sys --tmp \
	--rwx /w/build --setenv 'LANG=C.UTF-8 with spaces' --tcp --bind-tcp 0 \
	--ro /srv -- /bin/true
cp "$OUT" "$TMP/flags.plan"
ok "a profile gives the same plan as its flags" \
	cmp "$TMP/flags.plan" "$TMP/prof.plan"
printf '%s\n' '--rw /a' '# x' '--rox /a/b' >"$TMP/bad1.prof"
refuse "a contradiction names FILE:LINE" \
	"$TMP/bad1.prof:3: refusing the plan: rox /a/b: inside rw /a" \
	$P --profile "$TMP/bad1.prof" -- /bin/true
printf '%s\n' '--tcp' '--bind-tcp 70000' >"$TMP/bad2.prof"
refuse "a bad value names FILE:LINE" \
	"$TMP/bad2.prof:2: --bind-tcp 70000: port outside 0-65535" \
	$P --profile "$TMP/bad2.prof" -- /bin/true
printf '%s\n' '--frob' >"$TMP/bad3.prof"
refuse "an unknown flag names FILE:LINE" "$TMP/bad3.prof:1: --frob: unknown flag" \
	$P --profile "$TMP/bad3.prof" -- /bin/true
printf '%s\n' 'rw /a' >"$TMP/bad4.prof"
refuse "a line that is no flag" "$TMP/bad4.prof:1: rw /a: want --FLAG" \
	$P --profile "$TMP/bad4.prof" -- /bin/true
printf '%s\n' '--rw' >"$TMP/bad5.prof"
refuse "a missing value" "$TMP/bad5.prof:1: --rw: missing value" \
	$P --profile "$TMP/bad5.prof" -- /bin/true
printf '%s\n' "--profile $TMP/p.prof" >"$TMP/bad6.prof"
refuse "no profile inside a profile" "$TMP/bad6.prof:1: --profile .*not allowed in a profile" \
	$P --profile "$TMP/bad6.prof" -- /bin/true
printf '%s\n' '--decode' >"$TMP/bad7.prof"
refuse "no --decode in a profile" "$TMP/bad7.prof:1: --decode: not a plan option" \
	$P --profile "$TMP/bad7.prof" -- /bin/true
printf '%s\n' '--setenv TMPDIR=/x' >"$TMP/bad8.prof"
refuse "profile TMPDIR against command-line --tmp" \
	"$TMP/bad8.prof:1: refusing the plan: env TMPDIR: contradicts tmp" \
	$P --profile "$TMP/bad8.prof" --tmp -- /bin/true
refuse "a missing profile" '--profile /nonexistent' \
	$P --profile /nonexistent -- /bin/true
for f in "$T_TOP"/contrib/profiles/*.profile; do
	t_exit 0 "shipped profile $(basename "$f") encodes" \
		$P --profile "$f" --rwx "$TMP/w" -- /bin/true
done

# --profile NAME: an installed profile, found beside the binary
# (BIN/../share/borne/profiles, as make install lays it out) whatever
# the prefix; a name never reads the current directory.
# The installed layout, made here as make install-profiles makes it (the
# target itself: t-workloads, where make is).
PFX=$TMP/pfx
mkdir -p "$PFX/bin" "$PFX/share/borne/profiles" &&
	cp "$BIN/planenc" "$PFX/bin/planenc" &&
	cp "$T_TOP"/contrib/profiles/*.profile "$PFX/share/borne/profiles/"
t_exit 0 "--profile git: found by name beside the binary" \
	"$PFX/bin/planenc" --profile git --rw "$TMP/w" -- /bin/true
t_grep "  its settings are in the plan" '^env GIT_CONFIG_NOSYSTEM=1$' "$OUT"
"$PFX/bin/planenc" --profile git --rw "$TMP/w" -- /bin/true >"$TMP/named.plan"
"$PFX/bin/planenc" --profile "$T_TOP/contrib/profiles/git.profile" \
	--rw "$TMP/w" -- /bin/true >"$TMP/path.plan"
ok "  the same plan as by its path" cmp "$TMP/named.plan" "$TMP/path.plan"
mkdir -p "$TMP/cwd"
printf '%s\n' '--rw /' >"$TMP/cwd/evil.profile"
printf '%s\n' '--rw /' >"$TMP/cwd/evil"
(cd "$TMP/cwd" && exec "$PFX/bin/planenc" --profile evil -- /bin/true) \
	>"$OUT" 2>"$ERR"
t_eq "  a name is not read from the current directory (exit 2)" "$?" 2
t_grep "  the refusal says where it looked, and ./NAME for a file here" \
	"^planenc: --profile evil: no profile of that name \\(looked for evil\\.profile in $PFX/bin/\\.\\./share/borne/profiles and .*; a file in this directory is given as \\./evil\\)\$" "$ERR"
t_exit 0 "  ./NAME reads the file here" \
	sh -c 'cd "$1" && exec "$2" --profile ./evil.profile -- /bin/true' sh \
	"$TMP/cwd" "$PFX/bin/planenc"
t_grep "  (its rule)" '^rw /$' "$OUT"
# From the build tree as from an installed one: make fills
# .build/VARIANT/share/borne/profiles beside .build/VARIANT/bin.
t_exit 0 "--profile git from the build tree ($BIN)" \
	"$BIN/planenc" --profile git --rw "$TMP/w" -- /bin/true
cp "$OUT" "$TMP/build.plan"
ok "  the same plan as by its path" cmp "$TMP/build.plan" "$TMP/path.plan"
ok "  the build tree's profiles are the sources'" \
	cmp "$BIN/../share/borne/profiles/git.profile" \
	"$T_TOP/contrib/profiles/git.profile"
# A profile found by name is trusted as planenc is: nobody but root and
# the caller may have written it or a directory above it.
chmod o+w "$PFX/share/borne/profiles"
refuse "  a profile directory others may write is refused" \
	"^planenc: --profile git: refused: others may write $PFX/share/borne/profiles \\(mode 0757; .*chmod go-w it\\)\$" \
	"$PFX/bin/planenc" --profile git -- /bin/true
chmod o-w "$PFX/share/borne/profiles"
chmod g+w "$PFX/share/borne/profiles/git.profile"
refuse "  a profile file its group may write is refused" \
	"refused: others may write $PFX/share/borne/profiles/git\\.profile \\(mode 0664" \
	"$PFX/bin/planenc" --profile git -- /bin/true
chmod g-w "$PFX/share/borne/profiles/git.profile"
chmod 1777 "$PFX/share"
t_exit 0 "  a sticky directory above it (as /tmp) is not refused" \
	"$PFX/bin/planenc" --profile git -- /bin/true
chmod 755 "$PFX/share"
if [ "$(id -u)" -eq 0 ]; then
	chown 65534 "$PFX/share/borne"
	refuse "  a directory of another user above it is refused" \
		"refused: $PFX/share/borne belongs to uid 65534, neither root nor you" \
		"$PFX/bin/planenc" --profile git -- /bin/true
	chown 0 "$PFX/share/borne"
else
	skip "  a directory of another user (needs root to make one)"
fi
t_exit 0 "  put back, found again" \
	"$PFX/bin/planenc" --profile git -- /bin/true


# ---- egress: destinations of the run's broker ----
t_exit 0 "--egress, several, any order and case" $P --egress pkgs.example:443 \
	--egress 'PkGS.example:80' --egress '*.files.example:443' \
	--egress 192.0.2.7:8080 --egress '[2001:DB8:0::1]:443' -- /bin/true
cp "$OUT" "$TMP/eg.plan"
t_eq "egress lines in canonical order (host bytes, then port as a number)" \
	"$(grep -a '^egress ' "$TMP/eg.plan")" \
	"egress *.files.example 443
egress 192.0.2.7 8080
egress 2001:db8::1 443
egress pkgs.example 80
egress pkgs.example 443"
t_grep "--egress implies the tcp socket right" '^socket tcp$' "$TMP/eg.plan"
t_eq "egress lines between bind-tcp and env" \
	"$(grep -a -n -E '^(socket|egress|mode)' "$TMP/eg.plan" | cut -d: -f1 |
	    tr '\n' ' ')" "4 5 6 7 8 9 10 "
t_exit 0 "--check accepts it" $P --check <"$TMP/eg.plan"
t_exit 0 "--reencode accepts it" $P --reencode <"$TMP/eg.plan"
cp "$OUT" "$TMP/eg.re"
ok "--reencode gives identical bytes" cmp "$TMP/eg.re" "$TMP/eg.plan"
$P --decode <"$TMP/eg.plan" >"$TMP/j.json"
jq_is egress .egress \
	'[{"host":"*.files.example","port":443},{"host":"192.0.2.7","port":8080},{"host":"2001:db8::1","port":443},{"host":"pkgs.example","port":80},{"host":"pkgs.example","port":443}]'
$P -- /bin/true | $P --decode >"$TMP/j.json"
jq_is "egress always present, empty without --egress" .egress '[]'
t_exit 0 "an IPv4-mapped address, in RFC 5952's form" \
	$P --egress '[::FFFF:192.0.2.1]:1' -- /bin/true
t_grep "  written so" '^egress ::ffff:192\.0\.2\.1 1$' "$OUT"
t_exit 0 "a name of one label" $P --egress localhost:8080 -- /bin/true
t_grep "  kept" '^egress localhost 8080$' "$OUT"
printf '%s\n' '--egress Example.ORG:443' >"$TMP/eg.prof"
t_exit 0 "--egress in a profile" $P --profile "$TMP/eg.prof" -- /bin/true
t_grep "  lower case there too" '^egress example\.org 443$' "$OUT"
# What planenc refuses before the rules (naming the argument).
refuse "egress without a port" '--egress pkgs\.example: want HOST:PORT' \
	$P --egress pkgs.example -- /bin/true
refuse "egress port 0" '--egress pkgs\.example:0: PORT not a number from 1 to 65535' \
	$P --egress pkgs.example:0 -- /bin/true
refuse "egress port 65536" '--egress pkgs\.example:65536: PORT not a number' \
	$P --egress pkgs.example:65536 -- /bin/true
refuse "egress port by name" '--egress pkgs\.example:https: PORT not a number' \
	$P --egress pkgs.example:https -- /bin/true
refuse "egress empty host" '--egress :443: empty host' \
	$P --egress :443 -- /bin/true
refuse "egress trailing dot" \
	'--egress pkgs\.example\.:443: trailing dot \(write the name without it\)' \
	$P --egress pkgs.example.:443 -- /bin/true
refuse "egress IPv6 without brackets" \
	'--egress 2001:db8::1:443: an IPv6 address goes in brackets' \
	$P --egress 2001:db8::1:443 -- /bin/true
refuse "egress bracket not closed" '--egress \[::1:443: want \[ADDRESS\]:PORT' \
	$P --egress '[::1:443' -- /bin/true
refuse "egress IPv4 in brackets" '--egress \[192\.0\.2\.1\]:80: not an IPv6 address' \
	$P --egress '[192.0.2.1]:80' -- /bin/true
refuse "egress IPv4 with a leading zero" \
	'--egress 192\.0\.2\.01:80: not an IPv4 address' \
	$P --egress 192.0.2.01:80 -- /bin/true
refuse "egress short IPv4 form" '--egress 127\.1:80: not an IPv4 address' \
	$P --egress 127.1:80 -- /bin/true
# An unspecified address, however spelt: a connection to it is one to
# this host (Linux connects it as loopback).  Named as given, then as
# the address it is.
UNSPEC='is an unspecified address, not a destination \(a connection to it reaches this host.s own listeners\)$'
for c in '0.0.0.0 0\.0\.0\.0 0\.0\.0\.0' '[::] \[::\] ::' \
    '[0:0:0:0:0:0:0:0] \[0:0:0:0:0:0:0:0\] ::' '[0::] \[0::\] ::' \
    '[::0.0.0.0] \[::0\.0\.0\.0\] ::' \
    '[::ffff:0.0.0.0] \[::ffff:0\.0\.0\.0\] ::ffff:0\.0\.0\.0' \
    '[::FFFF:0:0] \[::FFFF:0:0\] ::ffff:0\.0\.0\.0' \
    '[0:0:0:0:0:ffff:0000:0000] \[0:0:0:0:0:ffff:0000:0000\] ::ffff:0\.0\.0\.0'; do
	set -- $c
	refuse "egress $1 (unspecified)" "^planenc: --egress $2:80: $3 $UNSPEC" \
		$P --egress "$1:80" -- /bin/true
	t_eq "  nothing on stdout" "$(wc -c <"$OUT" | tr -d ' ')" 0
done
set --
printf '%s\n' '--egress [::]:443' >"$TMP/eg0.prof"
refuse "egress [::] in a profile" \
	"^planenc: $TMP/eg0\\.prof:1: --egress \\[::\\]:443: :: $UNSPEC" \
	$P --profile "$TMP/eg0.prof" -- /bin/true
t_exit 0 "egress 0.0.0.1 is not unspecified (a connect fails: no route)" \
	$P --egress 0.0.0.1:80 -- /bin/true
t_exit 0 "egress ::ffff:0:0:0 (SIIT) is not either" \
	$P --egress '[::ffff:0:0:0]:80' -- /bin/true
# What the rules refuse (launchplan(5)), named by the plan field.
refuse "egress wildcard over a top-level domain" \
	'egress \*\.com 443: wildcard over a top-level domain' \
	$P --egress '*.com:443' -- /bin/true
refuse "egress * alone" 'egress \* 443: \* only as the whole first label' \
	$P --egress '*:443' -- /bin/true
refuse "egress * inside a name" \
	'egress a\.\*\.example\.com 443: \* only as the whole first label' \
	$P --egress 'a.*.example.com:443' -- /bin/true
refuse "egress underscore" 'egress a_b\.example 443: byte outside \[a-z0-9-\]' \
	$P --egress a_b.example:443 -- /bin/true
refuse "egress label ending in -" 'egress a-\.example 443: label begins or ends with -' \
	$P --egress a-.example:443 -- /bin/true
refuse "egress empty label" 'egress a\.\.example 443: empty label' \
	$P --egress a..example:443 -- /bin/true
L63=$(printf '%063d' 0 | tr 0 a)
refuse "egress label of 64 bytes" 'label longer than 63 bytes' \
	$P --egress "${L63}b.example:443" -- /bin/true
t_exit 0 "egress label of 63 bytes" $P --egress "$L63.example:443" -- /bin/true
refuse "egress numeric last label" \
	'egress 0x7f\.1 80: last label does not begin with a letter' \
	$P --egress 0x7f.1:80 -- /bin/true
H253=$L63.$L63.$L63.$(printf '%061d' 0 | tr 0 d)
t_exit 0 "egress host of 253 bytes" $P --egress "$H253:443" -- /bin/true
t_grep "  written whole" "^egress $H253 443\$" "$OUT"
refuse "egress host of 254 bytes" 'host longer than 253 bytes' \
	$P --egress "${H253}d:443" -- /bin/true
refuse "egress destination twice" 'egress pkgs\.example 443: same destination given twice' \
	$P --egress pkgs.example:443 --egress PKGS.example:443 -- /bin/true
set --
i=1; while [ $i -le 64 ]; do set -- "$@" --egress "h$i.example:443"; i=$((i + 1)); done
t_exit 0 "64 egress destinations" $P "$@" -- /bin/true
refuse "65 egress destinations" 'egress: more than 64 destinations' \
	$P "$@" --egress h65.example:443 -- /bin/true
set --
# Contradictions.
EGNET='a run with egress has a network of its own, loopback only, where its broker listens; list each destination with --egress'
refuse "egress with --connect-tcp" "egress pkgs\\.example 443: contradicts connect-tcp \\($EGNET\\)" \
	$P --egress pkgs.example:443 --connect-tcp 443 -- /bin/true
refuse "egress with --bind-tcp" 'egress pkgs\.example 443: contradicts bind-tcp \(a run with egress has a network of its own' \
	$P --egress pkgs.example:443 --bind-tcp 0 -- /bin/true
for v in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy; do
	refuse "egress with --setenv $v" \
		"env $v: contradicts egress \\(confexec sets it to the run's broker\\)" \
		$P --egress pkgs.example:443 --setenv "$v=http://elsewhere:3128" -- /bin/true
done
refuse "egress with --env https_proxy" 'env https_proxy: contradicts egress' \
	env https_proxy=http://p:3128 $P --env https_proxy --egress pkgs.example:443 \
	-- /bin/true
t_exit 0 "NO_PROXY is the plan's own" \
	$P --egress pkgs.example:443 --setenv NO_PROXY=localhost -- /bin/true
t_exit 0 "HTTP_PROXY without egress is the plan's own" \
	$P --setenv HTTP_PROXY=http://p:3128 -- /bin/true
printf '%s\n' '--egress pkgs.example:443' '--egress *.com:443' >"$TMP/eg2.prof"
refuse "an egress refusal names FILE:LINE" \
	"$TMP/eg2.prof:2: refusing the plan: egress \\*\\.com 443: wildcard" \
	$P --profile "$TMP/eg2.prof" -- /bin/true
# The decoder: the same rules, and the canonical form only.
hostile "egress upper case" \
	'line 5: egress Pkgs\.example 443: upper-case letter' 'socket tcp' \
	'egress Pkgs.example 443'
hostile "egress trailing dot" 'line 5: egress pkgs\.example\. 443: trailing dot' \
	'socket tcp' 'egress pkgs.example. 443'
hostile "egress IPv6 not in RFC 5952's form" \
	"line 5: egress 2001:db8:0::1 443: IP address not in RFC 5952's form" \
	'socket tcp' 'egress 2001:db8:0::1 443'
hostile "egress IPv6 upper case" "egress 2001:DB8::1 443: IP address not in RFC 5952's form" \
	'socket tcp' 'egress 2001:DB8::1 443'
hostile "egress IPv6 in brackets" 'egress \[::1\] 443: not an IPv6 address' \
	'socket tcp' 'egress [::1] 443'
for h in 0.0.0.0 :: ::ffff:0.0.0.0; do
	hostile "egress $h (unspecified)" \
		"line 5: egress $h 80: an unspecified address is not a destination \\(a connection to it reaches this host.s own listeners\\)\$" \
		'socket tcp' "egress $h 80"
done
hostile "egress ports out of order" \
	'line 6: egress: pkgs\.example 80: out of order \(sorted by host, then port\)' \
	'socket tcp' 'egress pkgs.example 443' 'egress pkgs.example 80'
hostile "egress hosts out of order" 'line 6: egress: a\.example 1: out of order' \
	'socket tcp' 'egress b.example 1' 'egress a.example 1'
hostile "egress twice" 'line 6: egress pkgs\.example 443: same destination given twice' \
	'socket tcp' 'egress pkgs.example 443' 'egress pkgs.example 443'
hostile "egress without socket tcp" \
	'line 4: egress pkgs\.example 443: without the tcp socket right' \
	'egress pkgs.example 443'
hostile "egress after connect-tcp" 'line 6: egress pkgs\.example 443: contradicts connect-tcp' \
	'socket tcp' 'connect-tcp 443' 'egress pkgs.example 443'
hostile "egress before env HTTPS_PROXY" 'line 6: env HTTPS_PROXY: contradicts egress' \
	'socket tcp' 'egress pkgs.example 443' 'env HTTPS_PROXY=x'
hostile "egress before connect-tcp" 'line 6: connect-tcp: out of order' \
	'socket tcp' 'egress pkgs.example 443' 'connect-tcp 443'
hostile "egress port 0" 'line 5: egress pkgs\.example 0: port outside 1-65535' \
	'socket tcp' 'egress pkgs.example 0'
hostile "egress port not canonical" 'line 5: egress: 0443: not a canonical number' \
	'socket tcp' 'egress pkgs.example 0443'
hostile "egress without a port" 'line 5: egress: want HOST PORT' \
	'socket tcp' 'egress pkgs.example'
hostile "egress with two spaces" 'line 5: egress: empty field' \
	'socket tcp' 'egress pkgs.example  443'
hostile "egress host with a backslash" 'line 5: egress pkgs.+example 443: byte outside' \
	'socket tcp' 'egress pkgs\134.example 443'
hostile "egress host of 254 bytes" 'line 5: egress: host longer than 253 bytes' \
	'socket tcp' "egress ${H253}d 443"

done_testing
