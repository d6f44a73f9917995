#!/bin/sh
# journalchain: append, verify, show, head, recover; tampering, torn tails
# under kill -9, concurrent appenders.
#
#   JOURNAL_KILL_ROUNDS  kill -9 rounds (default 50)
#   JOURNAL_PROCS        concurrent appenders (default 8)
#   JOURNAL_PER_PROC     records per appender (default 1000)
#   JOURNAL_SINGLE       of those, appended one record per call (default 5;
#                        the rest go 100 lines per call: each call costs an
#                        fdatasync, ~15 ms here, and the lock serialises them)
. "$(dirname "$0")/lib.sh"
need_cmd jq

J=$TMP/j
FLIP=$HELP/flipbyte

# ---- basics ----
printf '{"b":1,"a":"x"}\n{"run":{"argv":["/bin/true"],"status":0}}\n{}\n' \
    >"$TMP/in"
printf '{"n":4}\n{"n":5}\n' >"$TMP/in2"
t_exit 0 "append 3 records" journalchain append "$J" <"$TMP/in"
t_exit 0 "append 2 more" journalchain append "$J" <"$TMP/in2"
cp "$J" "$TMP/j5"
t_exit 0 "append of no events: nothing to do" journalchain append "$J" \
    </dev/null
ok "... the journal as it was" cmp "$J" "$TMP/j5"
t_exit 0 "append of no events, in batches" journalchain append --batch 1 \
    "$J" </dev/null
ok "... the journal as it was" cmp "$J" "$TMP/j5"
t_exit 0 "verify a good journal" journalchain verify "$J"
t_grep "verify prints count and head" '^5 records, head 5:[0-9a-f]{64}$' "$OUT"
t_exit 0 "verify --deep" journalchain verify --deep "$J"
# A record chained right whose event is valid JSON but not as append
# writes it (keys out of order): verify follows the chain; --deep refuses.
printf '{"seq":1,"prev":"%064d","time":"1","event":{"b":1,"a":2}}\n' 0 \
    >"$TMP/nc"
t_exit 0 "an event out of canonical form: verify follows the chain" \
	journalchain verify "$TMP/nc"
t_exit 1 "  verify --deep refuses it" journalchain verify --deep "$TMP/nc"
t_grep "  saying why" "at record 1, byte 0: event: event is not in canonical form$" "$ERR"
t_exit 0 "head" journalchain head "$J"
t_grep "head prints SEQ HASH" '^5 [0-9a-f]{64}$' "$OUT"
HEAD=$(journalchain head "$J")
FROM=$(echo "$HEAD" | tr ' ' :)
t_eq "head hash is the SHA-256 of the last line" \
    "$(tail -n 1 "$J" | sha256sum | cut -d' ' -f1)" "${HEAD#* }"
t_eq "genesis prev is 64 zeros" "$(head -n 1 "$J" | jq -r .prev)" \
    "0000000000000000000000000000000000000000000000000000000000000000"
t_eq "each prev is the SHA-256 of the previous line" \
    "$(sed -n 2p "$J" | jq -r .prev)" "$(head -n 1 "$J" | sha256sum | cut -d' ' -f1)"
t_eq "events stored canonical (compact, keys sorted)" \
    "$(head -n 1 "$J" | jq -c .event)" '{"a":"x","b":1}'
t_grep "time is a string" '"time":"[1-9][0-9]{18}"' "$J"
t_exit 0 "show" journalchain show "$J"
t_grep "show: a line a record; an event of no run, shown whole" \
    '^1  20[0-9-]{8}T[0-9:]{8}Z  -  -        - {41}\{"a":"x","b":1\}$' "$OUT"
t_eq "  five lines" "$(wc -l <"$OUT" | tr -d ' ')" 5
t_exit 0 "show --json" journalchain show --json "$J"
t_eq "show --json is JSON lines for jq" "$(jq -r .seq "$OUT" | tr '\n' ' ')" \
    "1 2 3 4 5 "
t_eq "show --json hash matches head" "$(jq -r .hash "$OUT" | tail -n 1)" \
    "${HEAD#* }"

