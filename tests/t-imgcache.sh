#!/bin/sh
# imgcache: confexec's cache of sealed images (common/imgcache.c).  The
# seal's guarantee, shown with selfhash (it prints the SHA-256 of the bytes
# it executes, read back through /proc/self/exe, and where they are):
#   - the first launch fills the cache, later launches read no byte of the
#     source (no sendfile, no memfd) and run the immutable copy;
#   - a source changed between runs: the new version runs;
#   - a pin against a cached image of another version: refused, unread;
#   - a writer racing the fill: every run executes a complete version, the
#     one whose digest is journaled; the cache never holds a torn copy;
#   - from inside a run, even one granted write access over the cache
#     directory, no cached image can be written, truncated, chmod'ed,
#     renamed, replaced, linked or unlinked (exact errno), and on the host
#     its bytes, mode, times and flags are unchanged;
#   - an unusable cache directory (mode, owner, read-only, noexec, no
#     immutable flag) is not used: the run goes on from a private sealed
#     copy and says so on stderr;
#   - a uid-switched payload executes the 0555 image.
# Eviction is proven by the unit test (tests/unit/imgcache.c).
. "$(dirname "$0")/lib.sh"

needs root landlock=1 cgroup2 strace
# (LeakSanitizer cannot run under ptrace: a sanitized confexec traced by
# strace runs with leak detection off.)
need_cmd lsattr
need_cmd chattr
need_cmd unshare
need_cmd flock
need_cmd setpriv

C=$TMP/cache
D=$TMP/bin
mkdir -m 700 "$C"
mkdir "$D"
# The test's cache is immutable: cleared so that it can be removed.
at_exit "chattr -R -i '$C' 2>/dev/null"

# Can the filesystem of $TMP hold an immutable file at all?  (What to
# expect is asked of the host, not assumed.)
: >"$TMP/.imm"
if chattr +i "$TMP/.imm" 2>/dev/null; then
	chattr -i "$TMP/.imm"
else
	skip_all "the filesystem of $TMP has no immutable flag"
fi
rm -f "$TMP/.imm"

sha() { sha256sum "$1" | cut -c1-64; }
# Two versions of one program: B is A with bytes appended (still an ELF).
cp "$HELP/selfhash" "$D/A"
cp "$D/A" "$D/B"
printf 'another version' >>"$D/B"
cp "$HELP/imgtamper" "$D/imgtamper"
da=$(sha "$D/A")
db=$(sha "$D/B")
dt=$(sha "$D/imgtamper")
for p in prog pinned twin1 twin2; do cp "$D/A" "$D/$p"; done
# Eight sources of their own contents, deleted after their launches.
for i in 1 2 3 4 5 6 7 8; do
	{ cat "$D/A"; printf 'gone-%d' "$i"; } >"$D/gone$i"
	chmod 755 "$D/gone$i"
done
cp "$D/B" "$D/later"
# A source whose ctime is this recent is never indexed (a later write in
# the same timestamp tick could hide): age them once.
sleep 4

# /proc and ASAN_OPTIONS: the sanitized helpers (asan build) need /proc
# at exit; the other builds ignore both.
BASE="--rox /usr --rox /lib --rox /lib64 --ro /etc --ro /proc --rox $D --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0"
cx() { "$CX" --image-cache "$C" "$@"; }

# ---- first launch, then hits ------------------------------------------
plan -- "$D/prog" >"$TMP/p.prog"
t_exit 0 "first launch runs" sh -c "'$CX' --image-cache '$C' <'$TMP/p.prog'"
t_eq "it executed A's bytes" "$(cut -d' ' -f1 "$OUT")" "$da"
t_eq "from the cached image named by A's digest" \
    "$(cut -d' ' -f2 "$OUT")" "$C/$da"
t_eq "the image is root:root 0555 with one link" \
    "$(stat -c %u:%g:%a:%h "$C/$da")" "0:0:555:1"
