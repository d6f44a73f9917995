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
	"^confexec: refusing: journal $TMP/nodir/j: start record: cannot open .*: No such file or directory\$" "$ERR"
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

done_testing