# ---- refusals ----
cp "$J" "$TMP/before"
printf '{"ok":1}\n{"bad":\n{"ok":2}\n' >"$TMP/bad"
t_exit 2 "invalid JSON line refused" journalchain append "$J" <"$TMP/bad"
t_grep "names its line number" 'stdin:2: invalid JSON' "$ERR"
ok "nothing of the batch written" cmp "$J" "$TMP/before"
printf '{"ok":1}\n[1,2]\n' >"$TMP/bad"
t_exit 2 "non-object line refused" journalchain append "$J" <"$TMP/bad"
t_grep "names it" 'stdin:2: not a JSON object' "$ERR"
printf '{"a":1,"a":2}\n' >"$TMP/bad"
t_exit 2 "duplicate key refused" journalchain append "$J" <"$TMP/bad"
ok "still nothing written" cmp "$J" "$TMP/before"
t_exit 2 "unknown subcommand" journalchain frob "$J"
t_exit 2 "--json belongs to show" journalchain verify --json "$J"
t_exit 2 "bad --from" journalchain verify --from 3:abc "$J"
t_exit 1 "missing file" journalchain verify "$TMP/nope"

# ---- every single-byte change, every offset ----
# One mask per offset through the command, against the witnessed head; the
# unit test (tests/unit/journal.c) tries three masks per offset in-process,
# with and without the head.
size=$(wc -c <"$J")
mkdir "$TMP/flip"
ok "flipbyte wrote a copy per offset" "$FLIP" "$J" "$TMP/flip/f" all 1
off=0 missed=0
while [ "$off" -lt "$size" ]; do
	journalchain verify --from "$FROM" "$TMP/flip/f.$off" >/dev/null 2>&1
	[ $? -eq 1 ] || missed=$((missed + 1))
	off=$((off + 1))
done
t_eq "all $size single-byte changes detected (exit 1) with --from" "$missed" 0
rm -rf "$TMP/flip"

# ---- delete, duplicate, reorder, splice ----
sed 2d "$J" >"$TMP/x"
t_exit 1 "deleted record detected" journalchain verify "$TMP/x"
t_grep "names the record and byte" "record 2, byte $(head -n 1 "$J" | wc -c): seq is 3, expected 2" "$ERR"
sed 3p "$J" >"$TMP/x"
t_exit 1 "duplicated record detected" journalchain verify "$TMP/x"
t_grep "duplicate: seq" 'record 4, byte [0-9]+: seq is 3, expected 4' "$ERR"
awk 'NR == 2 { h = $0; next } NR == 3 { print; print h; next } { print }' \
    "$J" >"$TMP/x"
t_exit 1 "reordered records detected" journalchain verify "$TMP/x"
journalchain append "$TMP/k" <"$TMP/in2" >/dev/null
journalchain append "$TMP/k" <"$TMP/in" >/dev/null
{ head -n 2 "$J"; tail -n 3 "$TMP/k"; } >"$TMP/x"
t_exit 1 "two journals spliced detected" journalchain verify "$TMP/x"
t_grep "splice found at record 3" "record 3, byte $(head -n 2 "$J" | wc -c):" "$ERR"

# ---- two records on one line ----
# One bit of the newline between the last two records of a 50-record
# journal: the line then holds records 49 and 50, and every mode refuses it.
L=$TMP/l50
i=0
while [ $i -lt 50 ]; do echo "{\"i\":$i,\"s\":\"}{\"}"; i=$((i + 1)); done |
    journalchain append "$L" >/dev/null
LFROM=$(journalchain head "$L" | tr ' ' :)
nl49=$(($(head -n 49 "$L" | wc -c) - 1))
"$FLIP" "$L" "$TMP/l2" "$nl49" 1
t_exit 1 "two records on one line: verify exits 1" journalchain verify "$TMP/l2"
t_grep "names record 49 and its byte" \
    "verification failed at record 49, byte $(head -n 48 "$L" | wc -c): bytes after the event object \\(more than one record on the line\\?\\)" "$ERR"
t_exit 1 "two records on one line: verify --deep" journalchain verify --deep "$TMP/l2"
t_grep "--deep names record 49" 'at record 49, byte' "$ERR"
t_exit 1 "two records on one line: verify --from" \
    journalchain verify --from "$LFROM" "$TMP/l2"
t_grep "--from names record 49" 'at record 49, byte' "$ERR"
t_exit 1 "two records on one line: show" journalchain show "$TMP/l2"
t_eq "show prints the 48 records before it" "$(wc -l <"$OUT" | tr -d ' ')" 48
t_exit 1 "two records on one line: head refuses" journalchain head "$TMP/l2"
cp "$TMP/l2" "$TMP/l2before"
t_exit 1 "two records on one line: append refuses" \
    journalchain append "$TMP/l2" <"$TMP/in2"
