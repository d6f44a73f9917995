#!/bin/sh
# suidstrip: usage errors (one line and a hint), --help, --version,
# options after operands, missing targets (--missing-ok), strip, check,
# dry-run, json (summary counts = records), chown, docker inspect scoping,
# nested mounts, --guard, budget, progress, and the symlink-swap races.
# The whole file runs in a private mount namespace (unshare -m) so that
# every mount it makes vanishes with it.
#   SUID_RACE_ROUNDS   suidstrip runs against the swapper (default 252:
#                      strip, dry-run and --chown in turn), each walking 4
#                      racing trees: 1008 walks
#   SUID_BUDGET_FILES  files in the budget tree (default 500000: a strip walk
#                      here does at best ~300k entries/s, so 1 s is exceeded)
if [ -z "${SUID_UNSHARED:-}" ] && [ "$(id -u)" -eq 0 ]; then
	SUID_UNSHARED=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
needs root getcap setcap getfattr jq script strace
[ -x "$HELP/swapper" ] && [ -x "$HELP/mkmany" ] && [ -x "$HELP/fcapset" ] ||
	skip_all "helpers not built (make helpers)"

S=$BIN/suidstrip
ROUNDS=${SUID_RACE_ROUNDS:-252}
NFILES=${SUID_BUDGET_FILES:-500000}

# Work on a tmpfs of our own: fast, and it goes away with the namespace.
W=$TMP/w
mkdir -p "$W"
mount -t tmpfs -o size=2g,mode=755 tmpfs "$W" || skip_all "cannot mount tmpfs"
at_exit "umount -l '$W' 2>/dev/null"

# state DIR: one line per entry, "path mode uid gid nlink caps", sorted.
state() {
	(cd "$1" && find . -xdev -printf '%p %m %U %G %n %y\n' | sort) || return 1
	getfattr -R -P -h -d -m security.capability --absolute-names "$1" \
	    2>/dev/null | grep -v '^$' || true
}

# ---- usage and invalid input ----
t_exit 2 "no target is a usage error" "$S"
t_exit 2 "--inspect without --within is refused (fail closed)" \
	"$S" --inspect - </dev/null
t_grep "the refusal says why" "needs at least one --within" "$ERR"
t_exit 2 "--dry-run with --check is refused" "$S" --dry-run --check "$W"
t_exit 2 "--check with --chown is refused" "$S" --check --chown 1000:1000 "$W"
t_exit 2 "--budget 0 is refused" "$S" --budget 0 "$W"
t_exit 2 "--budget 1x is refused" "$S" --budget 1x "$W"
t_exit 2 "--chown 0:0 is refused" "$S" --chown 0:0 "$W"
t_exit 2 "--chown without a colon is refused" "$S" --chown 1000 "$W"
t_exit 2 "--within a missing directory is refused" \
	"$S" --within "$W/nonexistent" "$W"
t_exit 2 "an unknown option is refused" "$S" --frobnicate "$W"

# ---- one error format: one line saying what, one hint line ----
# usage_err DESC ARGS...: exit 2, exactly two lines on stderr, the first
# "suidstrip: ..." and the second the hint; nothing on stdout.
usage_err() {
	d=$1; shift
	t_exit 2 "usage error: $d" "$S" "$@"
	t_eq "usage error: $d: one line, then the hint" \
		"$(wc -l <"$ERR") $(sed -n '1s/^\(suidstrip: \).*/\1/p' "$ERR")$(sed -n 2p "$ERR")" \
		"2 suidstrip: try 'suidstrip --help'"
	t_eq "usage error: $d: nothing on stdout" "$(wc -c <"$OUT")" "0"
}
usage_err "no target" 
usage_err "unknown long option" --frobnicate "$W"
usage_err "unknown short option" -x "$W"
usage_err "a value given to a flag" --json=yes "$W"
usage_err "a missing value" "$W" --budget
usage_err "a bad value" --jobs 17 "$W"
usage_err "a bad root" --within "$W/nonexistent" "$W"
usage_err "a bad combination" "$W" --check --chown 1:1
t_grep "the line says what was wrong" "^suidstrip: --check changes nothing" "$ERR"
usage_err "--inspect without --within" --inspect - </dev/null

# ---- --help and --version ----
t_exit 0 "--help exits 0" "$S" --help
cp "$OUT" "$TMP/help"
# Every option of the man page's OPTIONS section, one help line each.
sed -n '/^# OPTIONS/,/^# EXIT STATUS/p' "$T_TOP/man/suidstrip.1.scd" |
	grep -o '^\*--[a-z-]*\*' | tr -d '*' | sort -u >"$TMP/man.opts"
