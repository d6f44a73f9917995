#!/bin/sh
# fdclose-verify: leaked fds are closed, kept fds survive, exit codes, and
# the verification itself (closes made no-ops by a seccomp filter).
. "$(dirname "$0")/lib.sh"

FV=$BIN/fdclose-verify
LIST=$HELP/fd-list
echo secret >"$TMP/leak"

# The payload lists its own fds: only 0, 1 and 2 may remain.
fds() { cut -d' ' -f1 "$OUT" | tr '\n' ' '; }

exec 7<"$TMP/leak"
t_exit 0 "payload runs with a leaked fd 7 in the caller" "$FV" -- "$LIST"
t_eq "leaked fd 7 is gone in the payload" "$(fds)" "0 1 2 "
t_nogrep "the leaked file is not reachable" "/leak" "$OUT"

# Before, without fdclose-verify, the payload does see fd 7 (the test is
# able to see a leak at all).
"$LIST" >"$OUT" 2>"$ERR"
t_grep "without fdclose-verify the payload sees fd 7" "^7 .*/leak$" "$OUT"

exec 9<"$TMP/leak" 5<"$TMP/leak"
t_exit 0 "--keep 7 keeps fd 7" "$FV" --keep 7 -- "$LIST"
t_eq "only 0 1 2 7 open" "$(fds)" "0 1 2 7 "
t_exit 0 "-k 9 -k 5 (repeatable)" "$FV" -k 9 -k 5 -- "$LIST"
t_eq "0 1 2 5 9 open" "$(fds)" "0 1 2 5 9 "
t_exit 0 "-k 0,1,2,7,9 (stdio repeated is fine)" "$FV" -k 0,1,2,7,9 "$LIST"
t_eq "0 1 2 7 9 open" "$(fds)" "0 1 2 7 9 "
t_exit 0 "a kept fd that is not open is fine" "$FV" -k 42 -- "$LIST"
t_eq "fd 42 not conjured" "$(fds)" "0 1 2 "
exec 5<&- 9<&-
# The neighbours of a kept fd: each range closed ends right before it and
# the next begins right after it.
exec 6<"$TMP/leak" 8<"$TMP/leak"
t_exit 0 "-k 7 with fds 6 and 8 leaked beside it" "$FV" -k 7 -- "$LIST"
t_eq "6 and 8 closed, 7 kept" "$(fds)" "0 1 2 7 "
exec 6<&- 8<&-

# Thousands of fds and a big rlimit: all closed.
t_exit 0 "4000 leaked fds under ulimit -n 20000 are closed" sh -c \
    'ulimit -n 20000 && exec "$1" 4000 "$2" -- "$3"' sh \
    "$HELP/open-fds" "$FV" "$LIST"
t_eq "only stdio left" "$(fds)" "0 1 2 "

# Constant in RLIMIT_NOFILE: under a limit of 20000 the whole run makes
# one close_range per gap (-k 7: [3,6] and [8,~0]) and only the few
# close(2) calls of the dynamic loaders, never one per possible fd.
if command -v strace >/dev/null 2>&1; then
	sh -c 'ulimit -n 20000 && exec strace -qq -e trace=close,close_range \
	    -o "$1" "$2" -k 7 -- true' sh "$TMP/strace" "$FV" 2>"$ERR"
	t_eq "two close_range calls under ulimit -n 20000" \
	    "$(grep -c '^close_range(' "$TMP/strace")" 2
	t_grep "the second closes up to the top" \
	    '^close_range\(8, 4294967295, 0\) += 0' "$TMP/strace"
	n=$(grep -c '^close(' "$TMP/strace")
	t_eq "a handful of close(2) calls, not thousands ($n)" \
	    "$([ "$n" -lt 50 ] && echo few)" few
else
	skip "syscall count under a big limit" "needs strace"
fi

# Arguments pass through untouched (no option parsing after program).
t_exit 0 "options after the program are the program's" "$FV" printf '%s|' -k 7 --
t_eq "argv kept" "$(cat "$OUT")" "-k|7|--|"

# Exit codes: 127 not found, 126 not executable, 125 usage.
t_exit 127 "program not found is 127" "$FV" -- "$TMP/nonexistent"
t_grep "names the program" "unable to execute: .*/nonexistent" "$ERR"
t_exit 127 "program not in PATH is 127" "$FV" borne-no-such-program
printf '#!/bin/sh\nexit 0\n' >"$TMP/noexec"
chmod 644 "$TMP/noexec"
t_exit 126 "non-executable file is 126" "$FV" -- "$TMP/noexec"
t_exit 126 "a directory is 126" "$FV" -- "$TMP"
t_exit 125 "no program is a usage error (125)" "$FV"
t_grep "says what was wrong" "^fdclose-verify: no program to execute$" "$ERR"
t_exit 125 "-- alone is a usage error" "$FV" --
t_exit 125 "unknown option is 125" "$FV" -x -- true
t_exit 125 "missing --keep argument is 125" "$FV" --keep
for bad in "" "1,,2" "-1" "a" "3,3" "1," "99999999999"; do
	t_exit 125 "bad keep list '$bad' is 125" "$FV" -k "$bad" -- true
	t_grep "bad keep list '$bad' named" "invalid keep list" "$ERR"
done
big=$(seq -s, 100 200)
t_exit 125 "too many fds in keep list is 125" "$FV" -k "$big" -- true
t_exit 0 "-h prints usage and exits 0" "$FV" -h
t_grep "usage on stdout" "^usage: fdclose-verify " "$OUT"
t_exit 3 "payload status passes through" "$FV" -- sh -c 'exit 3'

