#!/bin/sh
# confexec's boundary probed from inside, many probes a run
# (tests/helpers/bprobe, one line "NAME ERRNO" each, checked line by
# line) and from the host (the files, processes and sockets the probes
# aimed at, unchanged):
#   - every call the payload's seccomp table refuses, every ioctl request
#     and socket option it refuses, each made under a filter of the
#     probe's own that answers ENOSYS in its place (never made);
#   - Landlock's rights: in a run of tests/helpers/contained (no mount
#     view, Landlock alone answers), each file system right; TCP bind
#     and connect in an egress network (nothing notified); the abstract
#     unix and signal scopes;
#   - the supervisor's checks in the host's network (bind, listen,
#     watches); the pid namespace; the descriptor check before the exec;
#   - the mount view (read-only outside the --rw rules), and beneath a
#     --rw rule what a caller without capabilities may not change
#     (owner, trusted. xattrs, inode flags, links, sticky);
#   - the run's own network (loopback up, nothing of the host's) and its
#     init (no descriptor held, no zombie left), from the host;
#   - the cgroup kill: what a run without a pid namespace leaves behind
#     when confexec is killed is killed by --reap, through cgroup.kill.
# tests/mutate.sh (make mutate) breaks each of these on purpose, one at a
# time, and expects this file to fail.
. "$(dirname "$0")/lib.sh"

needs root landlock=6 setpriv flock cgroup2

BP=$HELP/bprobe
C=$HELP/contained
[ -x "$C" ] || skip_all "no contained helper"
ASANOPT=$ASANQ
SYS="$ROOTFS --ro /etc --ro /proc --rox $HELP $ASANOPT"
# In the container: no cgroup, no namespace; --degrade runs without them.
ccx() { "$C" "$CX" --no-image-cache "$@"; }
# expect WHAT FILE: each line "NAME WANT" of stdin is FILE's line for
# NAME; then FILE has no other line.
expect() {
	_n=0
	while read -r name want; do
		_n=$((_n + 1))
		t_eq "$1: $name $want" "$(sed -n "s/^$name //p" "$2")" "$want"
	done
	t_eq "$1: $_n probes, no other line" "$(wc -l <"$2" | tr -d ' ')" "$_n"
}
words() { w=$1; shift; for n in "$@"; do echo "$n $w"; done; }

# A process of the host's (signal 0 only), and an abstract unix listener.
sleep 600 &
SP=$!
at_exit "kill_ours $SP"
AN=borne-bprobe-$$
"$BP" abstract-listen "$AN" "$TMP/listening" &
LP=$!
at_exit "kill_ours $LP"
wait_for test -e "$TMP/listening" || fail "the abstract listener is up"

# DIR/out: outside every rule; DIR/rw: a --rw rule; DIR/ro: a --ro rule.
D=$TMP/d
mkdir -p "$D/out/sub" "$D/rw/a" "$D/rw/b" "$D/ro" "$D/rw/other"
echo secret >"$D/out/f"
printf '#!/bin/sh\nexit 0\n' >"$D/out/x"
cp "$D/out/x" "$D/rw/x"
chmod 755 "$D/out/x" "$D/rw/x"
echo moved >"$D/rw/a/f"
echo ro >"$D/ro/f"
echo other >"$D/ro/other"
ln -s f "$D/ro/link"
chown 4242 "$D/ro/other" "$D/rw/other"
chmod 600 "$D/ro/other"
# DIR/rw/meta: a --rw rule of the sys run, with another's files.
M=$D/rw/meta
mkdir -p "$M/sticky"
echo mine >"$M/mine"
echo other >"$M/other"
echo theirs >"$M/sticky/theirs"
chown 4242 "$M/other" "$M/sticky" "$M/sticky/theirs"
chmod 600 "$M/other"
chmod 1777 "$M/sticky"
chmod 711 "$TMP"
metabefore=$(ls -lRn --time-style=+%s.%N "$M"; lsattr -R "$M" 2>&1)
before=$(ls -lR --time-style=+%s.%N "$D/out" "$D/ro")