t_eq "the man page lists options (sanity)" "$(wc -l <"$TMP/man.opts")" "12"
missing=
while read -r o; do
	[ "$(grep -c -- "^  .*$o\( [A-Z:]*\)\{0,1\}  " "$TMP/help")" = 1 ] ||
		missing="$missing $o"
done <"$TMP/man.opts"
t_eq "--help has one line for every option of suidstrip(1)" "$missing" ""
t_eq "--help: the usage line, then one line per option, nothing else" \
	"$(wc -l <"$TMP/help")" "$(($(wc -l <"$TMP/man.opts") + 1))"
t_exit 0 "--version exits 0" "$S" --version
t_eq "--version prints one line: the name and a version" \
	"$(wc -l <"$OUT") $(grep -c '^suidstrip [^ ]\{1,\}$' "$OUT")" "1 1"
if git -C "$T_TOP" rev-parse --git-dir >/dev/null 2>&1; then
	t_nogrep "--version: the repository's version, embedded at build" \
		"unknown" "$OUT"
else
	skip "--version from the repository" "$T_TOP is not a git checkout"
fi

# ---- options after operands are options (GNU), never targets ----
P=$W/p
mkdir -p "$P/d"
: >"$P/d/su"; chmod 4755 "$P/d/su"; setcap cap_net_raw+ep "$P/d/su"
state "$P" >"$TMP/p.before"
t_exit 0 "DIR --dry-run is a dry run" "$S" "$P" --dry-run
t_grep "it lists the file" "^would strip: $P/d/su: mode 04755 -> 00755" "$OUT"
t_nogrep "--dry-run is no target" "dry-run" "$ERR"
state "$P" >"$TMP/p.after"
ok "DIR --dry-run changed nothing" cmp -s "$TMP/p.before" "$TMP/p.after"
t_exit 0 "DIR -n is a dry run" "$S" "$P" -n
t_exit 1 "DIR --json --check is a check" "$S" "$P" --json --check
t_eq "and JSON" "$(jq -r 'select(.status) | .mode' "$OUT")" "check"
t_exit 0 "POSIXLY_CORRECT does not turn DIR --dry-run into two targets" \
	env POSIXLY_CORRECT=1 "$S" "$P" --dry-run
t_exit 2 "DIR --frobnicate is refused before anything" "$S" "$P" --frobnicate
t_exit 2 "DIR --dry-run --check is refused" "$S" "$P" --dry-run --check
state "$P" >"$TMP/p.after"
ok "none of those changed anything" cmp -s "$TMP/p.before" "$TMP/p.after"
mkdir -p "$W/--weird"
: >"$W/--weird/su"; chmod 4755 "$W/--weird/su"
t_exit 0 "-- ends the options: -- --weird-dir-name is a target" \
	sh -c "cd '$W' && '$S' -- --weird"
t_eq "and it was stripped" "$(stat -c %a "$W/--weird/su")" "755"

# ---- a missing target fails unless --missing-ok ----
t_exit 1 "a missing target fails (exit 1)" "$S" "$W/typo"
t_eq "with exactly one line naming it" "$(cat "$ERR")" \
	"suidstrip: WARNING: $W/typo: missing (not recreated; --missing-ok if expected)"
t_exit 1 "a missing target among others fails too" "$S" --dry-run "$P" "$W/typo"
t_grep "the other target is still listed" "^would strip: $P/d/su" "$OUT"
t_exit 1 "--json: a missing target's summary is incomplete" "$S" --json "$W/typo"
t_eq "with the reason" "$(jq -r '"\(.status) \(.warning)"' "$OUT")" \
	"incomplete missing (not recreated; --missing-ok if expected)"
t_exit 0 "--missing-ok: a missing target is skipped" "$S" --missing-ok "$W/typo"
t_eq "with a one-line note" "$(cat "$ERR")" \
	"suidstrip: $W/typo: skipped: missing (not recreated)"
ok "and not recreated" test ! -e "$W/typo"
t_exit 1 "a path through a file is missing too (ENOTDIR)" "$S" "$P/d/su/x"
state "$P" >"$TMP/p.after"
ok "nothing was changed by the failed runs" cmp -s "$TMP/p.before" "$TMP/p.after"

