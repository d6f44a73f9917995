#!/bin/sh
# Denials named (confexec(1), Denials): by default the writes and execs
# the plan's rules deny are named when the run fails (read-only opens
# never reach the supervisor), with the narrowest planenc flag that would
# grant them; a failed run names its arguments no rule lets it read and
# says how to rerun with every denial named.  With --explain-denials
# every path call is observed and each denial said after the run, with
# the access asked and the flag, and listed in the end record; bounded.
# The payload's own errors are checked too: observing never changes what
# the kernel answers.
. "$(dirname "$0")/lib.sh"

needs root landlock=4 jq

OK=$TMP/ok
OUTSIDE=$TMP/outside
mkdir -p "$OK" "$OUTSIDE/sub"
echo secret >"$OUTSIDE/secret"
echo fine >"$OK/fine"
# /proc: the sanitized build's runtime reads it at exit.
BASEP="--preset sys --ro /proc --rox $HELP --rw $OK \
	--setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0"
J=$TMP/run.jnl

# cx [CONFEXEC-OPTION] -- PLANENC-ARGS...: one run, journal $J (emptied).
cx() {
	o=
	[ "$1" != -- ] && { o=$1; shift; }
	shift
	rm -f "$J"
	# shellcheck disable=SC2086
	"$PE" $BASEP "$@" >"$TMP/plan" || return 124
	# shellcheck disable=SC2086
	"$CX" $o --journal "$J" <"$TMP/plan"
}
jend() { jq -r "select(.event.event == \"end\") | .event | $1" "$J"; }
# denied: the lines naming a denial (on exit 0 "denied (not a failure:
# exit 0): ...").
denied() { grep -c '^confexec: denied[:( ]' "$ERR"; }

# ---- a read outside the rules: named with --ro DIR -----------------------
t_exit 0 "a read outside the rules" \
	cx --explain-denials -- "$E" read "$OUTSIDE/secret"
t_grep "  the payload got ENOENT (not in the view), as without the option" \
	'^ENOENT$' "$OUT"
t_grep "  stderr names the path, read, and --ro FILE" \
	"^confexec: denied \\(not a failure: exit 0\\): read $OUTSIDE/secret: grant it with --ro $OUTSIDE/secret\$" \
	"$ERR"
t_eq "  one denial, one line" "$(denied)" 1
t_eq "  the end record lists it" \
	"$(jend '.denials.listed[] | [.access, .path, .grant, .calls] | @tsv')" \
	"$(printf 'read\t%s\t--ro %s\t1' "$OUTSIDE/secret" "$OUTSIDE/secret")"
t_eq "  and counts it" "$(jend '.denials | [.calls, .unlisted] | @tsv')" \
	"$(printf '1\t0')"
t_exit 0 "  the journal verifies" "$BIN/journalchain" verify "$J"

t_exit 0 "without the option the same read" cx -- "$E" read "$OUTSIDE/secret"
t_grep "  gets the same ENOENT" '^ENOENT$' "$OUT"
t_eq "  and nothing is said" "$(denied)" 0
t_eq "  the default observer: writes seen, none listed, the read never notified" \
	"$(jend '[.denials.seen, (.denials.listed | length), .notify.observed] | @tsv')" \
	"$(printf 'writes\t0\t0')"
t_exit 0 "with --no-denials the same read" \
	cx --no-denials -- "$E" read "$OUTSIDE/secret"
t_grep "  gets the same ENOENT" '^ENOENT$' "$OUT"
t_eq "  the end record has no denials and observed nothing" \
	"$(jend '[.denials, .notify.observed] | @tsv')" "$(printf '\t0')"

t_exit 0 "a granted read is not named" \
	cx --explain-denials -- "$E" read "$OK/fine"
t_grep "  the payload read it" '^OK$' "$OUT"
t_eq "  no denial said" "$(denied)" 0
t_eq "  none listed" "$(jend '.denials.listed | length')" 0
ok "  yet the calls were observed" test "$(jend '.notify.observed')" -gt 0

# ---- each access, its flag -------------------------------------------------
t_exit 0 "write, create, mkdir, remove, exec outside the rules" \
	cx --explain-denials -- /bin/sh -c '
	"$0" write "$1/secret"; "$0" write "$1/new"; "$0" mkdir "$1/dir"
	rm -f "$1/secret" 2>/dev/null; echo rm:$?
	"$0" exec "$1/secret"' "$E" "$OUTSIDE"