lsattr -d "$C/$da" >"$TMP/attr" 2>&1
t_grep "the image is immutable" '^[^ ]*i[^ ]* ' "$TMP/attr"
t_eq "the image's bytes are A's" "$(sha "$C/$da")" "$da"
set -- "$C"/i-*
t_eq "one index entry, for the path, naming that image" \
    "$(cut -d' ' -f2 "$1" | head -n 1; tail -n 1 "$1")" "$da
$D/prog"
t_eq "named by the path's digest" "${1##*/}" \
    "i-$(printf %s "$D/prog" | sha256sum | cut -c1-64)"
t_eq "the index entry is root:root 0444" "$(stat -c %u:%g:%a "$1")" "0:0:444"

ASAN_OPTIONS=detect_leaks=0 strace -f -o "$TMP/st" -e trace=sendfile,memfd_create,execveat \
    "$CX" --image-cache "$C" <"$TMP/p.prog" >"$OUT" 2>"$ERR"
t_eq "a second launch runs A from the cache" "$(cat "$OUT")" \
    "$da $C/$da"
t_nogrep "a hit copies nothing (no sendfile)" 'sendfile\(' "$TMP/st"
t_nogrep "a hit makes no memfd" 'memfd_create\(' "$TMP/st"
t_grep "the payload is executed through the fd" \
    'execveat\([0-9]+, "", .*AT_EMPTY_PATH\) = 0' "$TMP/st"
t_eq "still one image and one index entry" "$(ls "$C" | wc -l)" 2

# ---- --no-image-cache ---------------------------------------------------
t_exit 0 "--no-image-cache runs" sh -c \
    "'$CX' --no-image-cache <'$TMP/p.prog'"
t_eq "from a sealed memfd" "$(cat "$OUT")" \
    "$da /memfd:borne-image_(deleted)"
t_exit 125 "--image-cache with a relative path is refused" sh -c \
    "'$CX' --image-cache rel/dir <'$TMP/p.prog'"

# ---- the source changes between runs -------------------------------------
cat "$D/B" >"$D/prog"	# in place: same inode, new size and times
t_exit 0 "the source rewritten in place runs" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.prog'"
t_eq "the new version ran, from its own image" "$(cat "$OUT")" \
    "$db $C/$db"
cp "$D/A" "$D/prog.new"
mv "$D/prog.new" "$D/prog"	# replaced: a new inode
t_exit 0 "the source replaced by rename runs" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.prog'"
t_eq "the replacing version ran" "$(cat "$OUT")" "$da $C/$da"

# ---- a pin against a cached image of another version ---------------------
plan -- "$D/pinned" >"$TMP/p.pinned"
t_exit 0 "the pinned path is cached and indexed" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.pinned'"
plan --sha256 "$db" -- "$D/pinned" >"$TMP/p.wrongpin"
ASAN_OPTIONS=detect_leaks=0 strace -f -o "$TMP/st" -e trace=sendfile,memfd_create \
    "$CX" --image-cache "$C" <"$TMP/p.wrongpin" >"$OUT" 2>"$ERR"
t_eq "a pin of another version is refused (125)" "$?" 125
t_grep "the refusal names the pin" 'differs from the pinned digest' "$ERR"
t_nogrep "decided from the cache: the source was not read" \
    'sendfile\(|memfd_create\(' "$TMP/st"
plan --sha256 "$da" -- "$D/pinned" >"$TMP/p.rightpin"
t_exit 0 "the right pin runs from the cache" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.rightpin'"
t_eq "A ran" "$(cat "$OUT")" "$da $C/$da"

# ---- tampering from inside a run -----------------------------------------
snap() {
	{ stat -c '%a %u %g %h %s %Y %Z' "$1"; lsattr -d "$1"; sha "$1"; } 2>&1
}
I=$C/$da
before=$(snap "$I")
plan -- "$D/imgtamper" "$I" >"$TMP/p.t1"
t_exit 0 "inside a run no attempt on a cached image succeeds" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.t1'"
# Outside every rule the cache is not in the run's view: every route by
# path is ENOENT; /proc/self/exe, the image itself, meets the immutable
# flag (EPERM).
cat >"$TMP/want1" <<'EOF'
open-write ENOENT
open-rdwr ENOENT
truncate ENOENT
chmod ENOENT
chown ENOENT
setxattr ENOENT
rename ENOENT
link ENOENT
unlink ENOENT
create-beside ENOENT
open-read ENOENT
self-exe-write EPERM
EOF
t_eq "outside every rule: not in the view (ENOENT), the image immutable (EPERM)" \
    "$(cat "$OUT")" "$(cat "$TMP/want1")"