# ---- a planted tree ----
T=$W/t
O=$W/outside
mkdir -p "$T/a/b" "$T/sgd" "$O/dir"
: >"$T/a/su"; chmod 4755 "$T/a/su"
: >"$T/a/sg"; chmod 2755 "$T/a/sg"
: >"$T/a/both"; chmod 6750 "$T/a/both"
: >"$T/a/sgnox"; chmod 2644 "$T/a/sgnox"
: >"$T/a/plain"; chmod 0755 "$T/a/plain"
: >"$T/a/cap2"; setcap cap_net_raw+ep "$T/a/cap2"
: >"$T/a/cap3"; "$HELP/fcapset" "$T/a/cap3" 3 1000
: >"$T/a/capsu"; chmod 4711 "$T/a/capsu"; setcap cap_sys_admin+ep "$T/a/capsu"
chown 1234:5678 "$T/a/su"; chmod 4755 "$T/a/su"
: >"$O/victim"; chmod 4755 "$O/victim"; setcap cap_net_raw+ep "$O/victim"
: >"$O/dir/victim2"; chmod 6755 "$O/dir/victim2"
ln "$O/victim" "$T/a/hardlink"
ln -s "$O/victim" "$T/a/symlink"
ln -s "$O/dir" "$T/a/b/dirlink"
mknod "$T/a/null" c 1 3
mknod "$T/a/blk" b 7 200
mkfifo "$T/a/fifo"
chmod 2775 "$T/sgd"
: >"$T/a/$(printf 'new\nline')"; chmod 4755 "$T/a/$(printf 'new\nline')"
: >"$T/a/$(printf 'bad\377utf8')"; chmod 2755 "$T/a/$(printf 'bad\377utf8')"
state "$O" >"$TMP/outside.before"
state "$T" >"$TMP/tree.before"

t_exit 1 "--check finds privileged files (exit 1)" "$S" --check "$T"
cp "$OUT" "$TMP/check.out"; cp "$ERR" "$TMP/check.err"
for f in su sg both sgnox cap2 cap3 capsu hardlink; do
	t_grep "--check lists a/$f" "^privileged: $T/a/$f: " "$TMP/check.out"
done
t_nogrep "--check does not list a plain file" "/a/plain:" "$TMP/check.out"
t_grep "--check shows the capability text" \
	"a/cap2: mode 00644 capability cap_net_raw=ep" "$TMP/check.out"
t_grep "--check shows the v3 root id" "a/cap3: .*\[rootid=1000\]" "$TMP/check.out"
t_grep "a newline in a name is escaped" "a/new\\\\x0aline: mode 04755" \
	"$TMP/check.out"
t_grep "invalid UTF-8 in a name is escaped" "a/bad\\\\xffutf8: mode 02755" \
	"$TMP/check.out"
t_grep "the device node is reported" "a/null: device node \(char 1:3\)" \
	"$TMP/check.err"
t_grep "the block device is reported" "a/blk: device node \(block 7:200\)" \
	"$TMP/check.err"
t_grep "the setgid directory is reported" "/t/sgd: setgid directory" \
	"$TMP/check.err"
t_grep "the hard link is reported" "a/hardlink: hard link \(2 links\)" \
	"$TMP/check.err"
state "$T" >"$TMP/tree.after"
ok "--check changed nothing" cmp -s "$TMP/tree.before" "$TMP/tree.after"

t_exit 0 "--dry-run exits 0" "$S" --dry-run "$T"
t_grep "--dry-run lists the new mode" "would strip: $T/a/both: mode 06750 -> 00750" \
	"$OUT"
state "$T" >"$TMP/tree.after"
ok "--dry-run changed nothing" cmp -s "$TMP/tree.before" "$TMP/tree.after"

t_exit 0 "--check --json exits 1, one valid JSON object per line" \
	sh -c "'$S' --check --json '$T' >'$TMP/j' 2>/dev/null; [ \$? -eq 1 ] && jq -e . '$TMP/j' >/dev/null"
t_eq "json: cap3 carries its v3 root id" \
	"$(jq -r 'select(.path=="a/cap3") | "\(.cap) \(.cap_version) \(.cap_rootid)"' "$TMP/j")" \
	"cap_net_raw=ep 3 1000"
t_eq "json: escaped names" \
	"$(jq -r 'select(.action=="privileged") | .path' "$TMP/j" | grep -c '\\x')" "2"
t_eq "json: owner, links, mode of a/su" \
	"$(jq -r 'select(.path=="a/su") | "\(.uid):\(.gid) \(.nlink) \(.mode_before)"' "$TMP/j")" \
	"1234:5678 1 04755"
t_eq "json: summary says complete" \
	"$(jq -r 'select(.status) | "\(.status) \(.privileged)"' "$TMP/j")" "complete 10"
