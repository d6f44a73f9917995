#!/bin/sh
# The command line every tool shares, checked against each tool's man page:
# --version prints one line naming the tool; --help exits 0 and lists every
# long option of the page's OPTIONS section on a line of its own (and
# nothing the page does not document); an unknown option is exactly two
# lines on stderr, "TOOL: ..." naming it and "try 'TOOL --help'", with the
# usage-error status of the page's EXIT STATUS.
. "$(dirname "$0")/lib.sh"

# TOOL:STATUS, STATUS being the exit status of a usage error (2 for the
# answering tools, 125 for the chain-loaders).  TOOLS are checked; PENDING
# are the tools whose main does not use common/usage yet: move each one to
# TOOLS when it does.  Together they are every tool of cmd/.
TOOLS="cgprobe:2 fdclose-verify:125 suidstrip:2 journalchain:2 planenc:2
    confexec:125"
PENDING=""

# Every tool of cmd/ is in one list or the other, once.
listed=$(for t in $TOOLS $PENDING; do echo "${t%:*}"; done | sort)
built=$(ls "$T_TOP/cmd" | sort)
t_eq "TOOLS and PENDING name every tool of cmd/, once" "$listed" "$built"
if [ -n "$PENDING" ]; then
	note "not checked yet (PENDING): $PENDING"
fi

# The long options of the OPTIONS section of man page $1: on its term
# lines (the unindented ones starting with *-), one a line, sorted.
man_options() {
	awk '/^# / { s = substr($0, 3); next }
	    s == "OPTIONS" && /^\*-/ {
		line = $0
		while (match(line, /\*--[a-z0-9][a-z0-9-]*\*/)) {
			print substr(line, RSTART + 1, RLENGTH - 2)
			line = substr(line, RSTART + RLENGTH)
		}
	    }' "$1" | sort -u
}

# The long options that --help output $1 lists, one a line, sorted: each
# option line is "  -x, --name ..." or "      --name ...".
help_options() {
	sed -n -E 's/^ +(-[A-Za-z], +)?(--[a-z0-9][a-z0-9-]*).*/\2/p' "$1" | sort
}

# The EXIT STATUS paragraph of status $2 in man page $1, on one line.
man_status() {
	awk -v want="*$2*" '/^# / { s = substr($0, 3); next }
	    s != "EXIT STATUS" { next }
	    /^[^\t]/ { on = ($0 == want); next }
	    on { printf "%s ", $0 }' "$1"
}

bogus=--borne-no-such-option
for t in $TOOLS; do
	tool=${t%:*}
	code=${t#*:}
	page=$T_TOP/man/$tool.1.scd
	exe=$BIN/$tool

	# --version: one line, "TOOL VERSION", nothing on stderr.
	t_exit 0 "$tool --version: exit 0" "$exe" --version
	t_eq "$tool --version: one line" "$(wc -l <"$OUT" | tr -d ' ')" 1
	t_grep "$tool --version: the tool's name, then the version" \
	    "^$tool [^ ]+\$" "$OUT"
	t_eq "$tool --version: nothing on stderr" "$(cat "$ERR")" ""

	# --help: exit 0, the usage line, then the options of the man page,
	# each on one line of its own, and no option the page lacks.
	t_exit 0 "$tool --help: exit 0" "$exe" --help
	cp "$OUT" "$TMP/help"
	t_grep "$tool --help: starts with the usage line" "^usage: $tool " "$TMP/help"
	t_eq "$tool --help: nothing on stderr" "$(cat "$ERR")" ""
	man_options "$page" >"$TMP/man-opts"
	help_options "$TMP/help" >"$TMP/help-opts"
	t_eq "$tool(1): OPTIONS documents --help and --version" \
	    "$(grep -c -E -- '^--(help|version)$' "$TMP/man-opts")" 2
	while IFS= read -r o; do
		t_eq "$tool --help: $o on one line of its own" \
		    "$(grep -c -- "^$o\$" "$TMP/help-opts")" 1
	done <"$TMP/man-opts"
	t_eq "$tool --help: lists no option $tool(1) does not document" \
	    "$(comm -13 "$TMP/man-opts" "$TMP/help-opts" | tr '\n' ' ')" ""

	# An unknown option: two lines, what was wrong and the hint; the
	# exit status the man page gives usage errors.
	case $(man_status "$page" "$code") in
	*[Uu]sage*) pass "$tool(1): EXIT STATUS $code is the usage error" ;;
	*) fail "$tool(1): EXIT STATUS $code is the usage error"
	   diag "its paragraph: $(man_status "$page" "$code")" ;;
	esac
	t_exit "$code" "$tool $bogus: exit $code" "$exe" "$bogus"
	t_eq "$tool $bogus: two lines on stderr" "$(wc -l <"$ERR" | tr -d ' ')" 2
	t_eq "$tool $bogus: the first says what was wrong" \
	    "$(sed -n 1p "$ERR" | grep -c -- "^$tool: .*$bogus")" 1
	t_eq "$tool $bogus: the second is the hint" "$(sed -n 2p "$ERR")" \
	    "try '$tool --help'"
	t_eq "$tool $bogus: nothing on stdout" "$(cat "$OUT")" ""
done

# Every option of every tool that takes a value takes one value, or is
# repeatable by its page.  A single-value option given twice is a usage
# error naming the option and its second value: a later value never
# silently wins.  ONCE: TOOL OPTION FIRST SECOND [ARG...] (both values
# valid, so that only the repetition is wrong; journalchain's first ARG
# is its subcommand); MANY: TOOL:OPTION, the options each page says may
# be given again.
H0=$(printf '%064d' 0)
H1=$(printf '%064d' 1)
: >"$TMP/pf"
mkdir -p "$TMP/empty"
MANY=" planenc:--profile planenc:--preset planenc:--ro planenc:--rw
    planenc:--rox planenc:--rwx planenc:--follow-symlinks
    planenc:--connect-tcp planenc:--bind-tcp planenc:--egress planenc:--env
    planenc:--setenv planenc:--rlimit planenc:--ack-daemon planenc:--keep-fd
    fdclose-verify:--keep suidstrip:--within suidstrip:--guard "
