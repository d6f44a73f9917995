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
planenc --rox /usr --rox /lib --rox /lib64 -- "$NLF" >"$TMP/nlf.plan" ||
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

done_testing