# counts FILE: for every summary, its counts against the records of its
# target; prints the summaries that disagree (nothing when all agree).
counts() {
	jq -s -r '. as $all | .[] | select(.status == "complete" or
	    .status == "incomplete") | . as $s |
	    [$all[] | select(.target == $s.target and .action != null)] as $r |
	    {p: ([$r[] | select(.action | IN("privileged", "would-strip",
		"stripped", "strip-failed"))] | length),
	     c: ([$r[] | select(.action | IN("stripped", "chowned"))] | length),
	     r: ([$r[] | select(.action | IN("reported", "pruned-mount",
		"not-chowned-hardlink"))] | length)} |
	    select(.p != $s.privileged or .c != $s.changed or
		.r != $s.reported) |
	    "\($s.target): summary \($s.privileged)/\($s.changed)/\($s.reported)" +
	    " records \(.p)/\(.c)/\(.r)"' "$1"
}
t_eq "json --check: summary counts = records (privileged, changed, reported)" \
	"$(counts "$TMP/j")" ""
t_eq "json --check: reported counts the hard link, the device nodes, the directory" \
	"$(jq -r 'select(.status) | .reported' "$TMP/j")" "4"
t_exit 0 "--dry-run --chown --json" sh -c "'$S' --dry-run --chown 1000:1000 --json '$T' >'$TMP/jd'"
t_eq "json --dry-run --chown: summary counts = records" "$(counts "$TMP/jd")" ""

# The strip itself.
t_exit 0 "strip exits 0" "$S" --json "$T"
cp "$OUT" "$TMP/strip.json"
t_eq "json strip: summary counts = records" "$(counts "$TMP/strip.json")" ""
t_eq "every privileged file was stripped" \
	"$(jq -r 'select(.action=="stripped") | .path' "$TMP/strip.json" | wc -l)" "10"
m() { stat -c %a "$T/a/$1"; }
t_eq "4755 -> 755" "$(m su)" "755"
t_eq "2755 -> 755" "$(m sg)" "755"
t_eq "6750 -> 750" "$(m both)" "750"
t_eq "2644 -> 644 (setgid without group exec)" "$(m sgnox)" "644"
t_eq "4711 + caps -> 711" "$(m capsu)" "711"
t_eq "plain file untouched" "$(m plain)" "755"
t_eq "owner kept" "$(stat -c %u:%g "$T/a/su")" "1234:5678"
t_eq "no capability left in the tree" "$(getcap -r "$T" 2>/dev/null)" ""
t_eq "device node untouched" "$(stat -c '%F %a %t:%T' "$T/a/null")" \
	"character special file 644 1:3"
t_eq "setgid directory untouched" "$(stat -c %a "$T/sgd")" "2775"
t_eq "fifo untouched" "$(stat -c '%F %a' "$T/a/fifo")" "fifo 644"
t_eq "the hard-linked inode was stripped (documented)" \
	"$(stat -c %a "$O/victim")" "755"
t_eq "its capability too (same inode)" "$(getcap "$O/victim")" ""
# Put the shared inode back so the outside comparison covers the rest.
chmod 4755 "$O/victim"; setcap cap_net_raw+ep "$O/victim"
state "$O" >"$TMP/outside.after"
ok "nothing outside changed through the symlinks" \
	cmp -s "$TMP/outside.before" "$TMP/outside.after"
rm "$T/a/hardlink"
t_exit 0 "a second --check is clean" "$S" --check "$T"

# ---- the same strip with the older kernels' calls (/proc/self/fd) ----
F=$W/fallback
mkdir -p "$F/d"
: >"$F/d/su"; chmod 4750 "$F/d/su"; setcap cap_net_raw+ep "$F/d/su"
: >"$F/d/cap"; "$HELP/fcapset" "$F/d/cap" 3 1000
ln -s "$O/victim" "$F/d/sl"
state "$O" >"$TMP/outside.before"
t_exit 1 "fallback: --check finds both" env BORNE_WALK_FALLBACK=1 "$S" --check "$F"
t_grep "fallback: the v3 capability read" "d/cap: .*rootid=1000" "$OUT"
# (LeakSanitizer cannot run under ptrace.  With several threads strace may
# split a call into "<unfinished ...>" and "resumed": match its start only.)
t_exit 0 "fallback: strip" env BORNE_WALK_FALLBACK=1 \
	ASAN_OPTIONS=detect_leaks=0 strace -f -o "$TMP/fb.trace" \
	"$S" "$F"
t_eq "fallback: mode stripped" "$(stat -c %a "$F/d/su")" "750"
t_eq "fallback: capabilities removed" "$(getcap -r "$F")" ""
t_grep "fallback: chmod went through /proc/self/fd" 'chmod\("/proc/self/fd/[0-9]+", 0?750' \
	"$TMP/fb.trace"
