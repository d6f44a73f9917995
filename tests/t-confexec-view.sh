#!/bin/sh
# confexec's view of the host for a root caller: the payload in mount, IPC
# and (without a host TCP right) network namespaces of its own.  Every
# mount read-only, nosuid, nodev but the --rw rules; a fresh procfs of the
# run's pid namespace; --tmp a tmpfs of the run's namespace; SysV IPC in
# the run's namespace; abstract unix names in the run's network.  Each
# point proved from inside (the exact errno a helper got) and from the
# host (the file, the IPC table, the socket table unchanged), and the
# metadata work beneath --rw (tar x, cp -a, install -m, chmod +x, touch
# -d, setfacl, lchmod) done by the kernel natively.
. "$(dirname "$0")/lib.sh"

needs root landlock=6 cgroup2 python3 getfattr setfattr lsattr ipcmk ipcs \
	ipcrm ss jq tar mkfifo

# The system, read and executed; /lib and /lib64 may be symlinks into
# /usr (merged /usr): the plans accept that.
SYS=$ROOTFS
A=$HELP/root-attack
V=$HELP/view-probe
[ -x "$V" ] || skip_all "no view-probe helper (make helpers)"
W=$TMP/work		# the --rw work tree
O=$TMP/outside		# outside every rule
R=$TMP/ro		# a --ro tree
mkdir -p "$W" "$O" "$R"
EXTRA=
# The sanitizer runtime reads /proc/self/maps and must stay quiet.
[ "$VARIANT" = asan ] && EXTRA="--ro /proc"
PROC="--ro /proc"
[ -n "$EXTRA" ] && PROC=	# the asan build has it already
# The payload's python3: the host's interpreter itself (not a shim
# script), its prefix granted when it is not beneath /usr.
PY=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
PYRULES=
case $PY in
/usr/*) ;;
*) PYRULES="--rox $(python3 -c 'import os, sys
print(os.path.realpath(sys.base_prefix))')" ;;
esac

# cx [PLANENC-OPTION...] -- PROGRAM [ARG...]: the libraries, the helpers,
# the work tree read-write, the --ro tree, run by confexec (journaled).
# A plan file of its own per call: runs overlap in sections 5 and 6.
cx() {
	cxplan=$(mktemp "$TMP/plan.XXXXXX") || return 125
	"$PE" $SYS --rox "$HELP" --rw "$W" --ro "$R" $EXTRA \
	    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
	    "$@" >"$cxplan" || return 125
	"$CX" --journal "$TMP/journal" <"$cxplan"
}
# what FILE: mode, owner, mtime, ctime (any metadata change moves it),
# links, flags and xattrs (ACLs among them) as the host sees them.
what() {
	printf '%s|%s|%s\n' "$(stat -c '%a %u:%g %Y %Z %h' "$1")" \
	    "$(lsattr -d "$1" 2>/dev/null | cut -d' ' -f1)" \
	    "$(getfattr -d -m - --absolute-names "$1" 2>/dev/null | tr '\n' ' ')"
}
# release FIFO: let a view-probe hold on FIFO end.  An O_RDWR open never
# blocks, so a probe that died early cannot hang the test.
release() { : 9<>"$1"; }
# tree DIR: every entry beneath DIR with its mode and mtime, sorted.
tree() { (cd "$1" && find . -printf '%P %m %T@\n' | LC_ALL=C sort); }
# layers: the view layers of the journal's last start record.
layers() {
	jq -c 'select(.event.event == "start") | .event.layers |
	    map(select(. == "mount-view" or . == "ipc-namespace" or
	    . == "net-namespace"))' "$TMP/journal" | tail -n 1
}

# ---- 1. metadata: outside every rule ENOENT, beneath --ro EROFS ---------
echo host >"$O/f"
chmod 644 "$O/f"
setfattr -n user.keep -v 1 "$O/f"
touch -d '2020-01-02 03:04:05' "$O/f"
echo ro >"$R/f"
chmod 644 "$R/f"
touch -d '2020-01-02 03:04:05' "$R/f"
echo log >"$O/log"
chmod 644 "$O/log"
F0=$(what "$O/f")
R0=$(what "$R/f")
L0=$(what "$O/log")

# Outside every rule: not in the view at all (the kernel has no such
# path), whatever the call.
try ENOENT "chmod of a host file outside the rules: ENOENT (not in the view)" \
	chmod "$O/f" 755
try ENOENT "chown outside: ENOENT" chown "$O/f" 65534 65534
try ENOENT "setxattr outside: ENOENT" setxattr "$O/f" user.x 1
try ENOENT "utimensat outside: ENOENT" utimensat "$O/f"
t_eq "host side: the outside file's mode, owner, times, flags, xattrs unchanged" \
	"$(what "$O/f")" "$F0"
# Beneath a --ro rule: there, and the kernel refuses every change
# (EROFS: the bind is read-only).
try EROFS "chmod of a host file beneath a --ro rule: EROFS" chmod "$R/f" 755
try EROFS "lchmod (fchmodat2 AT_SYMLINK_NOFOLLOW): EROFS" lchmod "$R/f" 755
try EROFS "fchmodat2 through an O_PATH descriptor: EROFS" \
	fchmodat2-opath "$R/f" 755
try EPERM "chmod 4755 in --ro: EPERM (the filter refuses setuid first)" \
	chmod "$R/f" 4755
try EROFS "chown: EROFS" chown "$R/f" 65534 65534
try EROFS "lchown: EROFS" lchown "$R/f" 65534 65534
try EROFS "fchownat: EROFS" fchownat "$R/f" 0 0
try EROFS "setxattr user.*: EROFS" setxattr "$R/f" user.x 1
try EROFS "lsetxattr: EROFS" lsetxattr "$R/f" user.x 1
try EROFS "setxattrat: EROFS" setxattrat "$R/f" user.x 1
try EROFS "removexattr of the host's xattr: EROFS" removexattr "$R/f" user.keep
try EROFS "a POSIX ACL granting another user: EROFS" acl "$R/f"
try EROFS "utimensat: EROFS" utimensat "$R/f"
try EROFS "utimensat to now: EROFS" touch-now "$R/f"
try EROFS "utimes: EROFS" utimes "$R/f"
# The tools themselves, as a build script would run them.
cx -- /usr/bin/chmod 600 "$R/f" >"$OUT" 2>"$ERR"
t_eq "chmod(1) in --ro: fails (1) with 'Read-only file system'" \
	"$? $(grep -c 'Read-only file system' "$ERR")" "1 1"
cx -- /usr/bin/chown 65534 "$R/f" >"$OUT" 2>"$ERR"
t_eq "chown(1) in --ro: fails (1) with 'Read-only file system'" \
	"$? $(grep -c 'Read-only file system' "$ERR")" "1 1"
cx -- /usr/bin/touch -d '2001-09-09 01:46:40 UTC' "$R/f" >"$OUT" 2>"$ERR"
t_eq "touch -d in --ro: fails (1) with 'Read-only file system'" \
	"$? $(grep -c 'Read-only file system' "$ERR")" "1 1"
cx -- /usr/bin/setfattr -n user.y -v 2 "$R/f" >"$OUT" 2>"$ERR"
t_eq "setfattr in --ro: fails (1) with 'Read-only file system'" \
	"$? $(grep -c 'Read-only file system' "$ERR")" "1 1"
if command -v setfacl >/dev/null 2>&1; then
	cx -- "$(command -v setfacl)" -m u:65534:rw "$R/f" >"$OUT" 2>"$ERR"
	t_eq "setfacl -m in --ro: fails (1) with 'Read-only file system'" \
		"$? $(grep -c 'Read-only file system' "$ERR")" "1 1"
else
	skip "setfacl -m in --ro: fails with 'Read-only file system'" \
		"no setfacl (the acl package)"
fi
t_eq "host side: the --ro file's mode, owner, times, flags, xattrs unchanged" \
	"$(what "$R/f")" "$R0"

# Through descriptors: a --ro file Landlock lets the payload open.
try EROFS "fchmod on a --ro file's descriptor: EROFS" fchmod "$R/f" 755
try EROFS "fchown on it: EROFS" fchown "$R/f" 65534 0
try EROFS "fsetxattr on it: EROFS" fsetxattr "$R/f" user.x 1
try EROFS "futimens on it: EROFS" futimens "$R/f"
try EROFS "FS_IOC_SETFLAGS on it: EROFS" setflags "$R/f"
t_eq "host side: the --ro file unchanged" "$(what "$R/f")" "$R0"
# A descriptor the caller passed (a log outside every rule) is reopened
# off the host's mount, through a clone idmapped so that no payload owns
# the file: owner-only changes are refused.
try EPERM "fchmod of an inherited descriptor (a log outside): EPERM" \
	--keep-fd 3 -- fchmod-fd 3 666 3>>"$O/log"
try EPERM "futimens of it: EPERM" --keep-fd 3 -- futimens-fd 3 3>>"$O/log"
try EOVERFLOW "fchown of it to its own owner: EOVERFLOW" \
	--keep-fd 3 -- fchown-fd 3 0 0 3>>"$O/log"
t_eq "host side: the log's metadata unchanged" "$(what "$O/log")" "$L0"
# A descriptor on the host's /dev/null (a device: reopened through a
# read-only clone of its mount, as standard output would be), and the same
# through /proc/self/fd.
N0=$(stat -c '%a %u:%g %Z' /dev/null)
# A broken view (make mutate) would leave the machine's /dev/null changed:
# its mode put back at exit.
at_exit "[ \"\$(stat -c %a /dev/null)\" = ${N0%% *} ] || chmod ${N0%% *} /dev/null"
try EROFS "fchmod of a handed-in /dev/null: EROFS" --keep-fd 3 -- \
	fchmod-fd 3 600 3>/dev/null
try EROFS "chmod of /proc/self/fd/3 on it: EROFS" --keep-fd 3 \
	-- chmod /proc/self/fd/3 600 3>/dev/null
try EROFS "fchown of it: EROFS" --keep-fd 3 -- fchown-fd 3 0 0 3>/dev/null
try EROFS "fchmod of stdin (confexec's /dev/null): EROFS" fchmod-fd 0 600
t_eq "host side: /dev/null's mode, owner and ctime unchanged" \
	"$(stat -c '%a %u:%g %Z' /dev/null)" "$N0"
# The reopened log's offset is the caller's again at the end.
{ cx -- /usr/bin/printf 'run\n'; echo after; } >"$TMP/seq.log" 2>"$ERR"
t_eq "a log written by the run, then by its caller: in that order" \
	"$(cat "$TMP/seq.log" | tr '\n' ' ')" "run after "

# ---- 2. beneath --rw: natively, setuid and setgid aside ------------------
echo w >"$W/f"
chmod 644 "$W/f"
W0=$(what "$W/f")
try EPERM "chmod 4755 beneath --rw: setuid refused (EPERM)" chmod "$W/f" 4755
try EPERM "chmod 2755 beneath --rw: setgid refused (EPERM)" chmod "$W/f" 2755
try EPERM "fchmod 4755: EPERM" fchmod "$W/f" 4755
try EPERM "fchmodat2 AT_SYMLINK_NOFOLLOW 2755: EPERM" lchmod "$W/f" 2755
try EPERM "fchmodat2 on an O_PATH descriptor, 6755: EPERM" \
	fchmodat2-opath "$W/f" 6755
try EPERM "a new file created setuid: EPERM" creat-suid "$W/suid"
try EPERM "a new file created setgid: EPERM" creat-sgid "$W/sgid"
try EPERM "mknod of a setuid regular file: EPERM" mknod-suid "$W/msuid"
t_eq "host side: the work file's mode (and ctime) unchanged" \
	"$(what "$W/f")" "$W0"
t_eq "host side: no setuid or setgid file made" \
	"$(ls "$W" | grep -c -e suid -e sgid)" 0
try OK "chmod 755 beneath --rw: the kernel's answer, OK" chmod "$W/f" 755
t_eq "host side: now 755" "$(stat -c %a "$W/f")" 755
t_exit 0 "a device a --rw rule names still works (nodev spares devtmpfs)" \
	cx --rw /dev/null -- /bin/sh -c 'echo x >/dev/null'

# tar x of a tarball made on the host: directory entries, modes, old
# mtimes, against the same tarball extracted bare by the host.
S=$TMP/src
mkdir -p "$S/d/e"
echo a >"$S/a"
echo b >"$S/b"
echo c >"$S/d/c"
echo f >"$S/d/e/f"
ln -s a "$S/l"
chmod 600 "$S/a"
chmod 755 "$S/b" "$S/d/e/f" "$S"
chmod 644 "$S/d/c"
chmod 750 "$S/d"
chmod 700 "$S/d/e"
touch -d '2001-09-09 01:46:40 UTC' "$S/a"
touch -d '2002-02-02 02:02:02 UTC' "$S/b" "$S/d/c"
touch -d '2003-03-03 03:03:03 UTC' "$S/d/e/f"
touch -h -d '2004-04-04 04:04:04 UTC' "$S/l"
touch -d '2000-01-01 00:00:00 UTC' "$S/d/e" "$S/d" "$S"
tar -cf "$R/src.tar" --owner=0 --group=0 -C "$S" .
mkdir "$TMP/bare" "$W/tx"
tar -xf "$R/src.tar" -C "$TMP/bare"
tree "$TMP/bare" >"$TMP/tree.bare"
t_grep "(the bare extraction has the 0750 directory and its old mtime)" \
	'^d 750 946684800(\.0+)?$' "$TMP/tree.bare"
t_exit 0 "tar x into the work tree: exit 0" \
	cx -- /usr/bin/tar -xf "$R/src.tar" -C "$W/tx"
diag_file "$ERR"
t_eq "host side: its modes and mtimes are the bare extraction's" \
	"$(tree "$W/tx")" "$(cat "$TMP/tree.bare")"
t_exit 0 "cp -a of that tree" cx -- /usr/bin/cp -a "$W/tx" "$W/cpa"
t_eq "host side: cp -a kept every mode and mtime" \
	"$(tree "$W/cpa")" "$(cat "$TMP/tree.bare")"
t_exit 0 "install -m 0751" cx -- /usr/bin/install -m 0751 "$W/tx/a" "$W/inst"
t_eq "host side: installed 751" "$(stat -c %a "$W/inst")" 751
plain_edits "setfattr user.*"
if command -v setfacl >/dev/null 2>&1 && command -v getfacl >/dev/null 2>&1
then
	t_exit 0 "setfacl -m u:65534:r" \
		cx -- "$(command -v setfacl)" -m u:65534:r "$W/plain"
	diag_file "$ERR"
	t_eq "host side: the ACL entry is there" \
		"$(getfacl -cn "$W/plain" 2>/dev/null | grep -c '^user:65534:r--')" 1
else
	skip "setfacl -m u:65534:r" "no setfacl/getfacl (the acl package)"
fi
echo l >"$W/lch"
chmod 600 "$W/lch"
t_exit 0 "lchmod through /proc/self/fd (python3 os.chmod follow_symlinks=False)" \
	cx $PYRULES -- "$PY" -c \
	'import os, sys; os.chmod(sys.argv[1], 0o640, follow_symlinks=False)' \
	"$W/lch"
diag_file "$ERR"
t_eq "host side: 640" "$(stat -c %a "$W/lch")" 640

# ---- 3. /proc: the run's own ----------------------------------------------
sleep 301 &
SP=$!
at_exit "kill_ours $SP 2>/dev/null"
# (a fork of this shell until it has exec'd sleep)
wait_for grep -qx sleep "/proc/$SP/comm"
t_eq "(host side: the host's sleep is in the host's /proc)" \
	"$("$V" cmdline "$SP")" "sleep 301"
t_exit 0 "a payload granted --ro /proc lists its pids" \
	cx $PROC -- "$V" self pids cmdline "$SP"
t_eq "the payload is pid 2" "$(sed -n 1p "$OUT")" 2
RUNPIDS=$(sed -n 2p "$OUT")
t_eq "its /proc lists init (1) and the payload (2), nothing else" \
	"$RUNPIDS" "1 2"
case " $RUNPIDS " in
*" $SP "*)
	t_nogrep "the host's sleep: its pid names another process there" \
		'^sleep 301$' "$OUT" ;;
*)
	t_eq "the host's sleep (pid $SP): absent, /proc/$SP ENOENT" \
		"$(sed -n 3p "$OUT")" ENOENT ;;
esac

# ---- 4. SysV IPC: the run's own namespace ----------------------------------
HSHM=$(ipcmk -M 4096 | sed 's/.*: //')
at_exit "ipcrm -m $HSHM 2>/dev/null"
HKEY=$(ipcs -m | awk -v id="$HSHM" '$2 == id { print $1 }')
rm -f "$W/ipc.go" "$W/ipc.ready"
mkfifo "$W/ipc.go"
cx --timeout 30s -- /bin/sh -c 'ipcmk -M 4096 >&2; echo "shm=$?"
ipcmk -Q >&2; echo "msg=$?"
ipcmk -S 1 >&2; echo "sem=$?"
ipcs -a
exec "$1" hold "$2" "$3"' sh "$V" "$W/ipc.ready" "$W/ipc.go" \
	>"$TMP/ipc.out" 2>"$TMP/ipc.err" &
IPCP=$!
if wait_for test -e "$W/ipc.ready"; then
	IPC1=$(ipcs -a)
	release "$W/ipc.go"
else
	IPC1="(the run never got ready)"
	diag_file "$TMP/ipc.err"
fi
wait $IPCP
rc=$?
IPC2=$(ipcs -a)
t_eq "inside: ipcmk -M, -Q and -S succeed (exit 0), the run ends 0" \
	"$(grep -E '^(shm|msg|sem)=' "$TMP/ipc.out" | tr '\n' ' ')$rc" \
	"shm=0 msg=0 sem=0 0"
t_eq "inside: ipcs -a lists three objects, the payload's own" \
	"$(grep -c '^0x' "$TMP/ipc.out")" 3
t_nogrep "inside: the host's segment (key $HKEY) is not listed" \
	"^$HKEY " "$TMP/ipc.out"
# The host side, counting only what the run made: none of its keys is
# the host's, while it lived or after.
PKEYS=$(awk '/^0x/ { print $1 }' "$TMP/ipc.out")
seen=0
for k in $PKEYS; do
	printf '%s\n%s\n' "$IPC1" "$IPC2" | grep -q "^$k " && seen=$((seen + 1))
done
t_eq "host side: the run's 3 keys ($(echo $PKEYS)) never on the host" \
	"$(echo $PKEYS | wc -w | tr -d ' ') $seen" "3 0"
try ENOENT "inside: shmget of the host's key: ENOENT (not in its namespace)" \
	shmget "$HKEY"
try EINVAL "inside: shmat of the host's segment id: EINVAL (no such id)" \
	shmat "$HSHM"
try EINVAL "inside: IPC_RMID of it: EINVAL" shmrm "$HSHM"
try EPERM "inside: POSIX mq_open stays EPERM" mq_open "/borne-view-$$"
t_eq "host side: the host's segment is there, never attached" \
	"$(ipcs -m -i "$HSHM" 2>/dev/null | grep -c 'att_time=Not set')" 1

# ---- 5. --tmp: a tmpfs of the run's namespace ------------------------------
rm -f "$W/tmp.go" "$W/tmp.ready"
mkfifo "$W/tmp.go"
cx --tmp --timeout 30s -- /bin/sh -c 'echo payload >"$TMPDIR/x" || exit 3
printf "%s\n" "$TMPDIR"
stat -f -c %T "$TMPDIR"
exec "$1" list "$TMPDIR" hold "$2" "$3" stat "$TMPDIR/x"' sh "$V" \
	"$W/tmp.ready" "$W/tmp.go" >"$TMP/tmp.out" 2>"$TMP/tmp.err" &
TMPP=$!
D1=
if wait_for test -e "$W/tmp.ready"; then
	D1=$(sed -n 1p "$TMP/tmp.out")
	HOSTLS=$(ls -A "$D1" 2>&1)
	HOSTTYPE=$(stat -c %F "$D1" 2>&1)
	# A second run that sees the base directory (read-only: confexec
	# refuses --rw of a shared sticky /tmp owned by the payload's uid).
	BASE=${D1%/*}
	"$PE" $SYS --rox "$HELP" $EXTRA \
	    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
	    --ro "$BASE" -- "$V" list "$D1" stat "$D1/x" >"$TMP/tmp2.plan" &&
	    "$CX" <"$TMP/tmp2.plan" >"$TMP/tmp2.out" 2>"$TMP/tmp2.err"
	B2="$? $(tr '\n' '|' <"$TMP/tmp2.out")"
	[ "$B2" = "0 |ENOENT|" ] || diag_file "$TMP/tmp2.err"
	release "$W/tmp.go"
else
	HOSTLS="(the run never got ready)" HOSTTYPE= B2=
	diag_file "$TMP/tmp.err"
fi
wait $TMPP
rc=$?
t_grep "TMPDIR is the run's directory" \
	"^${TMPDIR:-/tmp}/borne-tmp-[0-9a-f]{32}\$" "$TMP/tmp.out"
t_eq "inside: a tmpfs, x written there, x still there at the end; exit 0" \
	"$(sed -n '2,$p' "$TMP/tmp.out" | tr '\n' ' ')$rc" "tmpfs x released OK 0"
t_eq "host side, while the run lives: \$TMPDIR an empty directory" \
	"$HOSTTYPE|$HOSTLS" "directory|"
t_eq "a concurrent run with --ro ${BASE:-/tmp}: the directory empty, x ENOENT" \
	"$B2" "0 |ENOENT|"
ok "host side: the directory is gone after the run" test ! -e "${D1:-/}"

# ---- 6. abstract unix names: the run's network -----------------------------
HN=borne-view-host-$$
RN=borne-view-run-$$
rm -f "$TMP/host.go" "$TMP/host.ready" "$W/abs.go" "$W/abs.ready"
mkfifo "$TMP/host.go" "$W/abs.go"
"$V" bind-abstract "$HN" hold "$TMP/host.ready" "$TMP/host.go" \
	>"$TMP/host.out" 2>&1 &
HLP=$!
at_exit "release '$TMP/host.go'; kill $HLP 2>/dev/null"
wait_for test -e "$TMP/host.ready"
t_eq "(host side: a host listener on @$HN, reachable from the host)" \
	"$(sed -n 1p "$TMP/host.out") $("$V" connect-abstract "$HN")" "OK OK"
cx --unix --timeout 30s -- "$V" bind-abstract "$RN" connect-abstract "$HN" \
	hold "$W/abs.ready" "$W/abs.go" >"$TMP/abs.out" 2>"$TMP/abs.err" &
ABSP=$!
if wait_for test -e "$W/abs.ready"; then
	SS=$(ss -xlH 2>&1)
	PNU=$(cat /proc/net/unix)
	HOSTC=$("$V" connect-abstract "$RN")
	release "$W/abs.go"
else
	SS="(the run never got ready)" PNU=$SS HOSTC=
	diag_file "$TMP/abs.err"
fi
wait $ABSP
rc=$?
t_eq "inside (--unix, no --tcp): bind @$RN OK; connect to the host's @$HN ECONNREFUSED" \
	"$(tr '\n' ' ' <"$TMP/abs.out")$rc" "OK ECONNREFUSED released 0"
t_eq "host side: ss -xl lists the host's name, not the run's" \
	"$(echo "$SS" | grep -c "@$HN ") $(echo "$SS" | grep -c "@$RN")" "1 0"
t_eq "host side: /proc/net/unix has no @$RN" \
	"$(echo "$PNU" | grep -c "@$RN")" 0
t_eq "host side: a host client cannot reach @$RN: ECONNREFUSED" \
	"$HOSTC" ECONNREFUSED
release "$TMP/host.go"
wait $HLP

# ---- 7. the start record names the layers ---------------------------------
t_exit 0 "a run with --unix, without --tcp" cx --unix -- /bin/true
t_eq "its start record's layers: mount-view, ipc-namespace, net-namespace" \
	"$(layers)" '["mount-view","ipc-namespace","net-namespace"]'
t_exit 0 "a run with no socket right" cx -- /bin/true
t_eq "mount-view and ipc-namespace (it makes no socket to need a network)" \
	"$(layers)" '["mount-view","ipc-namespace"]'
t_exit 0 "a run with --tcp" cx --tcp -- /bin/true
t_eq "with a host TCP right: mount-view and ipc-namespace, no net-namespace" \
	"$(layers)" '["mount-view","ipc-namespace"]'

done_testing