# Outside every rule the view has nothing: ENOENT for each, the same as
# without the option; the observer names each as the host has it.
t_eq "  the payload's answers are the kernel's: ENOENT" \
	"$(tr '\n' ' ' <"$OUT")" "ENOENT ENOENT ENOENT rm:0 ENOENT "
t_grep "  write names --rw FILE" \
	"^confexec: denied \\(not a failure: exit 0\\): write $OUTSIDE/secret: grant it with --rw $OUTSIDE/secret\$" \
	"$ERR"
t_grep "  a new file: create, --rw DIR" \
	"^confexec: denied \\(not a failure: exit 0\\): create $OUTSIDE/new: grant it with --rw $OUTSIDE\$" \
	"$ERR"
t_grep "  mkdir: create" "^confexec: denied \\(not a failure: exit 0\\): create $OUTSIDE/dir: " "$ERR"
t_grep "  unlink: remove" \
	"^confexec: denied \\(not a failure: exit 0\\): remove $OUTSIDE/secret: grant it with --rw $OUTSIDE\$" \
	"$ERR"
t_grep "  exec names --rox FILE" \
	"^confexec: denied \\(not a failure: exit 0\\): exec $OUTSIDE/secret: grant it with --rox $OUTSIDE/secret\$" \
	"$ERR"
ok "  nothing was changed outside" test -f "$OUTSIDE/secret" -a \
	! -e "$OUTSIDE/new" -a ! -e "$OUTSIDE/dir"
t_eq "  the file kept its bytes" "$(cat "$OUTSIDE/secret")" secret

# A symlink inside a granted directory: the path named is where it leads.
ln -s "$OUTSIDE" "$OK/link"
t_exit 0 "a read through a symlink out of the rules" \
	cx --explain-denials -- "$E" read "$OK/link/secret"
t_grep "  the payload got ENOENT" '^ENOENT$' "$OUT"
t_grep "  the path named is the link's target" \
	"^confexec: denied \\(not a failure: exit 0\\): read $OUTSIDE/secret: grant it with --ro $OUTSIDE/secret\$" \
	"$ERR"
rm "$OK/link"

# A relative path: named from the payload's working directory.
t_exit 0 "a relative path" cx --explain-denials -- /bin/sh -c \
	'cd "$1" && "$0" read outside/secret' "$E" "$TMP"
t_grep "  named in full" "^confexec: denied \\(not a failure: exit 0\\): read $OUTSIDE/secret: " "$ERR"

# Something the preset would grant: ", or --preset sys".
"$PE" --rox /usr --rox /lib --rox /lib64 --follow /lib --follow /lib64 \
	--ro /proc --rox "$HELP" --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
	-- "$E" read /etc/hostname >"$TMP/nopreset.plan" 2>"$ERR" ||
	fail "planenc encodes a plan without the preset"
t_exit 0 "a read of /etc/hostname without --preset sys" \
	"$CX" --explain-denials <"$TMP/nopreset.plan"
t_grep "  names --ro /etc/hostname, or --preset sys" \
	'^confexec: denied \(not a failure: exit 0\): read /etc/hostname: grant it with --ro /etc/hostname, or --preset sys$' \
	"$ERR"

# ---- the bound ---------------------------------------------------------------
# 10,000 denied opens on 100 files: 32 paths listed with their counts,
# the calls on the other 68 counted in one line.
i=0
while [ $i -lt 100 ]; do : >"$OUTSIDE/sub/f$i"; i=$((i + 1)); done
t_exit 0 "10,000 denied opens on 100 paths" cx --explain-denials -- \
	/bin/sh -c 'exec 2>/dev/null; n=0
	while [ $n -lt 100 ]; do i=0
		while [ $i -lt 100 ]; do true <"$0/f$i"; i=$((i + 1)); done
		n=$((n + 1)); done; echo done' "$OUTSIDE/sub"
t_grep "  the payload ran through" '^done$' "$OUT"
t_eq "  33 lines: 32 paths and one for the rest" "$(denied)" 33
t_grep "  each with its count" \
	"^confexec: denied \\(not a failure: exit 0\\): read $OUTSIDE/sub/f0 \\(100 calls\\): grant it with --ro $OUTSIDE/sub/f0\$" \
	"$ERR"