t_grep "fallback: removexattr went through /proc/self/fd" \
	'removexattr\("/proc/self/fd/[0-9]+", "security.capability"' "$TMP/fb.trace"
t_grep "fallback: lgetxattr read through /proc/self/fd/DIR/NAME" \
	'lgetxattr\("/proc/self/fd/[0-9]+/su", "security.capability"' "$TMP/fb.trace"
state "$O" >"$TMP/outside.after"
ok "fallback: nothing outside changed" cmp -s "$TMP/outside.before" "$TMP/outside.after"

# ---- --chown ----
C=$W/c
mkdir -p "$C/d"
: >"$C/d/f"; chmod 4755 "$C/d/f"; setcap cap_net_raw+ep "$C/d/f"
: >"$C/d/keep"; chown 1000:1000 "$C/d/keep"
ln -s "$O/victim" "$C/d/sl"
: >"$C/d/h1"; ln "$C/d/h1" "$C/d/h2"
mknod "$C/d/null" c 1 3
state "$O" >"$TMP/outside.before"
t_exit 0 "--dry-run --chown lists what would be chowned" \
	"$S" --dry-run --chown 1000:1001 "$C"
t_grep "would chown the file" "would chown: $C/d/f: 0:0 -> 1000:1001" "$OUT"
t_eq "--dry-run --chown changed nothing" "$(stat -c %u "$C/d/f")" "0"
t_exit 0 "--chown 1000:1001 exits 0" "$S" --chown 1000:1001 "$C"
t_grep "the hard-linked file is reported, not chowned" \
	"d/h1: not chowned: hard link \(2 links\)" "$ERR"
t_eq "root-owned file chowned" "$(stat -c %u:%g "$C/d/f")" "1000:1001"
t_eq "root-owned directory chowned" "$(stat -c %u:%g "$C/d")" "1000:1001"
t_eq "the symlink itself chowned" "$(stat -c %u:%g "$C/d/sl")" "1000:1001"
t_eq "hard-linked file not chowned" "$(stat -c %u "$C/d/h1")" "0"
t_eq "device node not chowned" "$(stat -c %u "$C/d/null")" "0"
t_eq "user file untouched" "$(stat -c %u:%g "$C/d/keep")" "1000:1000"
t_eq "setuid gone (chown, then strip)" "$(stat -c %a "$C/d/f")" "755"
t_eq "capability gone" "$(getcap "$C/d/f")" ""
state "$O" >"$TMP/outside.after"
ok "the symlink's target was not chowned" \
	cmp -s "$TMP/outside.before" "$TMP/outside.after"

# ---- docker inspect scoping ----
R=$W/srv/sbx
mkdir -p "$R/one" "$R/vol" "$W/srv/sbx2/evil" "$R/inner"
: >"$R/one/x"; chmod 4755 "$R/one/x"
: >"$R/vol/y"; chmod 2755 "$R/vol/y"
: >"$W/srv/sbx2/evil/z"; chmod 4755 "$W/srv/sbx2/evil/z"
ln -s "$W/srv/sbx2" "$R/inner/escape"
cat >"$TMP/inspect.json" <<EOF
[{"Id":"c1","Config":{"Labels":{"suidstrip.root":"$W/srv/sbx2"}},
  "HostConfig":{"Tmpfs":{"$W/srv/sbx2/evil":""}},
  "Mounts":[
   {"Type":"bind","Source":"$R/one","Destination":"/w","RW":true},
   {"Type":"volume","Name":"v","Source":"$R/vol","Destination":"/v"},
   {"Type":"tmpfs","Source":"","Destination":"/tmp"},
   {"Type":"bind","Source":"$W/srv/sbx2/evil","Destination":"/e"},
   {"Type":"bind","Source":"$R/inner/escape","Destination":"/s"},
   {"Type":"bind","Source":"$R/missing","Destination":"/m"}]},
 {"Id":"c2","Mounts":[{"Type":"bind","Source":"$R/one","Destination":"/w2"},
   {"Type":"bind","Source":"$R/one/","Destination":"/w3"}]}]
EOF
t_exit 1 "a missing source fails without --missing-ok (exit 1)" \
	sh -c "'$S' --dry-run --inspect - --within '$R' <'$TMP/inspect.json'"
t_grep "with one WARNING naming it" \
	"^suidstrip: WARNING: $R/missing: missing \(not recreated; --missing-ok if expected\)$" "$ERR"
t_exit 0 "--inspect - --within ROOT --missing-ok strips what is under ROOT" \
	sh -c "'$S' --json --missing-ok --inspect - --within '$R' <'$TMP/inspect.json'"