# ---- the seccomp table, the pid namespace, Landlock's TCP rights -----------
# Its own network (--unix alone): the TCP socket handed in is the host's,
# connect on it meets Landlock alone, bind the supervisor.
# The mount view (tests/helpers/escape): outside every rule nothing is
# there; beneath a --ro rule, read-only.
mkdir -p "$D/ro/sub"
before=$(ls -lR --time-style=+%s.%N "$D/out" "$D/ro")
"$PE" --preset sys --ro /proc --rox "$HELP" $ASANOPT --unix --keep-fd 8 \
	--rw "$M" --ro "$D/ro" -- /bin/sh -c '"$0" sys; "$0" net 8 9
	"$0" pid "$1"; "$0" meta "$4"
	for p in "unlink $3/f" "rmdir $3/sub" "mknod $3/newfifo p"; do
		printf "view-%s " "${p%% *}"; "$2" $p; done
	for p in "unlink $5/f" "rmdir $5/sub" "mknod $5/newfifo p"; do
		printf "ro-%s " "${p%% *}"; "$2" $p; done' \
	"$BP" "$SP" "$HELP/escape" "$D/out" "$M" "$D/ro" >"$TMP/p.sys" ||
	fail "planenc: the sys plan"
t_exit 0 "a run of the sys, net and pid probes" "$BP" with-tcp 8 "$CX" \
	<"$TMP/p.sys"
cp "$OUT" "$TMP/sys.out"
{
	words EPERM ptrace process_vm_readv process_vm_writev pidfd_getfd \
		kcmp process_madvise process_mrelease prlimit64 setpriority \
		ioprio_set sched_setaffinity sched_setscheduler \
		sched_setparam sched_setattr migrate_pages move_pages \
		get_robust_list unshare setns clone
	words ENOSYS clone3 openat2
	words EPERM io_uring_setup io_uring_enter io_uring_register \
		seccomp-listener kexec_load kexec_file_load init_module \
		finit_module delete_module bpf perf_event_open keyctl add_key \
		request_key userfaultfd syslog mount umount2 pivot_root \
		open_by_handle_at open_tree move_mount fsopen fsconfig fsmount \
		fspick mount_setattr open_tree_attr statmount listmount \
		lsm_set_self_attr swapon swapoff reboot acct quotactl \
		quotactl_fd fanotify_init fanotify_mark mq_open mq_unlink \
		mq_timedsend mq_timedreceive mq_notify mq_getsetattr \
		chmod-setuid fchmod-setgid fchmodat-setuid fchmodat2-setgid \
		open-creat-setuid
	words EACCES open-accmode3
	words EPERM openat-creat-setgid openat-tmpfile-setuid creat-setuid \
		mknod-setgid mknodat-setuid socket-raw socketpair-inet \
		sendto-fastopen sendmsg-fastopen sendmmsg-fastopen \
		setsockopt-tcp-fastopen-connect setsockopt-passcred \
		setsockopt-passpidfd fcntl-setlease ioctl-tcsbrk-0
	for n in FS_IOC_SETVERSION FS_IOC32_SETVERSION EXT4_IOC_SETVERSION \
		FS_IOC_SET_ENCRYPTION_POLICY FS_IOC_ADD_ENCRYPTION_KEY \
		FS_IOC_REMOVE_ENCRYPTION_KEY \
		FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS FS_IOC_ENABLE_VERITY \
		EXT4_IOC_MIGRATE; do echo "ioctl-$n EPERM"; done
	echo "ioctl-BTRFS_IOC_SNAP_CREATE EOPNOTSUPP"
	echo "ioctl-FICLONE EOPNOTSUPP"
	for n in TCSETS TCSETSW TCSETSF TCSETA TCSETAW TCSETAF TCSETS2 \
		TCSETSW2 TCSETSF2 TCSETX TCSETXF TCSETXW TIOCSWINSZ TIOCEXCL \
		TIOCNXCL TIOCSCTTY TIOCCONS TIOCSETD TIOCSTI TIOCLINUX \
		TIOCSPGRP TIOCVHANGUP TCXONC TCFLSH TCSBRKP TIOCSBRK TIOCCBRK \
		TIOCMSET TIOCMBIS TIOCMBIC TIOCSSOFTCAR TIOCSSERIAL \
		TIOCSLCKTRMIOS TIOCSRS485 TIOCNOTTY; do
		echo "ioctl-$n EPERM"
	done
	# a TCP socket of the host's network: bind checked by the
	# supervisor, connect by Landlock
	words EACCES bind-inherited connect-inherited
	# the host's process is not in the run's pid namespace
	echo "signal-host ESRCH"
	# beneath the --rw rule, without capabilities: one's own files only,
	# no other owner or group, no trusted. xattr, no inode flag, no
	# setuid bit (the filter), no link to another's file, no unlink of
	# another's file in another's sticky directory
	words EPERM chown chgrp xattr-trusted immutable append-only \
		setuid-mode hardlink-other sticky-unlink
	words ENOENT view-unlink view-rmdir view-mknod
	words EROFS ro-unlink ro-rmdir ro-mknod
} >"$TMP/sys.want"
expect sys "$TMP/sys.out" <"$TMP/sys.want"
ok "the host's process is alive" kill -0 "$SP"
t_eq "beneath the --rw rule, no owner, mode, flag or link changed" \
	"$(ls -lRn --time-style=+%s.%N "$M"; lsattr -R "$M" 2>&1)" "$metabefore"