t_grep "  the rest counted" \
	'^confexec: denied: 6800 more calls on other paths, not listed \(at most 32 paths are\)$' \
	"$ERR"
t_eq "  the end record: 32 listed, 10000 calls, 6800 unlisted" \
	"$(jend '[(.denials.listed | length), .denials.calls, .denials.unlisted] | @tsv')" \
	"$(printf '32\t10000\t6800')"
ok "  the end record stays small (under 64 KiB)" \
	test "$(grep '"event":"end"' "$J" | wc -c)" -lt 65536

# A long path is cut in what is said and recorded.
LONG=$OUTSIDE/$(printf '%0200d' 0)/$(printf '%0200d' 1)
mkdir -p "$LONG"
: >"$LONG/f"
t_exit 0 "a denied path of 400 bytes" cx --explain-denials -- "$E" read "$LONG/f"
t_eq "  the end record cuts it at 256 bytes and says so" \
	"$(jend '.denials.listed[0] | [(.path | length), .cut] | @tsv')" \
	"$(printf '256\ttrue')"
t_grep "  stderr shows it cut" '^confexec: denied \(not a failure: exit 0\): read /[^ ]*\.\.\.: ' "$ERR"

# ---- what is seen is for the report only -----------------------------------
# A thread swaps the path between a granted file and a denied one (a
# directory the view has, no rule grants) while the other opens it:
# whatever the supervisor copied, the kernel refuses every open that
# reaches the denied one.
t_exit 0 "a path swapped under the observer" cx --explain-denials -- \
	"$E" swap "$OK/fine" "$TMP" 20000
t_grep "  no open reached the denied file" '^opened:[0-9]* leaked:0$' "$OUT"
ok "  and some reached the granted one" \
	test "$(sed -n 's/^opened:\([0-9]*\).*/\1/p' "$OUT")" -gt 0

# The notifier's own calls keep their answers beside the observer:
# inotify_add_watch is answered by the supervisor (notify.h).
RA=$HELP/root-attack
t_exit 0 "inotify watch beneath a rule, observer on: answered OK" \
	cx --explain-denials -- "$RA" inotify "$OK"
t_grep "  OK" '^OK$' "$OUT"
# Through sh, whose exec of the helper is an observed call however the
# helper is linked (a static one opens nothing else before the watch).
t_exit 1 "inotify watch on a directory the view has, no rule grants, observer on: EACCES" \
	cx --explain-denials -- /bin/sh -c 'exec "$0" inotify "$1"' "$RA" \
	"$TMP"
t_grep "  EACCES" '^EACCES$' "$OUT"
t_eq "  counted as the supervisor's answers, apart from the observed" \
	"$(jend '.notify | [.denied, (.observed | tonumber > 0)] | @tsv')" \
	"$(printf '1\ttrue')"

# ---- by default: the writes and execs of a failed run ----------------------
RO=$TMP/ro
mkdir -p "$RO"
echo kept >"$RO/f"
rerun() {
	grep -c '^confexec: exit [0-9]*; reads the rules deny are not named by default: rerun as planenc \.\.\. | confexec --explain-denials to name them$' "$ERR"
}
t_exit 3 "default: a denied write and exec in a run that fails (exit 3)" \
	cx -- --ro "$RO" /bin/sh -c '"$0" write "$1/f"; "$0" exec "$2/fine"
	"$0" write "$3/secret"; exit 3' "$E" "$RO" "$OK" "$OUTSIDE"
# Inside: the mount view's EROFS for the ro rule, Landlock's EACCES for
# an exec of a rw file, ENOENT outside every rule.
t_eq "  the payload's answers: EROFS, EACCES, ENOENT" \
	"$(tr '\n' ' ' <"$OUT")" "EROFS EACCES ENOENT "
t_grep "  the write named, granted as the file" \
	"^confexec: denied: write $RO/f: grant it with --rw $RO/f\$" "$ERR"
t_grep "  the exec named, --rox the file" \
	"^confexec: denied: exec $OK/fine: grant it with --rox $OK/fine\$" "$ERR"
t_grep "  the write outside every rule named as the host has it" \
	"^confexec: denied: write $OUTSIDE/secret: grant it with --rw $OUTSIDE/secret\$" \
	"$ERR"