cp "$OUT" "$TMP/insp.out"; cp "$ERR" "$TMP/insp.err"
t_eq "bind mount source stripped" "$(stat -c %a "$R/one/x")" "755"
t_eq "volume source stripped" "$(stat -c %a "$R/vol/y")" "755"
t_eq "/srv/sbx2 is not under /srv/sbx: untouched" \
	"$(stat -c %a "$W/srv/sbx2/evil/z")" "4755"
t_grep "the outside source is reported" "sbx2/evil: skipped: outside every --within root" \
	"$TMP/insp.err"
t_grep "a symlinked source is judged by its real path" \
	"srv/sbx2: skipped: outside" "$TMP/insp.err"
t_grep "a missing source is reported" "$R/missing: skipped: missing" "$TMP/insp.err"
ok "a missing source is not recreated" test ! -e "$R/missing"
t_eq "duplicate sources merged (one summary per target)" \
	"$(jq -r 'select(.status=="complete") | .target' "$TMP/insp.out" | sort | tr '\n' ' ')" \
	"$R/one $R/vol "
printf '[{"Mounts":[],"Mounts":[]}]' >"$TMP/dup.json"
t_exit 2 "duplicate JSON keys are invalid input" \
	"$S" --inspect "$TMP/dup.json" --within "$R"
t_grep "and say so" "invalid docker inspect input: .*duplicate" "$ERR"
printf '{"Mounts":[]}' >"$TMP/obj.json"
t_exit 2 "a non-array document is invalid input" \
	"$S" --inspect "$TMP/obj.json" --within "$R"
printf '[{"Mounts":[{"Type":"bind","Source":"rel/path"}]}]' >"$TMP/rel.json"
t_exit 2 "a relative Source is invalid input" \
	"$S" --inspect "$TMP/rel.json" --within "$R"
printf '[{"Mounts":[{"Type":"bind","Source":"/x\\u0000y"}]}]' >"$TMP/nul.json"
t_exit 2 "a NUL in Source is invalid input" \
	"$S" --inspect "$TMP/nul.json" --within "$R"
: >"$R/single"; chmod 6755 "$R/single"; setcap cap_net_raw+ep "$R/single"
printf '[{"Mounts":[{"Type":"bind","Source":"%s"}]}]' "$R/single" >"$TMP/file.json"
t_exit 0 "a file bind mount (a regular file as Source) is a target too" \
	"$S" --inspect "$TMP/file.json" --within "$R"
t_eq "the file alone is stripped, bits and capability" \
	"$(stat -c %a "$R/single") $(getcap "$R/single")" "755 "
t_exit 0 "a command-line DIR outside --within is skipped, not walked" \
	"$S" --within "$R" "$W/srv/sbx2/evil"
t_eq "and left alone" "$(stat -c %a "$W/srv/sbx2/evil/z")" "4755"

# ---- nested mounts: pruned and reported, never entered ----
N=$W/n
mkdir -p "$N/bindsrc" "$N/tree/samefs" "$N/tree/tmp" "$N/tree/sub" "$TMP/disk"
: >"$N/bindsrc/s"; chmod 4755 "$N/bindsrc/s"
: >"$N/tree/sub/own"; chmod 4755 "$N/tree/sub/own"
: >"$N/filesrc"; chmod 4755 "$N/filesrc"; setcap cap_net_raw+ep "$N/filesrc"
: >"$N/tree/sub/fmount"
mount --bind "$N/bindsrc" "$N/tree/samefs"
mount -t tmpfs tmpfs "$N/tree/tmp"
: >"$N/tree/tmp/t"; chmod 2755 "$N/tree/tmp/t"
mount --bind "$N/filesrc" "$N/tree/sub/fmount"
t_exit 0 "a tree with nested mounts is stripped" "$S" "$N/tree"
t_grep "same-filesystem bind mount pruned and reported" \
	"tree/samefs: nested mount pruned" "$ERR"
t_grep "tmpfs pruned and reported" "tree/tmp: nested mount pruned" "$ERR"
t_grep "file bind mount pruned and reported" "sub/fmount: nested mount pruned" "$ERR"
t_eq "the tree's own file stripped" "$(stat -c %a "$N/tree/sub/own")" "755"
t_eq "bind-mounted directory's file untouched" "$(stat -c %a "$N/bindsrc/s")" "4755"
t_eq "tmpfs file untouched" "$(stat -c %a "$N/tree/tmp/t")" "2755"
t_eq "bind-mounted file untouched" "$(stat -c %a "$N/filesrc")" "4755"
t_eq "bind-mounted file keeps its capability" \
	"$(getcap "$N/filesrc" | sed 's/.* //')" "cap_net_raw=ep"