# Granted read-only: the read-only view (EROFS) and the immutable flag
# (EPERM); a read is granted.
plan --ro "$C" -- "$D/imgtamper" "$I" >"$TMP/p.t1r"
t_exit 0 "granted read access over the cache, no attempt succeeds" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.t1r'"
cat >"$TMP/want1r" <<'EOF'
open-write EPERM
open-rdwr EPERM
truncate EPERM
chmod EROFS
chown EROFS
setxattr EROFS
rename EROFS
link EROFS
unlink EROFS
create-beside EROFS
clear-immutable EROFS
self-exe-write EPERM
EOF
t_eq "immutable (EPERM), the read-only view (EROFS)" \
    "$(cat "$OUT")" "$(cat "$TMP/want1r")"
plan --rw "$C" -- "$D/imgtamper" "$I" >"$TMP/p.t2"
t_exit 0 "granted write access over the cache, still no attempt succeeds" \
    sh -c "'$CX' --image-cache '$C' <'$TMP/p.t2'"
cat >"$TMP/want2" <<'EOF'
open-write EPERM
open-rdwr EPERM
truncate EPERM
chmod EPERM
chown EPERM
setxattr EPERM
rename EPERM
link EPERM
unlink EPERM
create-beside ok
rename-over EPERM
clear-immutable EPERM
self-exe-write EPERM
EOF
t_eq "every change to the image is EPERM (FS_IMMUTABLE_FL)" \
    "$(cat "$OUT")" "$(cat "$TMP/want2")"
t_eq "host side: the image's bytes, mode, owner, times, flags unchanged" \
    "$(snap "$I")" "$before"
t_exit 0 "and the cache still serves it" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.prog'"
t_eq "A's bytes" "$(cat "$OUT")" "$da $I"

# ---- a writer racing the fill --------------------------------------------
# check_runs N JOURNAL: each run's output line against the journal's
# program_sha256 of the same run, in order.
check_runs() {
	grep -o '"program_sha256":"[0-9a-f]*"' "$2" | cut -d'"' -f4 >"$TMP/jd"
	cut -d' ' -f1 "$TMP/runs" >"$TMP/rd"
	t_eq "$1: each run executed the bytes its journal names" \
	    "$(cat "$TMP/rd")" "$(cat "$TMP/jd")"
}
# cache_sound: every image (<hex>) hashes to <hex>, and is A, B or
# imgtamper.
cache_sound() {
	bad=
	for f in "$C"/*; do
		n=${f##*/}
		case $n in i-*) continue ;; esac
		x=$(printf %s "$n" | tail -c 64)
		h=$(sha "$f")
		[ "$h" = "$x" ] || bad="$bad $n(holds $h)"
		case $x in "$da"|"$db"|"$dt") ;; *) bad="$bad $n(torn)" ;; esac
	done
	t_eq "$1: every cached image is a complete version, named by its digest" \
	    "$bad" ""
}
cp "$D/A" "$D/race"
plan -- "$D/race" >"$TMP/p.race"
(
	while [ ! -e "$TMP/stop" ]; do
		cp "$D/B" "$D/race.t" && mv "$D/race.t" "$D/race"
		cp "$D/A" "$D/race.t" && mv "$D/race.t" "$D/race"
	done
) &
wpid=$!
: >"$TMP/runs"
rc=0
i=0
while [ $i -lt 30 ]; do
	"$CX" --image-cache "$C" --journal "$TMP/j.race" <"$TMP/p.race" \
	    >>"$TMP/runs" 2>>"$TMP/race.err" || rc=$?
	i=$((i + 1))