t_eq "  three denials, and one line saying how to name the reads" \
	"$(denied) $(rerun)" "3 1"
t_eq "  the end record lists them: seen writes, not ignored" \
	"$(jend '[.denials.seen, .denials.ignored, (.denials.listed | length)] | @tsv')" \
	"$(printf 'writes\tfalse\t3')"
t_eq "  the host's files kept their bytes" \
	"$(cat "$RO/f" "$OUTSIDE/secret")" "$(printf 'kept\nsecret')"

t_exit 0 "default: the same denials in a run that goes on (exit 0)" \
	cx -- --ro "$RO" /bin/sh -c '"$0" write "$1/f"; "$0" exec "$2/fine"
	"$0" write "$3/secret"; exit 0' "$E" "$RO" "$OK" "$OUTSIDE"
t_eq "  the payload's answers are the same" \
	"$(tr '\n' ' ' <"$OUT")" "EROFS EACCES ENOENT "
t_eq "  a probe the program ignores is not reported: no denial, no rerun line" \
	"$(denied) $(rerun)" "0 0"
t_eq "  the end record keeps them, ignored" \
	"$(jend '[.denials.ignored, (.denials.listed | length)] | @tsv')" \
	"$(printf 'true\t3')"

t_exit 2 "default: a denied read in a run that fails" \
	cx -- /bin/sh -c '"$0" read "$1/secret"; exit 2' "$E" "$OUTSIDE"
t_grep "  the payload got ENOENT" '^ENOENT$' "$OUT"
t_eq "  the read is not named (not observed), the rerun line is" \
	"$(denied) $(rerun)" "0 1"
t_grep "  with the status" '^confexec: exit 2; ' "$ERR"

# 200 read-only opens of granted files: the filter keeps them all.
t_exit 0 "default: 200 read-only opens" cx -- /bin/sh -c \
	'i=0; while [ $i -lt 200 ]; do read x <"$0"; i=$((i + 1)); done
	echo "$x"' "$OK/fine"
t_grep "  read through" '^fine$' "$OUT"
t_eq "  none reached the supervisor" "$(jend '.notify.observed')" 0

t_exit 3 "--explain-denials: no rerun line on a failure" \
	cx --explain-denials -- /bin/sh -c '"$0" read "$1/secret"; exit 3' \
	"$E" "$OUTSIDE"
t_eq "  the read named instead" "$(denied) $(rerun)" "1 0"
t_grep "  as a failure's denial (the run exited 3)" \
	"^confexec: denied: read $OUTSIDE/secret: grant it with --ro $OUTSIDE/secret\$" \
	"$ERR"
t_exit 3 "--no-denials: nothing said on a failure" \
	cx --no-denials -- /bin/sh -c '"$0" write "$1/secret"; exit 3' \
	"$E" "$OUTSIDE"
t_eq "  no denial, no rerun line" "$(denied) $(rerun)" "0 0"
t_exit 125 "--explain-denials and --no-denials exclude each other" \
	"$CX" --explain-denials --no-denials </dev/null
t_grep "  said" 'exclude each other' "$ERR"

# ---- the static check: arguments naming a path no rule grants --------------
printf 'echo ran\n' >"$OUTSIDE/job.sh"
t_exit 2 "sh OUTSIDE/job.sh: the shell cannot open its script" \
	cx -- /bin/sh "$OUTSIDE/job.sh"
t_grep "  the shell says so" 'job.sh' "$ERR"
t_grep "  confexec names the argument with --ro FILE" \
	"^confexec: argument 1 names $OUTSIDE/job.sh, which no rule lets the payload read: grant it with --ro $OUTSIDE/job.sh\$" \
	"$ERR"
t_exit 0 "  granted with the flag named, the job runs" \
	cx -- --ro "$OUTSIDE/job.sh" /bin/sh "$OUTSIDE/job.sh"
t_grep "  ran" '^ran$' "$OUT"
t_nogrep "  and no argument is named" '^confexec: argument ' "$ERR"