ok "and writes nothing" cmp "$TMP/l2" "$TMP/l2before"
t_exit 1 "two records on one line: recover refuses" journalchain recover "$TMP/l2"
# every bit of every byte from 8 before that newline to 24 after it
missed=0 n=0
off=$((nl49 - 8))
while [ "$off" -lt $((nl49 + 24)) ]; do
	for m in 1 2 4 8 16 32 64 128; do
		"$FLIP" "$L" "$TMP/l3" "$off" "$m"
		for mode in "" --deep "--from $LFROM" "--deep --from $LFROM"; do
			# shellcheck disable=SC2086
			journalchain verify $mode "$TMP/l3" >/dev/null \
			    2>"$TMP/l3.err"
			rc=$?
			if [ $rc -ne 1 ]; then
				missed=$((missed + 1))
				diag "byte $off mask $m verify $mode: exit $rc:" \
				    "$(head -c 600 "$TMP/l3.err")"
			fi
			n=$((n + 1))
		done
	done
	off=$((off + 1))
done
t_eq "every bit of the 32 bytes around it: $n verifications exit 1" "$missed" 0

# ---- truncation and rewriting, with --from ----
head -n 3 "$J" >"$TMP/x"
t_exit 0 "a cleanly truncated journal verifies alone" journalchain verify "$TMP/x"
t_exit 1 "truncation detected with --from" journalchain verify --from "$FROM" "$TMP/x"
t_grep "says truncated" 'record 5 of the --from head is missing: the journal was truncated' "$ERR"
t_exit 0 "--from on the journal itself" journalchain verify --from "$FROM" "$J"
journalchain append "$TMP/w" <"$TMP/in" >/dev/null
journalchain append "$TMP/w" <"$TMP/in2" >/dev/null
t_exit 1 "a rewritten journal (same length) detected with --from" \
    journalchain verify --from "$FROM" "$TMP/w"
t_grep "says rewritten" 'rewritten' "$ERR"

# ---- torn tail ----
cp "$J" "$TMP/t"
truncate -s -7 "$TMP/t"
tail -c "$(($(tail -n 1 "$TMP/t" | wc -c)))" "$TMP/t" >"$TMP/dropped"
cp "$TMP/t" "$TMP/tbefore"
t_exit 3 "torn tail: verify exits 3" journalchain verify "$TMP/t"
t_grep "says torn, names record 5" 'torn tail at record 5, byte' "$ERR"
t_exit 3 "append refuses a torn tail" journalchain append "$TMP/t" <"$TMP/in2"
t_exit 3 "head refuses a torn tail" journalchain head "$TMP/t"
ok "append wrote nothing" cmp "$TMP/t" "$TMP/tbefore"
t_exit 0 "recover" journalchain recover "$TMP/t"
t_grep "recover says how much" "dropped $(wc -c <"$TMP/dropped") bytes" "$OUT"
t_exit 0 "recovered journal verifies" journalchain verify --deep "$TMP/t"
t_grep "5 records (4 + recovered)" '^5 records' "$OUT"
journalchain show --json "$TMP/t" | tail -n 1 >"$TMP/rec"
t_eq "recovered event type" "$(jq -r .event.type "$TMP/rec")" recovered
t_eq "recovered event: length" "$(jq -r .event.dropped_bytes "$TMP/rec")" \
    "$(wc -c <"$TMP/dropped" | tr -d ' ')"
t_eq "recovered event: SHA-256 of the dropped bytes" \
    "$(jq -r .event.dropped_sha256 "$TMP/rec")" \
    "$(sha256sum <"$TMP/dropped" | cut -d' ' -f1)"
t_exit 0 "recover again: nothing to do" journalchain recover "$TMP/t"
t_grep "says so" 'nothing to recover' "$OUT"
{ cat "$J"; printf junk; } >"$TMP/x2"
t_exit 1 "unterminated garbage is tampering, not torn" journalchain verify "$TMP/x2"
# An unterminated tail that begins as record 6 would, but longer than any
# record may be: tampering too (what a torn write leaves is shorter).
H5=$(journalchain head "$J" | cut -d' ' -f2)
{ cat "$J"; printf '{"seq":6,"prev":"%s","time":"' "$H5"
	head -c 1048576 /dev/zero | tr '\0' 1; } >"$TMP/x3"
t_exit 1 "an unterminated tail of over 1 MiB: tampering, not torn" \
	journalchain verify "$TMP/x3"
t_grep "  says why" "record longer than 1048576 bytes" "$ERR"
# Numbers are written one way: a seq with a leading zero is not a record.
printf '{"seq":01,"prev":"%064d","time":"1","event":{}}\n' 0 >"$TMP/lz"
t_exit 1 "a seq with a leading zero: refused" journalchain verify "$TMP/lz"
t_grep "  says why" "bad seq \(digits, no leading zero, from 1\)" "$ERR"
"$FLIP" "$J" "$TMP/b" 200 1
cp "$TMP/b" "$TMP/bbefore"
t_exit 1 "recover refuses a broken chain" journalchain recover "$TMP/b"
ok "and changes nothing" cmp "$TMP/b" "$TMP/bbefore"
"$FLIP" "$J" "$TMP/b" $(($(head -n 4 "$J" | wc -c) - 5)) 1
t_exit 1 "append refuses a broken last link" journalchain append "$TMP/b" <"$TMP/in2"