done
touch "$TMP/stop"
wait $wpid
rm -f "$TMP/stop"
cp "$TMP/race.err" "$TMP/race1.err"
t_eq "replaced under a racing writer: 30 runs exit 0" "$rc" 0
[ "$rc" -eq 0 ] || { diag "what the runs said:"; diag_file "$TMP/race1.err" 40; }
t_eq "each run executed A or B, whole" \
    "$(cut -d' ' -f1 "$TMP/runs" | grep -cvE "^($da|$db)\$")" 0
check_runs "replaced under a racing writer" "$TMP/j.race"
cache_sound "replaced under a racing writer"

# In place: a reader may see the file mid-write (that is the writer's
# doing); what runs is still exactly what the journal names, and a copy
# that could be torn never enters the cache (the read lease).
cp "$D/A" "$D/inplace"
plan -- "$D/inplace" >"$TMP/p.inplace"
(
	while [ ! -e "$TMP/stop" ]; do
		cat "$D/B" >"$D/inplace"
		cat "$D/A" >"$D/inplace"
	done
) &
wpid=$!
: >"$TMP/runs"
: >"$TMP/j.inplace"
i=0
while [ $i -lt 30 ]; do
	"$CX" --image-cache "$C" --journal "$TMP/j.one" <"$TMP/p.inplace" \
	    >"$TMP/one" 2>>"$TMP/race.err"
	# Runs that executed (exit 0, one line) are compared; a run that met
	# a half-written file is refused (126) or fails, and says so.
	if [ $? -eq 0 ] && [ -s "$TMP/one" ]; then
		cat "$TMP/one" >>"$TMP/runs"
		grep '"event":"start"' "$TMP/j.one" | tail -n 1 >>"$TMP/j.inplace"
	fi
	rm -f "$TMP/j.one"
	i=$((i + 1))
done
touch "$TMP/stop"
wait $wpid
note "in place: $(wc -l <"$TMP/runs") of 30 runs executed; the others:" \
    "$(sort "$TMP/race.err" | uniq -c)"
check_runs "rewritten in place under a racing writer" "$TMP/j.inplace"
t_eq "runs served from the cache executed A or B, whole" \
    "$(grep " $C/" "$TMP/runs" | cut -d' ' -f1 | grep -cvE "^($da|$db)\$")" 0
cache_sound "rewritten in place under a racing writer"

# ---- one image per distinct content --------------------------------------
nimg() { ls "$C" | grep -cv '^i-'; }
nidx() { ls "$C" | grep -c '^i-'; }
n0=$(nimg)
i0=$(nidx)
for p in twin1 twin2; do
	plan -- "$D/$p" >"$TMP/p.$p"
	"$CX" --image-cache "$C" <"$TMP/p.$p" >"$OUT" 2>"$ERR"
	t_eq "$p (A's bytes under another name) runs A's image" \
	    "$(cat "$OUT")" "$da $C/$da"
done
t_eq "the same bytes under two more names: no image more" "$(nimg)" "$n0"
t_eq "two index entries more, one a name" "$(nidx)" "$((i0 + 2))"

# ---- the index is bounded: entries of deleted sources go -----------------
i0=$(nidx)
for i in 1 2 3 4 5 6 7 8; do
	plan -- "$D/gone$i" >"$TMP/p.gone$i"
	"$CX" --image-cache "$C" <"$TMP/p.gone$i" >"$OUT" 2>"$ERR" ||
	    diag "gone$i: $(cat "$ERR")"
done
t_eq "8 sources indexed" "$(nidx)" "$((i0 + 8))"
rm -f "$D"/gone?
# Meanwhile a process without capabilities (as a root payload under
# --ro / could) holds a lock on the cache directory: the sweep does not
# lock the directory, and its own lock (.lock, mode 0000, immutable) that
# process cannot open.
NOCAP="setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all --"
$NOCAP flock "$C" sh -c "echo \$\$ >'$TMP/locked'; exec sleep 300" &
lpid=$!
wait_for test -s "$TMP/locked"
spid=$(cat "$TMP/locked")
at_exit "kill $lpid $spid 2>/dev/null"
plan -- "$D/later" >"$TMP/p.later"
t_exit 0 "a later fill, the directory locked" \
    sh -c "'$CX' --image-cache '$C' <'$TMP/p.later'"