# ---- the narrowest grant: a file in root's home, a device node -------------
RF=$(mktemp /root/.borne-denials.XXXXXX) || fail "a file in /root"
at_exit "rm -f '$RF' /root/.borne-denials-new"
rm -f /root/.borne-denials-new
t_exit 0 "a read of a file in /root" cx --explain-denials -- "$E" read "$RF"
t_grep "  granted as the file, never /root" \
	"^confexec: denied \\(not a failure: exit 0\\): read $RF: grant it with --ro $RF\$" "$ERR"
t_exit 5 "a file made in /root, a run that fails" cx -- /bin/sh -c \
	'"$0" write /root/.borne-denials-new; exit 5' "$E"
t_grep "  no rule on /root offered: the file, once made" \
	'^confexec: denied: create /root/.borne-denials-new: grant it with --rw /root/.borne-denials-new once it exists \(make it first: a rule on /root grants all of it\)$' \
	"$ERR"
ok "  nothing made in /root" test ! -e /root/.borne-denials-new
if [ -c /dev/tty ]; then
	t_exit 1 "a write to /dev/tty, a run that fails" cx -- /bin/sh -c \
		'"$0" write /dev/tty; exit 1' "$E"
	t_grep "  the view's EROFS" '^EROFS$' "$OUT"
	t_grep "  the device node as itself, not /dev" \
		'^confexec: denied: write /dev/tty: grant it with --rw /dev/tty$' \
		"$ERR"
else
	skip "a write to /dev/tty" "no /dev/tty"
fi

# ---- no listener, no default observer ---------------------------------------
# A nested run (confexec inside confexec, whose filter refuses a
# listener) degrades without one: nothing observed, nothing named by
# the inner confexec, no rerun line from it (its rerun could not name
# them either); its end record has no denials.
"$PE" $BASEP --degrade -- /bin/sh -c '"$0" write "$1/secret"; exit 3' \
	"$E" "$OUTSIDE" >"$TMP/inner" || fail "planenc encodes the inner plan"
mkdir -p "$TMP/jn"
t_exit 3 "nested, degrade, no listener: a denied write, exit 3" \
	cx -- --unix --rox "$BIN" --rw "$TMP/jn" --prompt-file "$TMP/inner" \
	"$BIN/confexec" --no-image-cache --journal "$TMP/jn/inner.j"
t_grep "  the inner payload got ENOENT" '^ENOENT$' "$OUT"
t_grep "  the inner run says it has no listener" \
	'^confexec: WARNING: running without seccomp-listener' "$ERR"
# The outer run's observer sees the inner payload too (in its domain):
# one denial and one rerun line, the outer's; none from the inner.
t_eq "  one denial named, one rerun line: the outer run's only" \
	"$(denied) $(rerun)" "1 1"
t_grep "  the outer names the write" \
	"^confexec: denied: write $OUTSIDE/secret: grant it with --rw $OUTSIDE/secret\$" \
	"$ERR"
t_eq "  the inner end record: no denials, nothing observed" \
	"$(jq -r 'select(.event.event == "end") | .event |
	[.denials, .notify.observed] | @tsv' "$TMP/jn/inner.j")" "$(printf '\t0')"

# ---- the real tools ----------------------------------------------------------
if command -v git >/dev/null 2>&1; then
	git init -q "$OUTSIDE/repo" 2>/dev/null &&
		git -C "$OUTSIDE/repo" -c user.name=t -c user.email=t@t \
		    commit -q --allow-empty -m one 2>/dev/null
	t_exit 128 "git clone of a repository outside the rules fails" \
		cx --explain-denials -- --setenv HOME="$OK" /usr/bin/git \
		clone -q "$OUTSIDE/repo" "$OK/clone"
	t_grep "  stderr names the repository, read, and --ro" \
		"^confexec: denied: read $OUTSIDE/repo(/[^ ]*)?: grant it with --ro $OUTSIDE" \
		"$ERR"
	t_exit 0 "  granted with the flag named, the clone works" \
		cx --explain-denials -- --ro "$OUTSIDE" --setenv HOME="$OK" \
		/usr/bin/git clone -q "$OUTSIDE/repo" "$OK/clone"
	t_eq "  and nothing is denied then" "$(denied)" 0
else
	skip "git clone outside the rules" "no git"
fi

# ---- the option's place -----------------------------------------------------
t_exit 125 "--reap excludes --explain-denials" "$CX" --reap --explain-denials
t_grep "  said" 'excludes .*--explain-denials' "$ERR"

done_testing