# ---- kill -9 in the middle of appends ----
rounds=${JOURNAL_KILL_ROUNDS:-50}
big=$(head -c 20000 /dev/zero | tr '\0' x)
i=0
while [ $i -lt 50 ]; do echo "{\"i\":$i,\"pad\":\"$big\"}"; i=$((i + 1)); done >"$TMP/kin"
r=0 torn=0 valid=0 wrong=0
while [ $r -lt "$rounds" ]; do
	cp "$J" "$TMP/kj"
	base=$(wc -c <"$TMP/kj")
	journalchain append "$TMP/kj" <"$TMP/kin" 2>/dev/null &
	pid=$!
	if [ $((r % 3)) -ne 0 ]; then
		# as soon as the file starts growing: inside the 1 MB write
		while [ "$(wc -c <"$TMP/kj")" -eq "$base" ] &&
		    kill -0 "$pid" 2>/dev/null; do :; done
	else
		# anywhere: parsing, writing or syncing
		sleep "0.$(( (r * 7) % 10 ))$(( (r * 3) % 10 ))"
	fi
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# verify accepts only whole, chained records; a partial batch of
	# whole records is valid (the command never returned)
	journalchain verify --from "$FROM" "$TMP/kj" >/dev/null 2>&1
	case $? in
	0)
		valid=$((valid + 1)) ;;
	3)
		torn=$((torn + 1))
		cp "$TMP/kj" "$TMP/kb"
		journalchain append "$TMP/kj" <"$TMP/in2" >/dev/null 2>&1
		[ $? -eq 3 ] && cmp -s "$TMP/kj" "$TMP/kb" || wrong=$((wrong + 1))
		journalchain recover "$TMP/kj" >/dev/null 2>&1 &&
		    journalchain verify --deep --from "$FROM" "$TMP/kj" >/dev/null 2>&1 &&
		    tail -n 1 "$TMP/kj" | grep -q '"type":"recovered"}}$' ||
		    wrong=$((wrong + 1)) ;;
	*)
		wrong=$((wrong + 1)) ;;
	esac
	r=$((r + 1))
done
note "kill -9 rounds: $rounds, torn: $torn, valid: $valid"
t_eq "kill -9 x $rounds: always torn (then recovered) or valid, never a partial record accepted" \
    "$wrong" 0
t_eq "every round classified" "$((torn + valid))" "$rounds"

# ---- concurrent appenders ----
procs=${JOURNAL_PROCS:-8}
per=${JOURNAL_PER_PROC:-1000}
single=${JOURNAL_SINGLE:-5}
C=$TMP/c
appender() {
	i=0
	while [ $i -lt "$single" ]; do
		echo "{\"p\":$1,\"i\":$i}" | journalchain append "$C" || return 1
		i=$((i + 1))
	done
	while [ $i -lt "$per" ]; do
		e=$((i + 100))
		[ $e -gt "$per" ] && e=$per
		k=$i
		while [ $k -lt $e ]; do
			echo "{\"p\":$1,\"i\":$k}"; k=$((k + 1))
		done | journalchain append "$C" || return 1
		i=$e
	done
}
pids=
p=0
while [ $p -lt "$procs" ]; do
	appender $p &
	pids="$pids $!"
	p=$((p + 1))
done
at_exit "kill_ours $pids 2>/dev/null"
failed=0
for pid in $pids; do wait "$pid" || failed=$((failed + 1)); done
t_eq "$procs concurrent appenders all succeeded" "$failed" 0
t_exit 0 "concurrent journal verifies" journalchain verify --deep "$C"
t_grep "with exactly $((procs * per)) records" "^$((procs * per)) records" "$OUT"
t_eq "every (appender, i) exactly once" \
    "$(journalchain show --json "$C" | jq -r '"\(.event.p) \(.event.i)"' | sort -u | wc -l)" \
    "$((procs * per))"