t_exit 66 "the sweep's lock cannot be opened without capabilities" \
    $NOCAP flock -n "$C/.lock" true
kill "$spid" "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null
t_eq "after it, none of the 8 deleted sources' entries is left" \
    "$(nidx)" "$((i0 + 1))"
for i in 1 2 3 4 5 6 7 8; do
	h=$(printf %s "$D/gone$i" | sha256sum | cut -c1-64)
	[ ! -e "$C/i-$h" ] || diag "gone$i: its entry i-$h is still there"
done

# ---- a writer racing every fill ------------------------------------------
# RACE_FILLS (default 1000) programs of their own bytes (selfhash, then a
# trailer: tests/helpers/variants.c), each launched once with its pin: every launch is a fill.  A
# process without capabilities (uid 0: the owner of every entry) watches
# the cache and, on each new name, makes it writable and opens it for
# writing until it is immutable, then overwrites its last 8 bytes (the
# trailer: the program still runs, and prints the digest of what it
# executes).  Host side: each pinned launch printed its pin.
# (A sanitized selfhash is 1.3 MB: 200 of them there.)
[ "$VARIANT" = asan ] && RACE_FILLS=${RACE_FILLS:-200}
RACE_FILLS=${RACE_FILLS:-1000}
R=$D/fills
mkdir "$R"
t_exit 0 "$RACE_FILLS programs of their own bytes" \
    "$HELP/variants" "$HELP/selfhash" "$R" "$RACE_FILLS"
# The plans: one from planenc, the others the same with their program,
# argument and pin (the keys planenc wrote, in its order).
sha256sum "$R"/v* | cut -c1-64 >"$TMP/race.want"
plan --sha256 "$(head -n 1 "$TMP/race.want")" -- "$R/v00000" >"$TMP/rp.tmpl"
ls "$R"/v* | paste -d' ' "$TMP/race.want" - | awk -v t="$TMP/rp.tmpl" \
    -v o="$TMP/rp" '{
	f = o NR - 1
	while ((getline l < t) > 0) {
		if (l ~ /^program /) l = "program " $2
		else if (l ~ /^arg /) l = "arg " $2
		else if (l ~ /^sha256 /) l = "sha256 " $1
		print l > f
	}
	close(t); close(f)
}'
setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all \
    --no-new-privs -- "$HELP/imgrace" "$C" >"$TMP/race.att" 2>&1 &
apid=$!
at_exit "kill $apid 2>/dev/null"
wait_for grep -q '^ready$' "$TMP/race.att"
t_grep "the writer watches the cache" '^ready$' "$TMP/race.att"
t_grep "host side: the writer has no capability" \
    '^CapEff:[[:space:]]*0000000000000000$' "/proc/$apid/status"
t_eq "host side: the writer is uid 0" \
    "$(awk '/^Uid:/ { print $2 }' "/proc/$apid/status")" 0
# Two streams of launches (two cores), each its own half of the programs.
race_stream() {
	i=$1
	while [ "$i" -lt "$RACE_FILLS" ]; do
		out=$("$CX" --image-cache "$C" <"$TMP/rp$i" 2>>"$TMP/race.err$1") ||
		    echo "v$i exit $?" >>"$TMP/race.rc$1"
		printf '%05d %s\n' "$i" "$out" >>"$TMP/race.out$1"
		i=$((i + 2))
	done
}
for f in rc0 rc1 out0 out1 err0 err1; do : >"$TMP/race.$f"; done
t0=$(date +%s)
race_stream 0 &
s0=$!
race_stream 1
wait "$s0"
kill "$apid"
wait "$apid" 2>/dev/null
cat "$TMP/race.err0" "$TMP/race.err1" >"$TMP/race.err"
cat "$TMP/race.rc0" "$TMP/race.rc1" >"$TMP/race.rc"
sort "$TMP/race.out0" "$TMP/race.out1" | cut -d' ' -f2 >"$TMP/race.got"
note "$RACE_FILLS racing fills in $(($(date +%s) - t0)) s"
t_eq "$RACE_FILLS pinned launches under the writer: each exited 0" \
    "$(cat "$TMP/race.rc")" ""