t_eq "outside the rules, nothing changed" \
	"$(ls -lR --time-style=+%s.%N "$D/out" "$D/ro")" "$before"

# ---- Landlock's TCP rights, alone ------------------------------------------
# The network of the run's egress broker: the payload's own TCP socket,
# neither bind nor connect notified (its broker reached through the one
# port granted, none reached here).
"$PE" --preset sys --ro /proc --rox "$HELP" $ASANOPT --egress 127.0.0.1:9 -- \
	"$BP" tcp 9 >"$TMP/p.tcp" || fail "planenc: the tcp plan"
t_exit 0 "a run of the tcp probes in its egress network" "$CX" <"$TMP/p.tcp"
cp "$OUT" "$TMP/tcp.out"
words EACCES bind-tcp connect-tcp >"$TMP/tcp.want"
expect tcp "$TMP/tcp.out" <"$TMP/tcp.want"

# ---- Landlock's file system rights, alone ----------------------------------
"$PE" $SYS --degrade --rw "$D/rw" --ro /dev/urandom -- /bin/sh -c \
	'"$0" fs "$1" "$2"; "$0" sysv' "$BP" "$D/out" "$D/rw" >"$TMP/p.fs" ||
	fail "planenc: the fs plan"
t_exit 0 "a contained run of the fs and sysv probes" ccx <"$TMP/p.fs"
cp "$OUT" "$TMP/fs.out"
{
	words EACCES execute execute-rw write_file read_file read_dir \
		remove_dir remove_file make_char-rw make_dir make_reg \
		make_sock make_fifo make_block-rw make_sym
	# reparenting beneath one --rw rule: REFER granted
	echo "refer-rw OK"
	words EACCES truncate ioctl_dev
	# no IPC namespace of the run's: the host's objects, refused
	words EPERM shmget shmat shmctl shmdt msgget msgsnd msgrcv msgctl \
		semget semop semtimedop semctl
} >"$TMP/fs.want"
expect fs "$TMP/fs.out" <"$TMP/fs.want"
t_eq "outside the rules, nothing changed" \
	"$(ls -lR --time-style=+%s.%N "$D/out" "$D/ro")" "$before"
t_eq "the file kept its bytes" "$(cat "$D/out/f")" secret
ok "no device made beneath the --rw rule" test ! -e "$D/rw/newdev"
ok "the rename beneath the --rw rule was made" test -f "$D/rw/b/f"

# ---- the supervisor's checks in the host's network, Landlock's scopes -------
"$PE" $SYS --degrade --unix --tcp --ro "$D/ro" --rw "$D/rw" -- "$BP" host \
	"$D/ro" "$D/rw" "$D/out" 9 "$AN" "$SP" >"$TMP/p.host" ||
	fail "planenc: the host plan"