cat >"$TMP/once" <<ONCE
planenc --timeout 1s 2s -- /bin/true
planenc --memory-max 1M 2M -- /bin/true
planenc --pids-max 1 2 -- /bin/true
planenc --cpu-max 1000 2000 -- /bin/true
planenc --uid 100000 100001 -- /bin/true
planenc --gid 100000 100001 -- /bin/true
planenc --sha256 $H0 $H1 -- /bin/true
planenc --prompt-file $TMP/pf $TMP/pf -- /bin/true
planenc --argv0 a b -- /bin/true
confexec --journal $TMP/j1 $TMP/j2
confexec --control $TMP/c1 $TMP/c2
confexec --image-cache $TMP/ic1 $TMP/ic2
confexec --registry $TMP/r1 $TMP/r2
cgprobe --require landlock seccomp
suidstrip --chown 1:1 2:2 $TMP/empty
suidstrip --budget 5 6 $TMP/empty
suidstrip --jobs 2 3 $TMP/empty
suidstrip --inspect $TMP/i1 $TMP/i2 $TMP/empty
journalchain --batch 1 2 append $TMP/j3
journalchain --from 1:$H0 2:$H1 verify $TMP/j3
journalchain --key $TMP/k1 $TMP/k2 checkpoint $TMP/j3
journalchain --origin a b checkpoint $TMP/j3
journalchain --checkpoint $TMP/c1 $TMP/c2 verify $TMP/j3
journalchain --pub $TMP/p1 $TMP/p2 verify $TMP/j3
journalchain --to 1 2 prove $TMP/j3
journalchain --old $TMP/c1 $TMP/c2 consistent $TMP/c3
journalchain --proof $TMP/p1 $TMP/p2 consistent $TMP/c3
journalchain --state $TMP/s1 $TMP/s2 checkpoint $TMP/j3
journalchain --run 1 2 show $TMP/j3
ONCE
for t in $TOOLS; do
	tool=${t%:*}
	"$BIN/$tool" --help | sed -n -E \
	    's/^ +(-[A-Za-z], +)?(--[a-z0-9][a-z0-9-]*) [^ ].*/\2/p' >"$TMP/valued"
	while IFS= read -r o; do
		case $(echo $MANY) in *"$tool:$o"*) continue ;; esac
		t_eq "$tool $o takes a value: repeatable (MANY) or tried twice (ONCE)" \
		    "$(awk -v t="$tool" -v o="$o" '$1 == t && $2 == o' "$TMP/once" | wc -l | tr -d ' ')" 1
	done <"$TMP/valued"
done
while read -r tool o v1 v2 rest; do
	code=$(for t in $TOOLS; do [ "${t%:*}" = "$tool" ] && echo "${t#*:}"; done)
	case $tool in
	journalchain) set -- ${rest%% *} "$o" "$v1" "$o" "$v2" ${rest#* } ;;
	*) set -- "$o" "$v1" "$o" "$v2" $rest ;;
	esac
	t_exit "$code" "$tool $o given twice: exit $code" "$BIN/$tool" "$@" </dev/null
	t_eq "  one line names the option and its second value" \
	    "$(sed -n 1p "$ERR" | grep -c -F -- "$tool: $o $v2: given twice")" 1
	# planenc's says where the first came from (a profile, the command
	# line), the others' the hint of their usage errors.
	case $(sed -n '2,$p' "$ERR") in
	""|"try '$tool --help'") pass "  nothing more than the hint" ;;
	*) fail "  nothing more than the hint"; diag_file "$ERR" ;;
	esac
done <"$TMP/once"
t_exit 0 "  once is accepted (planenc --timeout 1s)" \
    "$BIN/planenc" --timeout 1s -- /bin/true
t_exit 125 "confexec --image-cache with --no-image-cache: exit 125" \
    "$BIN/confexec" --image-cache "$TMP/ic1" --no-image-cache </dev/null
t_grep "  they exclude each other" \
    "^confexec: --image-cache and --no-image-cache exclude each other$" "$ERR"
ok "  nothing was made: no journal, socket or cache" \
    test ! -e "$TMP/j1" -a ! -e "$TMP/j2" -a ! -e "$TMP/j3" \
    -a ! -e "$TMP/c1" -a ! -e "$TMP/c2" -a ! -e "$TMP/ic1" -a ! -e "$TMP/ic2"

# The extractors themselves, on a page of known shape.
cat >"$TMP/x.1.scd" <<'PAGE'
x(1)

# OPTIONS

Prose mentioning *--not-an-option* is not a term line.

*-a*, *--alpha* _N_
	Mentions *--beta-in-text*, which is not a term.

*--gamma*, *-g*
*--delta* NAME=VALUE, *--epsilon* X

# EXIT STATUS

*1*
	No.

*2*
	Usage error.
PAGE
t_eq "man_options: the long options of the term lines only" \
    "$(man_options "$TMP/x.1.scd" | tr '\n' ' ')" "--alpha --delta --epsilon --gamma "
printf 'usage: x\n  -a, --alpha N   text --beta\n      --gamma   g\n' >"$TMP/xh"
t_eq "help_options: the option column only" \
    "$(help_options "$TMP/xh" | tr '\n' ' ')" "--alpha --gamma "
t_eq "man_status: one status's paragraph" "$(man_status "$TMP/x.1.scd" 2)" \
    "	Usage error. "

done_testing