[ ! -s "$TMP/race.rc" ] || diag "what they said:" "$(sort "$TMP/race.err" |
    uniq -c | head -n 5)"
bad=$(paste -d' ' "$TMP/race.want" "$TMP/race.got" | awk '$1 != $2' | wc -l)
t_eq "host side: 0 pinned launches executed bytes other than their pin" \
    "$bad" 0
t_eq "host side: every launch printed one line" \
    "$(wc -l <"$TMP/race.got")" "$(wc -l <"$TMP/race.want")"
[ "$bad" -eq 0 ] || diag "what ran:" "$(paste -d' ' "$TMP/race.want" \
    "$TMP/race.got" | awk '$1 != $2' | head -n 5)"
# (One sha256sum for all: a process per image costs seconds on a loaded
# machine.)
bad=$(ls "$C" | grep -v '^i-' | sed "s|^|$C/|" | xargs -r sha256sum |
    awk '{ n = $2; sub(/.*\//, "", n); if (substr(n, length(n) - 63) != $1)
	print n }')
t_eq "host side: every cached image hashes to its name" "$bad" ""
note "the writer opened $(grep -c '^opened ' "$TMP/race.att") new entries" \
    "for writing before they were sealed and wrote" \
    "$(grep -c '^wrote ' "$TMP/race.att"); $(grep -c 'before it was sealed' \
    "$TMP/race.err") launches sealed a private copy instead"

# The same writer as a payload whose plan grants it rw over the cache (the
# kernel's view and Landlock let it write there): 50 fills of contents of
# their own (B's bytes and a trailer).
R2=$D/fills2
mkdir "$R2"
t_exit 0 "50 more programs" "$HELP/variants" "$D/B" "$R2" 50
sha256sum "$R2"/v* | cut -c1-64 >"$TMP/race2.want"
plan --rox "$HELP" --rw "$C" --timeout 600s -- "$HELP/imgrace" "$C" \
    >"$TMP/p.att"
"$CX" --image-cache "$C" <"$TMP/p.att" >"$TMP/race2.att" 2>&1 &
cpid=$!
at_exit "kill $cpid 2>/dev/null"
wait_for grep -q '^ready$' "$TMP/race2.att"
t_grep "the writer, a payload with rw over the cache, watches it" '^ready$' \
    "$TMP/race2.att"
: >"$TMP/race2.got"
: >"$TMP/race2.rc"
i=0
for f in "$R2"/v*; do
	i=$((i + 1))
	pin=$(sed -n "${i}p" "$TMP/race2.want")
	plan --sha256 "$pin" -- "$f" >"$TMP/rq"
	out=$("$CX" --image-cache "$C" <"$TMP/rq" 2>>"$TMP/race2.err") ||
	    echo "$f exit $?" >>"$TMP/race2.rc"
	echo "${out%% *}" >>"$TMP/race2.got"
done
kill "$cpid"
wait "$cpid" 2>/dev/null
t_eq "50 pinned launches under the payload writer: each exited 0" \
    "$(cat "$TMP/race2.rc")" ""
t_eq "host side: each printed its pin" "$(cat "$TMP/race2.got")" \
    "$(cat "$TMP/race2.want")"
note "the payload writer opened $(grep -c '^opened ' "$TMP/race2.att")" \
    "of 50 new entries before they were sealed"

# ---- an unusable cache directory: the run goes on, and says so ----------
mkdir -m 755 "$TMP/c755"
t_exit 0 "a cache directory of mode 0755: the run goes on" sh -c \
    "'$CX' --image-cache '$TMP/c755' <'$TMP/p.prog'"