t_exit 0 "a contained run of the host probes" ccx <"$TMP/p.host"
cp "$OUT" "$TMP/host.out"
{
	# the supervisor: no port granted, port 0 neither
	words EACCES bind-tcp listen-unbound
	# Landlock: no port granted
	echo "connect-tcp EACCES"
	# the supervisor: names no file rule covers
	words EPERM bind-abstract bind-autobind
	# the supervisor: beneath --rw only, with the caller's own rights
	words EACCES bind-path-ro bind-path-rw-other
	echo "bind-path-rw OK"
	# Landlock's scopes: a listener and a process outside the run
	words EPERM connect-abstract-host signal-host
	# the supervisor: beneath a rule, readable, not a link
	words EACCES watch-outside watch-unreadable watch-symlink
	echo "watch-ro OK"
} >"$TMP/host.want"
expect host "$TMP/host.out" <"$TMP/host.want"
t_eq "outside the rules, nothing changed" \
	"$(ls -lR --time-style=+%s.%N "$D/out" "$D/ro")" "$before"
ok "no socket bound beneath the other's directory" test ! -e "$D/rw/other/sock"
ok "the socket bound beneath the --rw rule" test -S "$D/rw/sock"
ok "the host's process is alive" kill -0 "$SP"
ok "the host's listener is alive" kill -0 "$LP"
# The private tmp is beneath --rw for the supervisor too (notify.c,
# notify_policy_add_rw): a socket bound there, where without it the bind
# is refused (EACCES).
"$PE" $SYS --degrade --unix --tmp -- /bin/sh -c '"$0" "$TMPDIR/sock" 0600 &&
	test -S "$TMPDIR/sock" && echo "bind-tmp OK"' "$HELP/unix-listen" \
	>"$TMP/p.tmp" || fail "planenc: the tmp plan"
t_exit 0 "a contained run binds a socket in its private tmp" ccx <"$TMP/p.tmp"
t_grep "... the supervisor let it (bind-tmp OK)" "^bind-tmp OK$" "$OUT"

# ---- the run's own network: loopback up, nothing of the host's -------------
# --unix alone: a network namespace of the run's own, its loopback up (the
# kernel's local routes: 127.0.0.0/8 and 127.0.0.1, none of the host's).
"$PE" $SYS --unix -- /bin/sh -c 'grep -c "/32 host LOCAL" /proc/net/fib_trie' \
	>"$TMP/p.net" || fail "planenc: the network plan"
t_exit 0 "a --unix run reads its network's local routes" "$CX" <"$TMP/p.net"
t_eq "  its own network, loopback up: two local routes, none of the host's" \
	"$(cat "$OUT")" 2

# ---- the run's init: no descriptor, no zombie -------------------------------
# pid 1 of the run's namespace closes every descriptor it was cloned with
# and ignores SIGCHLD (the kernel reaps what is reparented to it).  The
# payload leaves five orphans that exit at once, then waits; from the
# host: init (confexec's child that is pid 1 in its namespace) holds no
# descriptor, and its children (zombies among them) are gone.
mkfifo "$D/rw/go"
"$PE" $SYS --rw "$D/rw" -- /bin/sh -c 'for i in 1 2 3 4 5; do (/bin/true &)
	done; : >"$0/orphaned"; read x <"$0/go"' "$D/rw" >"$TMP/p.init" ||
	fail "planenc: the init plan"