umount "$N/tree/sub/fmount" "$N/tree/tmp" "$N/tree/samefs"

# ---- --guard ----
G=$W/g
mkdir -p "$G"
t_exit 1 "--check --guard: absent guard is a 'no'" "$S" --check --guard "$G"
t_grep "and is reported" "guard: $G: absent" "$OUT"
t_exit 0 "--guard binds ROOT nosuid,nodev" "$S" --guard "$G"
t_grep "mountinfo shows the guard" "^[0-9]+ [0-9]+ [^ ]+ [^ ]+ $G [^ ]*nosuid,nodev" \
	/proc/self/mountinfo
n1=$(grep -c " $G " /proc/self/mountinfo)
t_exit 0 "--guard again is idempotent" "$S" --guard "$G"
t_eq "no second mount" "$(grep -c " $G " /proc/self/mountinfo)" "$n1"
t_exit 0 "--check --guard: in place" "$S" --check --guard "$G"
t_grep "and is reported" "guard: $G: in place" "$OUT"
t_eq "findmnt agrees: nosuid and nodev" \
	"$(findmnt -n -o OPTIONS -T "$G" | tr ',' '\n' | grep -c -E '^(nosuid|nodev)$')" "2"
umount "$G"
# A mount point with one of the two is no guard: nosuid alone leaves the
# payload's device nodes working; then --guard adds nodev to it.
mkdir -p "$G"
mount -t tmpfs -o nosuid tmpfs "$G" || fail "a nosuid tmpfs"
at_exit "umount -l '$G' 2>/dev/null"
t_exit 1 "--check --guard on a mount nosuid but not nodev: a 'no'" \
	"$S" --check --guard "$G"
t_grep "  reported absent" "guard: $G: absent" "$OUT"
t_exit 0 "--guard on it" "$S" --guard "$G"
t_eq "  findmnt: nosuid and nodev now" \
	"$(findmnt -n -o OPTIONS -T "$G" | tr ',' '\n' | grep -c -E '^(nosuid|nodev)$')" "2"
umount "$G"

# ---- budget: a huge tree, 1 s ----
B=$W/big
mkdir -p "$B"
ok "made $NFILES empty files" "$HELP/mkmany" "$B" "$NFILES" 2000
# stalled CMD...: CMD, stopped for 1.5 s early in its walk (SIGSTOP; the
# monotonic clock runs on), so that a 1 s budget is spent however fast
# this machine walks (an idle one walked the whole tree within 1 s).
# walking PID: PID has a descriptor open in the tree (its walk began).
walking() { ls -l "/proc/$1/fd" 2>/dev/null | grep -qF -- " -> $B"; }
stalled() {
	"$@" &
	sp=$!
	wait_for -t 10 walking "$sp"
	kill -STOP "$sp" 2>/dev/null
	sleep 1.5
	kill -CONT "$sp" 2>/dev/null
	wait "$sp"
}
t_exit 1 "a 1 s budget on $NFILES files is exceeded: exit 1" \
	stalled "$S" --json --budget 1 "$B"
t_eq "exactly one WARNING line" "$(grep -c WARNING "$ERR")" "1"
t_grep "naming the target and the budget" \
	"^suidstrip: WARNING: $B: strip incomplete: budget of 1 s spent$" "$ERR"
t_eq "json summary status is incomplete" \
	"$(jq -r 'select(.status) | .status' "$OUT")" "incomplete"
t_nogrep "no progress line when stderr is not a tty" "entries scanned" "$ERR"
# script(1) stops itself when its child stops: both are continued.
(
	found() { p=$(pgrep -f -x -- "$S --check --budget 3 $B") && walking "$p"; }
	wait_for -t 10 found || exit 0
	pp=$(ps -o ppid= -p "$p")
	kill -STOP "$p"
	sleep 1.5
	kill -CONT "$p" $pp
) >/dev/null 2>&1 &
sp=$!
script -q -e -c "'$S' --check --budget 3 '$B'" /dev/null >"$TMP/tty.out" 2>&1
wait "$sp"
t_grep "progress on a terminal for a walk longer than 1 s" \
	"entries scanned, [0-9]+/s" "$TMP/tty.out"
t_exit 1 "--chown with a spent budget warns once too" \
	stalled "$S" --chown 1000:1000 --budget 1 "$B"
t_eq "one WARNING for both steps" "$(grep -c WARNING "$ERR")" "1"
t_grep "naming the restore step" \
	"WARNING: $B: ownership restore incomplete: budget of 1 s spent" "$ERR"