t_eq "from a private sealed copy" "$(cat "$OUT")" \
    "$da /memfd:borne-image_(deleted)"
t_grep "and says why, once" \
    "^confexec: image cache $TMP/c755: owner 0:0 mode 0755, not root:root 0700; sealing a private copy\$" \
    "$ERR"
t_eq "nothing was written there" "$(ls "$TMP/c755" | wc -l)" 0
mkdir -m 700 "$TMP/cown"
chown 1:1 "$TMP/cown"
t_exit 0 "a cache directory owned by another user: the run goes on" sh -c \
    "'$CX' --image-cache '$TMP/cown' <'$TMP/p.prog'"
t_grep "and says why" 'owner 1:1 mode 0700, not root:root 0700' "$ERR"
t_eq "nothing was written there" "$(ls "$TMP/cown" | wc -l)" 0

# Filesystems that cannot hold the cache, in a private mount namespace.
M=$TMP/mnt
mkdir "$M"
fsrun() {	# fsrun TYPE OPTS REMOUNT: mount, make the cache dir, run
	unshare -m sh -c "mount --make-rprivate / &&
	    mount -t $1 -o '$2' borne-ic '$M' && mkdir -m 700 '$M/c' &&
	    { [ -z '$3' ] || mount -o remount,$3 '$M'; } &&
	    '$CX' --image-cache '$M/c' <'$TMP/p.prog'; r=\$?;
	    ls '$M/c' | wc -l >'$TMP/fs.n'; exit \$r"
}
t_exit 0 "a read-only cache filesystem: the run goes on" fsrun tmpfs rw ro
t_eq "from a private sealed copy" "$(cat "$OUT")" \
    "$da /memfd:borne-image_(deleted)"
t_grep "and says why" \
    '^confexec: image cache: cannot add an image: Read-only file system; sealing a private copy$' \
    "$ERR"
t_exit 0 "a noexec cache filesystem: the run goes on" fsrun tmpfs noexec ""
t_grep "and says why" 'is mounted noexec; sealing a private copy$' "$ERR"
t_exit 0 "a filesystem without the immutable flag (ramfs): the run goes on" \
    fsrun ramfs rw ""
t_eq "from a private sealed copy" "$(cat "$OUT")" \
    "$da /memfd:borne-image_(deleted)"
t_grep "and says why" 'has no immutable flag: .*; sealing a private copy$' \
    "$ERR"
t_eq "no mutable image is left there" "$(cat "$TMP/fs.n")" 0

# ---- not admitted: never cached ------------------------------------------
printf '#!/bin/sh\nexit 0\n' >"$D/script"
printf 'not an executable' >"$D/data"
chmod 755 "$D/script" "$D/data"
n=$(ls "$C" | wc -l)
# A plan written by hand (planenc makes a script's interpreter the
# program): the plan of another file, renamed.
plan -- "$D/data" | sed "s|$D/data|$D/script|" >"$TMP/p.script"
t_exit 126 "a #! script is refused through the cache too (126)" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.script'"
t_grep "naming why and what planenc does" 'scripts \(#!\) cannot run from a sealed image; planenc makes a #! PROGRAM.s interpreter the program' "$ERR"
plan -- "$D/data" >"$TMP/p.data"
t_exit 126 "a file that is not ELF is refused (126)" sh -c \
    "'$CX' --image-cache '$C' <'$TMP/p.data'"
t_eq "neither entered the cache" "$(ls "$C" | wc -l)" "$n"

# ---- a uid-switched payload executes the 0555 image ----------------------
if subid_lock; then
	subid_add
	plan --uid 100000 --gid 100000 -- "$D/prog" >"$TMP/p.uid"
	t_exit 0 "a payload switched to uid 100000 runs the cached image" \
	    sh -c "'$CX' --image-cache '$C' <'$TMP/p.uid'"
	t_eq "A's bytes, from the cache" "$(cat "$OUT")" "$da $C/$da"
	subid_restore
	subid_unlock
else
	skip "a uid-switched payload runs the cached image" "subid lock busy"
fi

done_testing