"$CX" <"$TMP/p.init" >"$TMP/init.out" 2>&1 &
IP=$!
at_exit "kill_ours $IP"
INIT=
if wait_for test -e "$D/rw/orphaned"; then
	for c in $(cat /proc/$IP/task/*/children); do
		sed -n 's/^NSpid:[[:space:]]*[0-9]*[[:space:]]*//p' \
		    "/proc/$c/status" | grep -qx 1 && INIT=$c
	done
fi
if [ -n "$INIT" ]; then
	t_eq "the run's init holds no descriptor" \
		"$(ls "/proc/$INIT/fd" | wc -l | tr -d ' ')" 0
	ok "the run's init has no child left (its orphans reaped)" wait_for \
		-t 10 sh -c '[ -z "$(cat /proc/$0/task/*/children)" ]' "$INIT"
else
	fail "the run's init found among confexec's children"
fi
echo go >"$D/rw/go"
wait "$IP"
t_eq "  the run ends (0)" "$?" 0

# ---- the descriptor check before the exec -----------------------------------
# The payload's close_range made a no-op (tests/helpers/faultinj: errno 0,
# the call skipped): a descriptor of the caller's is left open, and the
# check after the close refuses to exec.
[ "$VARIANT" = asan ] &&
	export ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
# /etc's loader cache, not /etc: the view's idmapped /etc would have
# confexec fork for its id map first (as would a regular file handed in:
# output through a pipe), and shift the processes faultinj counts (1.2:
# the payload).
"$PE" $(printf '%s\n' "$SYS" | sed 's|--ro /etc |--ro /etc/ld.so.cache |') \
	-- "$HELP/escape" readfd 9 >"$TMP/p.fd" || fail "planenc: fd plan"
{ "$HELP/faultinj" 1.2 close_range 1 0 -- "$CX" <"$TMP/p.fd" 9<"$D/out/f" \
	2>&1; echo $? >"$TMP/fd.rc"; } | cat >"$TMP/fd.out"
t_eq "a descriptor left open: 125" "$(cat "$TMP/fd.rc")" 125
t_grep "  named" '^confexec: child: verifying descriptors: fd [0-9]+ is still open$' \
	"$TMP/fd.out"
t_nogrep "  the payload never ran" '^(secret|EBADF)$' "$TMP/fd.out"

# ---- the cgroup kill --------------------------------------------------------
# A container with a cgroup namespace of its own (contained --cgroup): a
# cgroup, no pid namespace.  confexec SIGKILLed, the payload's setsid
# grandchild outlives it in the run's cgroup, holding a lock; --reap, from
# the same cgroup (a directory of this file's own), kills it with
# cgroup.kill and removes the cgroup.
CG2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo |
	head -n 1)
CGD=$CG2$(sed -n 's/^0:://p' /proc/self/cgroup | sed 's,/$,,')/bornetest-boundary-$$
mkdir "$CGD" || fail "a cgroup of this file's own: $CGD"
at_exit "for k in '$CGD'/*/cgroup.kill; do [ -e \"\$k\" ] && echo 1 >\"\$k\"; done; sleep 0.2; rmdir '$CGD'/* '$CGD' 2>/dev/null"
# $INCG CMD...: CMD in that cgroup (the same process: its pid is CMD's).
INCG='echo $$ >"$0/cgroup.procs" && exec "$@"'

GC=$D/rw/gc.pid
"$PE" $SYS --degrade --rw "$D/rw" -- "$HELP/escape" grandchild-sleep "$GC" \
	>"$TMP/p.cg" || fail "planenc: the cgroup plan"
sh -c "$INCG" "$CGD" "$C" --cgroup "$CX" --no-image-cache <"$TMP/p.cg" >/dev/null \
	2>"$TMP/cg.err" &
CP=$!
if wait_for test -s "$GC"; then
	kill -KILL "$CP"
	wait "$CP"
	t_eq "confexec SIGKILLed" "$?" 137
	ok "the grandchild outlived it (its lock held)" \
		sh -c '! flock -n "$0" true' "$GC.lock"
	t_exit 0 "--reap from that cgroup" sh -c "$INCG" "$CGD" "$CX" --reap
	t_grep "  reaped it, killing what was inside" \
		"^reaped $CGD/borne-[^ ]* \\(processes killed\\)\$" "$OUT"
	ok "  the grandchild is dead (its lock free)" \
		wait_for flock -n "$GC.lock" true
else
	fail "the run's grandchild wrote its pid"
	diag_file "$TMP/cg.err"
fi

done_testing
