#!/bin/sh
# Diagnostics are one line each, whatever untrusted bytes they name: a
# path, an argument, an env name or a plan key holding a newline, CR or an
# ESC sequence cannot forge a second "tool: ..." line on stderr nor drive
# the terminal (common/err escapes every control byte as \xNN).
. "$(dirname "$0")/lib.sh"

NLF=$(printf '/tmp/x\nconfexec: forged')
ESCS=$(printf 'a\033[2J\rb')

# one_line DESC TOOL: $ERR holds exactly one line, starting "TOOL: ", with
# no control byte but its final newline, and no forged line.
# one_line DESC TOOL: one message line (a usage error adds exactly the
# hint line "try 'TOOL --help'" after it, nothing else).
one_line() {
	sed "/^try '$2 --help'\$/d" "$ERR" >"$ERR.msg"
	t_eq "$1: exactly one line on stderr" "$(wc -l <"$ERR.msg" | tr -d ' ')" 1
	t_nogrep "$1: no forged line" '^[a-z]+: forged' "$ERR"
	t_eq "$1: no control byte" \
	    "$(tr -d '\n' <"$ERR" | LC_ALL=C tr -d '[:print:]' | wc -c | tr -d ' ')" 0
	t_grep "$1: the message names its tool" "^$2: " "$ERR"
}

# ---- planenc ----
t_exit 2 "planenc: env name with a newline refused" \
	planenc --env "$(printf 'A\nplanenc: forged')" -- /bin/true
one_line "planenc --env" planenc
t_grep "planenc --env: the newline is written \\x0a" \
	'^planenc: --env A\\x0aplanenc: forged: ' "$ERR"

t_exit 2 "planenc: path with a newline refused (trailing /)" \
	planenc --ro "$NLF/" -- /bin/true
one_line "planenc --ro" planenc

t_exit 2 "planenc: --setenv without = names the argument" \
	planenc --setenv "$ESCS" -- /bin/true
one_line "planenc --setenv" planenc
t_grep "planenc --setenv: ESC and CR escaped" 'a\\x1b\[2J\\x0db' "$ERR"

printf 'borne-plan 1\nfoo\033[2J\nend\n' >"$TMP/esc.plan"
t_exit 2 "planenc --check: unknown key holding ESC refused" \
	planenc --check <"$TMP/esc.plan"
one_line "planenc --check" planenc

printf 'borne-plan 1\nfoo\nconfexec: forged\nend\n' >"$TMP/nl.plan"
t_exit 2 "planenc --decode: a hostile plan refused" \
	planenc --decode <"$TMP/nl.plan"
one_line "planenc --decode" planenc

# ---- confexec: a program path with a newline ----
planenc --preset sys -- "$NLF" >"$TMP/nlf.plan" ||
	fail "planenc encodes a program path with a newline"
t_exit 127 "confexec: missing program with a newline in its path" \
	confexec <"$TMP/nlf.plan"
one_line "confexec program path" confexec
t_grep "confexec: the path is named, newline as \\x0a" \
	'^confexec: /tmp/x\\x0aconfexec: forged: ' "$ERR"

# ---- cgprobe and journalchain name their arguments too ----
t_exit 2 "cgprobe: unknown mechanism with a newline" \
	cgprobe --require "$(printf 'x\ncgprobe: forged')"
one_line "cgprobe --require" cgprobe

t_exit 1 "journalchain: missing journal with a newline in its name" \
	journalchain verify "$(printf '/nonexistent\njournalchain: forged')"
one_line "journalchain verify" journalchain

# ---- confexec: one failure, one line ----
planenc -- /bin/true >"$TMP/true.plan" || fail "planenc encodes /bin/true"
t_exit 125 "confexec --journal in a missing directory: refused" \
	confexec --journal "$TMP/nodir/j" <"$TMP/true.plan"
one_line "confexec --journal NODIR/j" confexec
t_grep "  the line names the journal, the record and the cause" \
	"^confexec: refusing: journal $TMP/nodir/j: start record: cannot open .*: No such file or directory \\(make its directory first: mkdir -p $TMP/nodir\\)\$" "$ERR"
ok "  and creates nothing" test ! -e "$TMP/nodir"

t_exit 125 "confexec: empty stdin refused" confexec </dev/null
one_line "confexec empty plan" confexec
t_grep "  says the plan is empty, not of another format" \
	'^confexec: refusing: plan: empty: no bytes \(did the encoder fail\?\)$' "$ERR"
t_exit 2 "planenc --decode: empty stdin refused" planenc --decode </dev/null
one_line "planenc --decode empty" planenc
t_grep "  in the same words" 'empty: no bytes \(did the encoder fail\?\)' "$ERR"
printf '\n' >"$TMP/nl-only.plan"
t_exit 125 "confexec: one empty line is no plan either" \
	confexec <"$TMP/nl-only.plan"
t_grep "  said as not a launch plan" 'line 1: not a launch plan' "$ERR"

# A run refused before it started applied no layer: its start record
# lists none (the verdicts that refused it stay under "refused").
mkdir "$TMP/gone"
planenc --ro "$TMP/gone" -- /bin/true >"$TMP/gone.plan" ||
	fail "planenc encodes --ro DIR"