# ---- show: a line a record, --json whole, --run ----
# json_of FILE (lib.sh): show --json as it always was, from the records'
# own bytes: each line with its SHA-256 (newline included) after its seq.
# line N: the N-th line of $OUT.
line() { sed -n "$1p" "$OUT"; }
S=$TMP/show.jnl
big=$(head -c 12000 /dev/zero | tr '\0' e)
printf '%s\n' \
    '{"event":"start","plan":"p1","program":"/bin/a\u001b[31m","argv":["/bin/a","x\ny","caf\u00e9"],"mode":"strict","rules":[],"layers":[],"degraded":[]}' \
    '{"event":"start","plan":"p1","program":"/bin/b","argv":["/bin/b"],"mode":"degrade","rules":[1,2],"layers":["landlock"],"degraded":["cgroup"]}' \
    '{"event":"egress","plan":"p1","host":"example.org","port":443,"verdict":"allowed","status":200,"reason":null}' \
    '{"event":"end","plan":"p1","exit":0,"signal":null,"timeout":false,"cancel":null,"denials":{"calls":3},"egress":{"allowed":1,"refused":2},"handoff":{"daemons":{"docker":2,"containerd":1}}}' \
    '{"event":"end","plan":"p1","exit":137,"signal":9,"signal_by":"outside","timeout":true,"cancel":null,"denials":null,"egress":null,"handoff":null}' \
    "{\"event\":\"note\",\"text\":\"$big\"}" |
    journalchain append "$S"
t_exit 0 "show: six records" journalchain show "$S"
t_grep "  a start: its run, program and arguments escaped, mode, counts" \
    '^1  [0-9T:-]{19}Z  1  start    /bin/a\\x1b\[31m x\\x0ay café {13}  mode=strict rules=0 layers=0 degraded=0$' "$OUT"
t_grep "  a second run of the same plan: its own id" \
    '^2  [0-9T:-]{19}Z  2  start    /bin/b {34}  mode=degrade rules=2 layers=1 degraded=1$' "$OUT"
t_grep "  an egress event joins the oldest open run of its plan" \
    '^3  [0-9T:-]{19}Z  1  egress   /bin/a.*  allowed example\.org:443 status=200$' "$OUT"
t_grep "  its end: exit and the counts of denials, egress and handoffs" \
    '^4  [0-9T:-]{19}Z  1  end      /bin/a.*  exit=0 denials=3 egress=1/2 handoffs=3$' "$OUT"
t_grep "  the next end is the second run's: signal, timeout" \
    '^5  [0-9T:-]{19}Z  2  end      /bin/b {34}  exit=137 signal=9 by=outside timeout denials=- egress=0/0 handoffs=0$' "$OUT"
t_grep "  a 12,000-byte event: cut, visibly" \
    '^6  [0-9T:-]{19}Z  -  note     - {41}\{"event":"note","text":"e{53}\.\.\.$' "$OUT"
t_eq "  no line over 162 bytes and twice the number width (164)" \
    "$(LC_ALL=C awk 'length > 164' "$OUT")" ""
t_nogrep "  no control byte reaches the terminal" "$(printf '[\001-\010\013-\037]')" "$OUT"
t_exit 0 "show --json" journalchain show --json "$S"
cp "$OUT" "$TMP/show.got"
json_of "$S" >"$TMP/show.want"
ok "  is the records whole, as before, byte for byte" cmp "$TMP/show.got" "$TMP/show.want"
t_exit 0 "show --run 2" journalchain show --run 2 "$S"
t_eq "  its start and its end only" "$(cut -c1-2 "$OUT" | tr -d ' ' | tr '\n' ' ')" "2 5 "
t_exit 0 "show --run 1 --json" journalchain show --json --run 1 "$S"
t_eq "  its records whole: start, egress, end" "$(jq -r .seq "$OUT" | tr '\n' ' ')" "1 3 4 "
cp "$OUT" "$TMP/r1.got"
json_of "$S" | sed -n '1p;3p;4p' >"$TMP/r1"
ok "  as --json shows them" cmp "$TMP/r1.got" "$TMP/r1"
t_exit 1 "show --run 3: a record that starts no run, exit 1" journalchain show --run 3 "$S"
t_eq "  one line naming the id" "$(cat "$ERR")" \
    "journalchain: $S: no run 3: no start record 3 in its 6 valid records (show's RUN column names the runs)"
t_eq "  and nothing on stdout" "$(cat "$OUT")" ""
t_exit 1 "show --run 99: past the journal, exit 1" journalchain show --run 99 "$S"
t_grep "  naming it" "no run 99: " "$ERR"
t_exit 2 "show --run x: not an id, usage error" journalchain show --run x "$S"
t_grep "  naming it" '^journalchain: --run: not a run id .*: x$' "$ERR"
t_exit 2 "--run belongs to show" journalchain verify --run 1 "$S"

done_testing