# The verification path for real: close and close_range return 0 without
# closing (seccomp SCMP_ACT_ERRNO(0)); fdclose-verify must notice fd 3.
t_exit 125 "closes faked by seccomp: refused" \
    "$HELP/fault-close" noop 3 "$TMP/leak" "$FV" -- "$LIST"
t_grep "leftover fd named with its target" \
    "^fdclose-verify: fd 3 still open after close: $TMP/leak (\(and [0-9]+ more fds\) )?\(refusing to exec\)$" \
    "$ERR"
t_nogrep "payload did not run" "^0 " "$OUT"
# One descriptor left, alone (only fd 3's closes faked: the loader's own
# work): refused as well, named with nothing more.
t_exit 125 "a single fd left open (its closes faked): refused" \
    "$HELP/fault-close" one 3 "$TMP/leak" "$FV" -- "$LIST"
t_grep "  named alone" \
    "^fdclose-verify: fd 3 still open after close: $TMP/leak \(refusing to exec\)$" \
    "$ERR"
t_nogrep "  payload did not run" "^0 " "$OUT"

# Kernels before 5.9 have no close_range: the /proc/self/fd walk closes.
t_exit 0 "close_range ENOSYS: fallback walk closes" \
    "$HELP/fault-close" enosys 3 "$TMP/leak" "$FV" -- "$LIST"
t_eq "only stdio left after the fallback" "$(fds)" "0 1 2 "
t_exit 0 "fallback keeps the kept fd" \
    "$HELP/fault-close" enosys 3 "$TMP/leak" "$FV" -k 3 -- "$LIST"
t_eq "0 1 2 3 after the fallback with -k 3" "$(fds)" "0 1 2 3 "

# ---- the command line: options end at the program; one error format ----
# A usage error: exit 125, the program not run, two lines on stderr: what
# was wrong (matching $2) and the hint.
usage_err() {
	desc=$1 re=$2; shift 2
	rm -f "$TMP/ran"
	t_exit 125 "$desc: exit 125" "$FV" "$@"
	t_eq "$desc: says what was wrong, then the hint" \
	    "$(sed -n 1p "$ERR" | grep -c -E -- "^fdclose-verify: $re")$(sed -n '2,$p' "$ERR")" \
	    "1try 'fdclose-verify --help'"
	t_eq "$desc: the program did not run" "$(ls "$TMP/ran" 2>/dev/null)" ""
}
usage_err "no program" "no program to execute$"
usage_err "-- and no program" "no program to execute$" --
usage_err "an unknown option first" "unknown or ambiguous option: --frob$" \
    --frob touch "$TMP/ran"
usage_err "an unknown short option first" "unknown option: -x$" \
    -x touch "$TMP/ran"
usage_err "--keep without its value" "--keep needs a value" --keep
usage_err "a value given to --help" "--help takes no value$" \
    --help=x touch "$TMP/ran"
usage_err "a repeated fd" "invalid keep list: 3,3: not decimal" \
    -k 3,3 touch "$TMP/ran"
usage_err "an fd out of range" "invalid keep list: 99999999999: a descriptor out of range$" \
    -k 99999999999 touch "$TMP/ran"
usage_err "too many fds" "invalid keep list: 100,.*: more than 64 descriptors" \
    -k "$(seq -s, 100 200)" touch "$TMP/ran"
# After the first operand every word is the program's, options or not,
# whatever POSIXLY_CORRECT says.
t_exit 0 "an unknown option after the program is the program's" \
    "$FV" printf '%s|' --frob --keep 3
t_eq "argv kept" "$(cat "$OUT")" "--frob|--keep|3|"
t_exit 0 "POSIXLY_CORRECT changes nothing" \
    env POSIXLY_CORRECT=1 "$FV" printf '%s|' x --help
t_eq "argv kept with POSIXLY_CORRECT" "$(cat "$OUT")" "x|--help|"
t_exit 127 "a program named like an option follows --" "$FV" -- -x
t_grep "and is looked for as a program" "^fdclose-verify: unable to execute: -x: " "$ERR"
t_exit 0 "--keep=FD (long form with =)" "$FV" --keep=3 -- true
t_exit 0 "--version" "$FV" --version
t_grep "--version: fdclose-verify VERSION" "^fdclose-verify [^ ]+$" "$OUT"
t_exit 0 "--help" "$FV" --help
t_grep "--help: one line for --keep, with its value" \
    "^ +-k, --keep FD\[,FD\.\.\.\] +[^ ]" "$OUT"

# Fail closed without a real /proc.  ASan itself needs /proc at startup,
# so the asan build proves the fake-procfs case only.
need_root
t_exit 125 "tmpfs over /proc/PID/fd: refused (not procfs)" \
    unshare -m --propagation private sh -c \
    'mount -t tmpfs tmpfs /proc/$$/fd && exec "$1" -- true' sh "$FV"
t_grep "says it is not procfs" "/proc/self/fd: not on procfs" "$ERR"
if [ "$VARIANT" != asan ]; then
	t_exit 125 "no /proc at all: refused" \
	    unshare -m --propagation private sh -c \
	    'mount -t tmpfs tmpfs /proc && exec "$1" -- true' sh "$FV"
	t_grep "names /proc/self/fd" "unable to verify descriptors: /proc/self/fd" "$ERR"
else
	t_exit 125 "bind of an empty dir over /proc/PID/fd: refused" \
	    unshare -m --propagation private sh -c \
	    'mkdir -p "$2/e" && mount --bind "$2/e" /proc/$$/fd && exec "$1" -- true' \
	    sh "$FV" "$TMP"
fi

done_testing