rmdir "$TMP/gone"
t_exit 125 "confexec: a rule path gone at run time refuses the run" \
	confexec --journal "$TMP/refused.j" <"$TMP/gone.plan"
one_line "confexec refused rule" confexec
t_grep "  the start record lists no applied layer" \
	'"event":"start".*"layers":\[\]' "$TMP/refused.j"
t_grep "  the end record says why" \
	'"event":"end".*"refused":"landlock: ro [^"]*/gone: No such file' \
	"$TMP/refused.j"
t_exit 0 "  the journal verifies" journalchain verify "$TMP/refused.j"

# ---- several failures, one line each --------------------------------------
# Each: the status, then exactly one line naming its tool (and what was
# wrong: the input named).
printf 'garbage\n' >"$TMP/g.plan"
head -c 40 "$TMP/true.plan" >"$TMP/trunc.plan"
printf '#!/bin/sh\necho s\n' >"$TMP/s.sh" && chmod 755 "$TMP/s.sh"
printf -- '--timeout 1s\n--frob\n' >"$TMP/bad.profile"
mkdir "$TMP/jdir"
printf '{"seq":x}\n' >"$TMP/bad.jnl"
while IFS='|' read -r want tool re args; do
	eval "set -- $args"
	t_exit "$want" "$tool $args: exit $want" "$tool" "$@" \
	    <"$TMP/$(case $tool in confexec) echo "${re%%:*}" ;; *) echo g.plan ;; esac)"
	one_line "$tool $args" "$tool"
	t_grep "  names the input" "${re#*:}" "$ERR"
done <<EOF
125|confexec|g.plan:line 1: not a launch plan|
125|confexec|trunc.plan:truncated: no end line|
125|confexec|true.plan:journal $TMP/jdir: start record: cannot open $TMP/jdir: Is a directory|--journal "$TMP/jdir"
2|planenc|:--prompt-file $TMP/jdir: read: Is a directory|--prompt-file "$TMP/jdir" -- /bin/true
2|planenc|:--prompt-file $TMP/nonexistent: No such file|--prompt-file "$TMP/nonexistent" -- /bin/true
2|planenc|:program borne-no-such-program: not found in|-- borne-no-such-program
2|planenc|:no rule grants read on $TMP/s.sh \\(grant it with --ro $TMP\\)|--rox /usr -- "$TMP/s.sh"
2|planenc|:bad.profile:2: --frob: unknown flag|--profile "$TMP/bad.profile" -- /bin/true
2|planenc|:--profile $TMP/nonexistent.profile: No such file|--profile "$TMP/nonexistent.profile" -- /bin/true
1|journalchain|:cannot read $TMP/jdir: Is a directory|show "$TMP/jdir"
1|journalchain|:bad.jnl: verification failed at record 1|verify "$TMP/bad.jnl"
1|suidstrip|:$TMP/nonexistent: missing|"$TMP/nonexistent"
125|fdclose-verify|:invalid keep list: x|--keep x -- /bin/true
EOF

# ---- confexec --degrade: each warning one line of at most 160 bytes --------
# In a default container (emulated by the contained helper): every
# degraded layer says so in one bounded line; the whole reason stays in
# the start record.  No image cache: the container cannot make entries
# immutable, which a fresh cache (another test's) would say in a line.
if [ "$(id -u)" -eq 0 ] && [ -x "$HELP/contained" ] &&
	"$HELP/contained" true 2>/dev/null; then
	planenc --rox /usr --rox /lib --rox /lib64 --ro /etc --ro /proc \
		--follow-symlinks /lib --follow-symlinks /lib64 --degrade \
		-- /bin/true >"$TMP/deg.plan" || fail "planenc encodes --degrade"
	t_exit 0 "confexec --degrade in a default container: runs" \
		"$HELP/contained" "$BIN/confexec" --no-image-cache \
		--journal "$TMP/deg.j" <"$TMP/deg.plan"
	t_eq "  five warnings, one line each" \
		"$(grep -c '^confexec: WARNING: ' "$ERR")" 5
	t_eq "  nothing else on stderr" "$(wc -l <"$ERR" | tr -d ' ')" 5
	t_eq "  no line longer than 160 bytes, newline included" \
		"$(awk 'length($0) + 1 > 160' "$ERR" | wc -l | tr -d ' ')" 0
	t_grep "  a cut one says where it is whole" \
		' \.\.\. \(in full: start record, --dry-run\)$' "$ERR"
	t_eq "  no control byte" \
		"$(tr -d '\n' <"$ERR" | LC_ALL=C tr -d '[:print:]' | wc -c | tr -d ' ')" 0
	t_grep "  the start record has the pid namespace's reason whole" \
		'"warnings":\[.*running without pid-namespace: clone with namespace flags: Operation not permitted \(needs CAP_SYS_ADMIN and a seccomp filter that allows clone' \
		"$TMP/deg.j"
else
	skip "confexec --degrade warnings" "needs root and the contained helper"
fi

done_testing