rm -rf "$B"

# ---- immutable file: EPERM is a WARNING, not silence ----
# chattr +i needs a filesystem that has it (tmpfs has not): $TMP's.
mkdir -p "$TMP/ext"
: >"$TMP/ext/i"; chmod 4755 "$TMP/ext/i"
if chattr +i "$TMP/ext/i" 2>/dev/null; then
	at_exit "chattr -i '$TMP/ext/i' 2>/dev/null"
	t_exit 1 "an immutable setuid file: exit 1" "$S" "$TMP/ext"
	t_grep "WARNING names the target and the cause" \
		"WARNING: $TMP/ext: strip incomplete: $TMP/ext/i: chmod: Operation not permitted" "$ERR"
	chattr -i "$TMP/ext/i"
else
	skip "immutable file" "chattr +i unsupported on $TMP"
fi

# ---- races: a swapper exchanges tree entries with symlinks outside ----
# $K trees, each with a directory, a file and a deeper directory that the
# swapper keeps exchanging (renameat2 RENAME_EXCHANGE) with symlinks into
# an outside tree full of setuid/capability files; every suidstrip run
# walks the $K trees (one walk per target, two with --chown), so a run
# is $K race iterations.
X=$W/race
RO=$W/race-out
K=4
mkdir -p "$RO/d"
for i in 1 2 3 4 5 6 7 8; do
	: >"$RO/d/x$i"; chmod 4755 "$RO/d/x$i"; setcap cap_net_raw+ep "$RO/d/x$i"
done
: >"$RO/f"; chmod 6755 "$RO/f"; setcap cap_net_raw+ep "$RO/f"
pairs= rearm= targets=
k=1
while [ $k -le $K ]; do
	mkdir -p "$X/t$k/d" "$X/t$k/deep/er"
	for i in 1 2 3 4 5 6 7 8; do
		: >"$X/t$k/d/x$i"; chmod 4755 "$X/t$k/d/x$i"
	done
	: >"$X/t$k/f"; chmod 4755 "$X/t$k/f"
	ln -s "$RO/d" "$X/t$k/dl"
	ln -s "$RO/f" "$X/t$k/fl"
	ln -s "$RO" "$X/t$k/deepl"
	ln -s "$RO" "$X/t$k/rootl"
	pairs="$pairs t$k/d t$k/dl t$k/f t$k/fl t$k/deep t$k/deepl"
	rearm="$rearm t$k/d/x1 t$k/d/x2 t$k/f t$k/deep/er"
	targets="$targets $X/t$k"
	k=$((k + 1))
done
state "$RO" >"$TMP/race.before"
# shellcheck disable=SC2086
"$HELP/swapper" "$X" $pairs -- $rearm >"$TMP/swaps" &
SW=$!
at_exit "kill_ours $SW 2>/dev/null"
# Leak checking at exit costs more than the walk itself here.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
i=0; bad=0; warned=0
t0=$(date +%s)
while [ $i -lt "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	case $((i % 3)) in
	0) "$S" --budget 5 $targets >/dev/null 2>"$TMP/race.err" ;;
	1) "$S" --budget 5 --dry-run $targets >/dev/null 2>"$TMP/race.err" ;;
	*) "$S" --budget 5 --chown 1000:1000 $targets >/dev/null 2>"$TMP/race.err" ;;
	esac
	rc=$?
	case $rc in
	0) ;;
	1) warned=$((warned + 1)) ;;
	*) bad=$((bad + 1)); diag "round $i: exit $rc"; diag_file "$TMP/race.err" ;;
	esac
	i=$((i + 1))
done
kill -TERM $SW; wait $SW
unset ASAN_OPTIONS
note "race: $ROUNDS runs x $K targets = $((ROUNDS * K)) walks in $(($(date +%s) - t0)) s," \
	"$(cat "$TMP/swaps") exchanges, $warned runs saw a change (WARNING)"
t_eq "race: every run exited 0 or 1 (no crash)" "$bad" "0"
ok "race: the swapper really swapped" test "$(cat "$TMP/swaps")" -gt 1000
state "$RO" >"$TMP/race.after"
ok "race: not one file outside the trees changed (mode, owner, caps)" \
	cmp -s "$TMP/race.before" "$TMP/race.after"
diff "$TMP/race.before" "$TMP/race.after" | head -5 | sed 's/^/# /'
# shellcheck disable=SC2086
t_exit 0 "race: once the swapper stops, a strip completes" "$S" $targets
# shellcheck disable=SC2086
t_exit 0 "race: and --check is clean" "$S" --check $targets

done_testing
