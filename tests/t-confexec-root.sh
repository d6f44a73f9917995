#!/bin/sh
# confexec with the caller root and no --uid: every route a
# capability-less uid-0 payload had to the host beside Landlock (issue
# 10), tried from inside by root-attack (the exact errno), and checked
# from the host side (the file, the process, the listener, the IPC
# object, the terminal unchanged).  Then the metadata work that must keep
# working beneath --rw: tar x, cp -p, install -m, chmod +x, touch -d,
# git checkout.
. "$(dirname "$0")/lib.sh"

needs root landlock=6 cgroup2 python3 getfattr setfattr lsattr ipcmk ss \
	unshare

# The system, read and executed; /lib and /lib64 may be symlinks into
# /usr (merged /usr): the plans accept that.
SYS=$ROOTFS
A=$HELP/root-attack
W=$TMP/work		# the --rw work tree
O=$TMP/outside		# outside every rule
R=$TMP/ro		# a --ro tree
mkdir -p "$W" "$O" "$R"
EXTRA=
# The sanitizer runtime reads /proc/self/maps and must stay quiet.
[ "$VARIANT" = asan ] && EXTRA="--ro /proc"

# cx [PLANENC-OPTION...] -- PROGRAM [ARG...]: the issue's plan (the
# libraries, the helpers, the work tree read-write), run by confexec.
cx() {
	"$PE" $SYS --rox "$HELP" --rw "$W" \
	    --ro "$R" $EXTRA --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
	    "$@" >"$TMP/.plan" || return 125
	"$CX" --journal "$TMP/journal" <"$TMP/.plan"
}
# what FILE: mode, owner, mtime, flags and xattrs as the host sees them.
what() {
	printf '%s|%s|%s\n' "$(stat -c '%a %u:%g %Y %h' "$1")" \
	    "$(lsattr -d "$1" 2>/dev/null | cut -d' ' -f1)" \
	    "$(getfattr -d -m - --absolute-names "$1" 2>/dev/null | tr '\n' ' ')"
}

# ---- 1. metadata outside every rule, and beneath --ro ---------------------
echo host >"$O/f"
chmod 644 "$O/f"
setfattr -n user.keep -v 1 "$O/f"
touch -d '2020-01-02 03:04:05' "$O/f"
echo ro >"$R/f"
setfattr -n user.keep -v 1 "$R/f"
touch -d '2020-01-02 03:04:05' "$R/f"
echo log >"$O/log"
F0=$(what "$O/f")
R0=$(what "$R/f")
L0=$(what "$O/log")

# Outside every rule nothing is there: the view holds only what the plan
# names (ENOENT), whatever the call.
try ENOENT "chmod of a root file outside the rules: ENOENT (not in the view)" \
	chmod "$O/f" 755
try ENOENT "chown of it: ENOENT" chown "$O/f" 65534 65534
try ENOENT "setxattr on it: ENOENT" setxattr "$O/f" user.x 1
try ENOENT "utimensat on it: ENOENT" utimensat "$O/f"
t_eq "host side: the outside file's mode, owner, times, flags, xattrs unchanged" \
	"$(what "$O/f")" "$F0"
# Beneath a --ro rule the view is read-only: the kernel answers EROFS
# (a setuid mode meets the filter first: EPERM).
try EPERM "chmod 4755 of a root file beneath a --ro rule: EPERM (the filter)" \
	chmod "$R/f" 4755
try EROFS "chmod 755 of it: EROFS (the mount view)" chmod "$R/f" 755
try EROFS "fchmodat2 through an O_PATH descriptor: EROFS" \
	fchmodat2-opath "$R/f" 755
try EROFS "lchmod (fchmodat2 AT_SYMLINK_NOFOLLOW): EROFS" lchmod "$R/f" 755
try EROFS "chown: EROFS" chown "$R/f" 65534 65534
try EROFS "lchown: EROFS" lchown "$R/f" 65534 65534
try EROFS "fchownat: EROFS" fchownat "$R/f" 65534 65534
try EROFS "setxattr user.*: EROFS" setxattr "$R/f" user.x 1
try EROFS "lsetxattr: EROFS" lsetxattr "$R/f" user.x 1
try EROFS "setxattrat: EROFS" setxattrat "$R/f" user.x 1
try EROFS "a POSIX ACL granting another user: EROFS" acl "$R/f"
try EROFS "removexattr of the host's xattr: EROFS" \
	removexattr "$R/f" user.keep
try EROFS "removexattrat: EROFS" removexattrat "$R/f" user.keep
try EROFS "utimensat: EROFS" utimensat "$R/f"
try EROFS "utimensat to now: EROFS" touch-now "$R/f"
try EROFS "utimes: EROFS" utimes "$R/f"
try EROFS "utime: EROFS" utime "$R/f"
try EROFS "futimesat: EROFS" futimesat "$R/f"
try EROFS "file_setattr: EROFS" file_setattr "$R/f"
try "open:EACCES openat:EACCES" "open(path, 3), the old FS_IOC_SETFLAGS route: EACCES" \
	open3 "$R/f"
t_eq "host side: the --ro file's mode, owner, times, flags, xattrs unchanged" \
	"$(what "$R/f")" "$R0"

# Through descriptors: a --ro file Landlock lets the payload open (on the
# view's read-only mount), and an inherited descriptor on a file outside
# every rule (a redirected log), which stays on the host's mount.
try EROFS "fchmod on a --ro file's descriptor: EROFS" fchmod "$R/f" 755
try EROFS "fchown on it: EROFS" fchown "$R/f" 65534 0
try EROFS "fsetxattr on it: EROFS" fsetxattr "$R/f" user.x 1
try EROFS "fremovexattr on it: EROFS" fremovexattr "$R/f" user.x
try EROFS "futimens on it: EROFS" futimens "$R/f"
try EROFS "FS_IOC_SETFLAGS on it: EROFS" setflags "$R/f"
try EROFS "FS_IOC_SETFLAGS, request with high bits set: EROFS" \
	setflags-hi "$R/f"
try EROFS "FS_IOC_FSSETXATTR on it: EROFS" fssetxattr "$R/f"
try EPERM "F_SETLEASE on it: EPERM" lease "$R/f"
t_eq "host side: the --ro file unchanged" "$(what "$R/f")" "$R0"
# A descriptor the caller hands the run is reopened off the host's mount,
# through a clone idmapped so that the payload is not the file's owner.
try EPERM "fchmod of an inherited descriptor (a log outside): EPERM" \
	--keep-fd 3 -- fchmod-fd 3 666 3>>"$O/log"
try EOVERFLOW "fchown of it: EOVERFLOW (no owner the id map can say)" \
	--keep-fd 3 -- fchown-fd 3 65534 65534 3>>"$O/log"
try EPERM "futimens of it: EPERM (not its owner)" --keep-fd 3 -- \
	futimens-fd 3 3>>"$O/log"
try EPERM "fchmod through /proc/self/fd/3: EPERM" --keep-fd 3 -- \
	chmod /proc/self/fd/3 666 3>>"$O/log"
t_eq "host side: the log's metadata unchanged" "$(what "$O/log")" "$L0"
t_exit 125 "a kept directory descriptor is refused (125)" \
	cx --keep-fd 3 -- "$A" fchmod-fd 3 755 3<"$O"
t_grep "the refusal names it" 'kept fd 3 is a directory of the host' "$ERR"

# A lease taken would block the host's writer for the lease-break time.
# The helper prints what it got, then holds: the writer starts once the
# lease was tried.
cx --setenv ROOT_ATTACK_HOLD=3 -- "$A" lease "$R/f" >"$OUT" 2>"$ERR" &
CXP=$!
wait_for test -s "$OUT"
t0=$(date +%s)
timeout 5 sh -c "echo more >>'$R/f'"
rc=$?
t_eq "host side: a writer of the file is not blocked while the payload runs" \
	"$rc $(($(date +%s) - t0 < 2))" "0 1"
wait $CXP
t_eq "the payload's lease: EPERM" "$(cat "$OUT")" EPERM

# ---- 2. metadata beneath --rw: only what the owner could do itself ------
echo w >"$W/f"
chmod 644 "$W/f"
W0=$(what "$W/f")
try EPERM "chmod 4755 beneath --rw: a setuid file is refused (EPERM)" \
	chmod "$W/f" 4755
try EPERM "chmod 2755 beneath --rw: setgid refused (EPERM)" chmod "$W/f" 2755
try EPERM "a new file created setuid beneath --rw: EPERM" \
	creat-suid "$W/suid"
try EPERM "a new file created setgid: EPERM" creat-sgid "$W/sgid"
try EPERM "mknod of a setuid regular file: EPERM" mknod-suid "$W/suid"
t_eq "host side: no such file in the work tree" \
	"$(ls "$W" | grep -c suid)" 0
try EPERM "chown to another uid beneath --rw: EPERM (no CAP_CHOWN)" \
	chown "$W/f" 65534 0
try EPERM "chgrp to a group not the payload's: EPERM" chown "$W/f" -1 65534
try EPERM "trusted.* xattr beneath --rw: EPERM" setxattr "$W/f" trusted.x 1
t_eq "host side: the work file unchanged" "$(what "$W/f")" "$W0"
echo g >"$O/g"
chmod 600 "$O/g"
ln "$O/g" "$W/hardlink"
G0=$(what "$O/g")
# confexec(1), not protected: a host file hard-linked into a rw tree is
# that file (its contents were always writable there); the payload cannot
# make such a link itself (EXDEV below).
try EPERM "a setuid mode on a host file hard-linked into the work tree: EPERM" \
	chmod "$W/hardlink" 4755
try OK "chmod 644 of it: OK (documented: it lies beneath --rw)" \
	chmod "$W/hardlink" 644
rm -f "$W/hardlink"
t_eq "host side: the hard-linked host file is 644, never setuid" \
	"$(stat -c %a "$O/g")" 644
ln -s "$O/f" "$W/symlink"
try ENOENT "chmod through a symlink in the work tree to outside: ENOENT (not in the view)" \
	chmod "$W/symlink" 755
try ENOENT "chmod of WORK/../outside: ENOENT" chmod "$W/../outside/f" 755
# Races: another thread rewrites the path in memory, or swaps a work-tree
# name between a file and a symlink to the outside file, while chmod
# runs.  The kernel reads and resolves the path once: the answer is OK
# or EROFS, never anything else (3,000 native calls may all be done
# before the other thread first runs); the outside file never changes.
cx -- "$A" race-path "$W/f" "$O/f" 3000 >"$OUT" 2>"$ERR"
t_grep "race: path memory flipped between inside and outside: EROFS or OK only" \
	'^ok=(some|none) denied=(some|none) other=0$' "$OUT"
cx -- "$A" race-link "$W/L" "$O/f" 3000 >"$OUT" 2>"$ERR"
# The kernel resolves the name once, and quickly: the swap may never land
# inside a call (ENOENT while renamed); the host side below is the proof.
t_grep "race: a name swapped with a symlink to outside: ran (ENOENT while renamed)" \
	'^ok=(some|none) denied=(some|none) other=[0-9]+$' "$OUT"
t_eq "host side: the outside file unchanged after both races" \
	"$(what "$O/f")" "$F0"
# A shared sticky directory the payload owns (a uid-0 payload and /tmp):
# its mode and ACLs are the owner's to change, so a rw rule naming one is
# refused before anything runs (--tmp is the private one).  One beneath a
# rw rule is the payload's (confexec(1), not protected).
mkdir "$W/shared"
chmod 1777 "$W/shared"
S0=$(what "$W/shared")
cx --rw "$W/shared" -- "$A" chmod "$W/shared" 777 >"$OUT" 2>"$ERR"
t_eq "--rw of a sticky directory the payload owns: 125" "$?" 125
t_grep "the refusal names it and --tmp" \
	"rw $W/shared: a shared sticky directory owned by uid 0.*--tmp" "$ERR"
t_eq "host side: its mode and ACLs unchanged" "$(what "$W/shared")" "$S0"
# chown(-1, -1) as root clears setuid, setgid and capabilities: not for
# another owner's file (found by review).  A setuid file beneath --rw no
# longer lets the run start (t-confexec-privileged.sh), so there is
# nothing left for the chown to clear.
echo x >"$W/theirs"
chown 65534:65534 "$W/theirs"
chmod 6755 "$W/theirs"
T0=$(what "$W/theirs")
cx -- "$A" chown "$W/theirs" -1 -1 >"$OUT" 2>"$ERR"
t_eq "another owner's setuid file beneath --rw: the plan is refused (125)" \
	"$?" 125
t_grep "  naming it and the suidstrip command" \
	"^confexec: privileged file beneath rw $W: $W/theirs .*: clear it with: suidstrip -- $W/theirs\$" \
	"$ERR"
t_eq "host side: still 6755, unchanged" "$(what "$W/theirs")" "$T0"
rm -f "$W/theirs"
N0=$(stat -c '%a %u:%g' /dev/null)
try EROFS "chmod of a device a --rw rule names (/dev/null): EROFS" \
	--rw /dev/null -- chmod /dev/null 600
try EROFS "chown of it: EROFS" --rw /dev/null -- chown /dev/null 0 0
cx --rw /dev/null -- "$HELP/escape" write /dev/null >"$OUT" 2>"$ERR"
t_eq "writing to it: OK (a device's writes are not its file system's)" \
	"$(cat "$OUT")" OK
t_eq "host side: /dev/null's mode and owner unchanged" \
	"$(stat -c '%a %u:%g' /dev/null)" "$N0"
try ENOENT "hard link of an outside file into the work tree: ENOENT (not in the view)" \
	link "$O/f" "$W/newlink"
t_eq "host side: the outside file still has one link, unchanged" \
	"$(what "$O/f")" "$F0"

# ---- 3. other processes, by pid ------------------------------------------
sleep 300 &
SP=$!
at_exit "kill_ours $SP 2>/dev/null"
procstate() {
	printf '%s|%s|%s|%s|%s\n' "$(grep 'Max open files' /proc/$SP/limits)" \
	    "$(ps -o ni= -p $SP)" "$(taskset -p $SP 2>&1 | sed 's/.*: //')" \
	    "$(chrt -p $SP 2>&1 | tr '\n' ' ')" "$(ionice -p $SP 2>&1)"
}
P0=$(procstate)
for r in prlimit setpriority sched_setaffinity sched_setscheduler \
    sched_setparam sched_setattr ioprio_set migrate_pages move_pages \
    get_robust_list kcmp process_madvise process_mrelease; do
	try EPERM "$r on a host process: EPERM" $r $SP
done
try EPERM "setpriority(PRIO_USER, 0): every uid-0 process, EPERM" \
	setpriority-user
try EPERM "ioprio_set(IOPRIO_WHO_USER, 0): EPERM" ioprio-user
t_eq "host side: its limits, nice, affinity, policy, I/O priority unchanged" \
	"$(procstate)" "$P0"
try OK "prlimit on itself (pid 0) still works" prlimit 0
try OK "setpriority on itself still works" setpriority 0
try OK "sched_setaffinity on itself still works" sched_setaffinity 0

# ---- 4. TCP fast open, listen without bind, abstract unix names ---------
freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# listener ADDR PORT NAME: a host listener on ADDR:PORT (:: is dual
# stack), in the background ($LP): it creates $TMP/NAME.ready once it
# listens (python's start takes long on a loaded machine: the test waits
# for that, never for a guessed time), accepts until $TMP/NAME.stop
# exists (60 s at most), then writes how many it accepted to
# $TMP/NAME.accepts.
listener() {
	python3 -c '
import os, socket, sys, time
addr, port, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
s = socket.socket(fam)
if fam == socket.AF_INET6:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind((addr, port)); s.listen(8); s.settimeout(0.05)
open(base + ".ready", "w").close()
n, end = 0, time.monotonic() + 60
while not os.path.exists(base + ".stop") and time.monotonic() < end:
    try:
        s.accept(); n += 1
    except socket.timeout:
        pass
open(base + ".accepts", "w").write("%d\n" % n)' "$1" "$2" "$TMP/$3" &
	LP=$!
	wait_for test -e "$TMP/$3.ready" || fail "the host's listener on $1:$2"
}
# unlisten NAME: stop it and wait for it.
unlisten() { : >"$TMP/$1.stop"; wait $LP; }
PORT=$(freeport)
GRANT=$(freeport)
listener :: "$PORT" l1
for r in tfo-sendto tfo-sendmsg tfo-sendmmsg tfo6-sendto tfo-connectopt; do
	try EPERM "$r to an ungranted port: EPERM" \
		--tcp --connect-tcp "$GRANT" -- $r "$PORT"
done
unlisten l1
t_eq "host side: the listener accepted no connection" \
	"$(cat "$TMP/l1.accepts")" 0

holdcheck() { # holdcheck CHECK-CMD OPTIONS -- ROUTE...: CHECK while it runs
	chk=$1
	shift
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	cx $opts --setenv ROOT_ATTACK_HOLD=2 -- "$A" "$@" >"$OUT" 2>"$ERR" &
	hp=$!
	# It prints what it got, then holds its descriptors open.
	wait_for test -s "$OUT"
	eval "$chk" >"$TMP/hold" 2>&1
	wait $hp
}
holdcheck "ss -ltnpH | grep -c root-attack" --tcp -- listen-unbound
t_eq "listen() without bind(): EACCES (it would autobind 0.0.0.0:ephemeral)" \
	"$(cat "$OUT")" EACCES
t_eq "host side: no listening socket of the payload (ss)" "$(cat "$TMP/hold")" 0
try EACCES "listen() without bind(), IPv6: EACCES" --tcp -- listen-unbound6
# A refused connect, or connect(AF_UNSPEC), gives the autobound port back
# and leaves its number where getsockname reads it: listen then took a
# new ephemeral port on every address (found by review).
CP=$(freeport)
holdcheck "ss -ltnpH | grep -c root-attack" --tcp --connect-tcp "$CP" -- \
	listen-after-connect "$CP"
t_eq "listen() after a refused connect: EACCES" "$(cat "$OUT")" EACCES
t_eq "host side: no listening socket of the payload (ss)" \
	"$(cat "$TMP/hold")" 0
listener 127.0.0.1 "$CP" l2
holdcheck "ss -ltnpH | grep -c root-attack" --tcp --connect-tcp "$CP" -- \
	listen-after-unspec "$CP"
t_eq "listen() after connect and connect(AF_UNSPEC): EACCES" \
	"$(cat "$OUT")" EACCES
t_eq "host side: no listening socket of the payload (ss)" \
	"$(cat "$TMP/hold")" 0
unlisten l2
BP=$(freeport)
try OK "bind to a --bind-tcp port, then listen: OK" \
	--tcp --bind-tcp "$BP" -- listen-bound "$BP"
try OK "unix and tcp: the supervisor binds a --bind-tcp port" \
	--unix --tcp --bind-tcp "$BP" -- bind-tcp "$BP"
try EACCES "unix and tcp: an ungranted port: EACCES" \
	--unix --tcp --bind-tcp "$BP" -- bind-tcp "$PORT"

NAME=borne-test-$$
abs_connect="python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX)
try: s.connect(\"\\0$NAME\"); print(\"connected\")
except OSError as e: print(e.__class__.__name__)'"
holdcheck "$abs_connect" --unix -- bind-abstract "$NAME"
t_eq "bind to an abstract unix name: OK, in the run's own network" \
	"$(cat "$OUT")" OK
t_eq "host side: a host client cannot connect to that name" \
	"$(cat "$TMP/hold")" ConnectionRefusedError
# Sockets the plan never granted, inherited (keep-fd) from the caller:
# they are of the host's network, so bind and listen stay checked.
inherit() { # inherit DOMAIN ROUTE ARGS...: fd 3 a fresh socket of DOMAIN
	dom=$1
	shift
	"$PE" $SYS --rox "$HELP" $EXTRA \
	    --keep-fd 3 -- "$A" "$@" >"$TMP/inh.plan"
	python3 -c 'import os, socket, subprocess, sys
s = socket.socket(getattr(socket, sys.argv[1]), socket.SOCK_STREAM)
os.dup2(s.fileno(), 3)
subprocess.run([sys.argv[2]], stdin=open(sys.argv[3]), pass_fds=(3,))' \
	    "$dom" "$CX" "$TMP/inh.plan" >"$OUT" 2>"$ERR"
}
inherit AF_UNIX bind-abstract-fd 3 "$NAME"
t_eq "an inherited unix socket, no --unix: abstract bind EPERM" \
	"$(cat "$OUT")" EPERM
inherit AF_INET listen-fd 3
t_eq "an inherited unbound TCP socket, no --tcp: listen EACCES" \
	"$(cat "$OUT")" EACCES
try OK "unix autobind (address of the family only): OK, the run's own network" \
	--unix -- bind-autobind
try EPERM "SO_PASSCRED (autobinds on connect/send): EPERM" --unix -- passcred
holdcheck "$abs_connect" --unix -- bind-unix "$W/sock"
t_eq "bind to a pathname beneath --rw: OK" "$(cat "$OUT")" OK
t_eq "host side: the socket file is in the work tree, owned by root" \
	"$(stat -c '%F %u' "$W/sock" 2>&1)" "socket 0"
# The caller's own rights on the directory, not the supervisor's DAC
# override (found by review).
mkdir "$W/theirdir"
chown 65534:65534 "$W/theirdir"
chmod 755 "$W/theirdir"
try EACCES "bind in another owner's directory, mode 755: EACCES" \
	--unix -- bind-unix "$W/theirdir/sock"
ok "host side: no socket there" test ! -e "$W/theirdir/sock"
try EINVAL "bind with an address longer than sockaddr_un: EINVAL" \
	--unix -- bind-unix-len "$W/long" 128
try ENOENT "bind to a pathname outside the rules: ENOENT (not in the view)" \
	--unix -- bind-unix "$O/sock"
t_eq "host side: no socket file outside" "$(ls "$O")" "$(printf 'f\ng\nlog')"

# ---- 5. SysV IPC and POSIX queues -----------------------------------------
SHM=$(ipcmk -M 4096 | sed 's/.*: //')
MSQ=$(ipcmk -Q | sed 's/.*: //')
SEM=$(ipcmk -S 1 | sed 's/.*: //')
at_exit "ipcrm -m $SHM -q $MSQ -s $SEM 2>/dev/null"
SHMKEY=$(ipcs -m | awk -v id="$SHM" '$2 == id { print $1 }')
MSQKEY=$(ipcs -q | awk -v id="$MSQ" '$2 == id { print $1 }')
SEMKEY=$(ipcs -s | awk -v id="$SEM" '$2 == id { print $1 }')
# The run has an IPC namespace of its own: the host's objects do not
# exist there.
try ENOENT "shmget of a host segment: ENOENT" shmget "$SHMKEY"
try EINVAL "shmat of it by id: EINVAL" shmat "$SHM"
try EINVAL "IPC_RMID on it: EINVAL" shmrm "$SHM"
t_eq "host side: the segment is there, never attached" \
	"$(ipcs -m -i "$SHM" | grep -c 'att_time=Not set')" 1
try ENOENT "msgget of a host queue: ENOENT" msgget "$MSQKEY"
try EINVAL "msgrcv from it: EINVAL" msgrcv "$MSQ"
t_eq "host side: the queue is there" "$(ipcs -q -i "$MSQ" >/dev/null 2>&1;
	echo $?)" 0
try ENOENT "semget of a host semaphore set: ENOENT" semget "$SEMKEY"
try EPERM "mq_open (O_CREAT): EPERM" mq_open "/$NAME"
t_eq "host side: no POSIX queue created" "$(unshare -m sh -c "mount -t mqueue m /mnt && ls /mnt" 2>&1 | grep -c "$NAME")" 0

# ---- 6. the inherited terminal (a pty; the host reads it on the master) ---
cat >"$TMP/ttycheck.py" <<'EOF'
import fcntl, os, pty, select, struct, subprocess, sys, termios
cx, attack, plan_of, ops = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
m, s = pty.openpty()
def state():
    st = subprocess.run(["stty", "-a"], stdin=s, capture_output=True,
                        text=True).stdout
    excl = struct.unpack("i", fcntl.ioctl(s, 0x80045440, b"\0" * 4))[0]
    return st, excl
def flow():
    # Output still flows (TCXONC TCOOFF would stop it).
    os.write(s, b"out\n")
    buf = b""
    while b"out" not in buf:
        r, _, _ = select.select([m], [], [], 1)
        if not r:
            return False
        buf += os.read(m, 1000)
    return True
os.dup2(s, 9)			# fd 3 may be the master itself
os.set_inheritable(9, True)
before = state()
for op in ops:
    os.write(m, b"typed\n")
    if op.startswith("direct-"):	# the control: no confexec
        p = subprocess.run([attack, "tty", "9", op[7:]],
                           stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, pass_fds=(9,))
    else:
        with open(plan_of + op) as plan:
            p = subprocess.run([cx], stdin=plan, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, pass_fds=(9,))
    got = p.stdout.decode().strip()
    fl = flow()
    fcntl.fcntl(s, fcntl.F_SETFL, os.O_NONBLOCK)
    try:
        typed = b"typed" in os.read(s, 100)
    except BlockingIOError:
        typed = False
    fcntl.fcntl(s, fcntl.F_SETFL, 0)
    print(op, got, "same" if state() == before and fl and typed else
          "CHANGED")
EOF
for op in tcsets tcsetsw tcsetsf tcsets2 tiocswinsz tiocexcl tcflsh tcxonc \
    tiocsti tiocsetd; do
	"$PE" $SYS --rox "$HELP" $EXTRA \
	    --keep-fd 9 -- "$A" tty 9 "$op" >"$TMP/tty.$op"
done
"$PE" $SYS --rox "$HELP" $EXTRA --keep-fd 9 \
    -- "$A" tty-hi 9 tcsets >"$TMP/tty.hi"
python3 "$TMP/ttycheck.py" "$CX" "$A" "$TMP/tty." tcsets tcsetsw tcsetsf \
    tcsets2 tiocswinsz tiocexcl tcflsh tcxonc tiocsti tiocsetd hi \
    direct-tiocswinsz >"$TMP/tty.out" 2>&1
for op in tcsets tcsetsw tcsetsf tcsets2 tiocswinsz tiocexcl tcflsh tcxonc \
    tiocsti tiocsetd hi; do
	t_eq "inherited tty, $op: EPERM; host side: stty -a, exclusive mode, queued input, output flow unchanged" \
		"$(grep "^$op " "$TMP/tty.out")" "$op EPERM same"
done
t_eq "control: the same ioctl outside confexec changes the terminal (the check can fail)" \
	"$(grep "^direct-" "$TMP/tty.out")" "direct-tiocswinsz OK CHANGED"

# ---- 7. a FIFO or a device as the program --------------------------------
CG2=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo |
	head -n 1)
SELF=$(sed -n 's/^0:://p' /proc/self/cgroup)
CGDIR=$CG2${SELF%/}
# cx_bounded PLAN: confexec on PLAN, killed after 10 s; $rc its status and
# $cxp its pid (run cgroups are named borne-PID-...).
cx_bounded() {
	"$CX" <"$1" >"$OUT" 2>"$ERR" &
	cxp=$!
	( sleep 10; kill -KILL $cxp 2>/dev/null ) &
	killer=$!
	wait $cxp
	rc=$?
	kill $killer 2>/dev/null
}
mkfifo "$TMP/fifo"
"$PE" $SYS -- "$TMP/fifo" >"$TMP/fifo.plan"
cx_bounded "$TMP/fifo.plan"
t_eq "a FIFO as the program: 126, without blocking in open" "$rc" 126
t_grep "named: not a regular file" "fifo: not a regular file" "$ERR"
t_eq "no cgroup left behind by that run" \
	"$(ls -1 "$CGDIR" | grep -c "^borne-$cxp-")" 0
"$PE" $SYS -- /dev/null >"$TMP/dev.plan"
cx_bounded "$TMP/dev.plan"
t_eq "a device as the program: 126" "$rc" 126
t_eq "no cgroup left behind by that run" \
	"$(ls -1 "$CGDIR" | grep -c "^borne-$cxp-")" 0

# ---- 8. more of what uid 0 reaches beside Landlock ------------------------
try EPERM "keyctl: EPERM" keyctl
try EPERM "add_key to the uid-0 keyring: EPERM" add_key
try EPERM "request_key: EPERM" request_key
t_eq "host side: no key named borne" "$(grep -c ' borne' /proc/keys)" 0
try EPERM "fanotify_init: EPERM" fanotify
try ENOENT "inotify watch on a file outside the rules: ENOENT (not in the view)" \
	inotify "$O/f"
try EACCES "inotify watch on a directory the view has but no rule grants: EACCES" \
	inotify "$TMP"
try OK "inotify watch beneath a rule: OK" inotify "$W"
try EPERM "listmount (the host's mount table): EPERM" listmount
try EPERM "statmount: EPERM" statmount
try EPERM "a seccomp listener of its own (would answer ours): EPERM" \
	seccomp-listener
try EPERM "syslog: EPERM" syslog
cx -- "$HELP/escape" read /proc/1/environ >"$OUT" 2>"$ERR"
t_eq "/proc outside the rules: EACCES (Landlock)" "$(cat "$OUT")" EACCES
PROC="--ro /proc"
[ -n "$EXTRA" ] && PROC=	# the asan build has it already
cx $PROC -- "$HELP/escape" read "/proc/$SP/environ" >"$OUT" 2>"$ERR"
# The run's /proc is its pid namespace's: host processes are not there
# (pid numbers of the run are small: the host's sleep is never one).
t_eq "/proc granted: a host process's environ, ENOENT (the run's /proc)" \
	"$(cat "$OUT")" ENOENT
cx $PROC -- "$HELP/escape" read "/proc/$SP/cmdline" >"$OUT" 2>"$ERR"
t_eq "/proc granted: its cmdline too, ENOENT" "$(cat "$OUT")" ENOENT

# ---- 9. the end record counts the supervisor's answers --------------------
try EACCES "one more denial (a watch outside the rules)" inotify "$TMP"
tail -n 1 "$TMP/journal" >"$TMP/last"
t_grep "end record: notify counts (denied 1)" \
	'"notify":\{"allowed":"0","denied":"1","failed":"0","observed":"0"\}' "$TMP/last"
try EROFS "a metadata change beneath --ro: EROFS, the kernel's" chmod "$R/f" 777
tail -n 1 "$TMP/journal" >"$TMP/last"
t_grep "end record: nothing for the supervisor (denied 0)" \
	'"notify":\{"allowed":"0","denied":"0","failed":"0","observed":"0"\}' "$TMP/last"

# ---- 10. metadata work beneath --rw keeps working ------------------------
mkdir -p "$TMP/src/d"
echo a >"$TMP/src/a"
echo b >"$TMP/src/b"
echo c >"$TMP/src/d/c"
chmod 750 "$TMP/src/a"
chmod 600 "$TMP/src/b"
chmod 755 "$TMP/src/d/c"
chmod 700 "$TMP/src/d"
touch -d '2001-09-09 01:46:40 UTC' "$TMP/src/a" "$TMP/src/b" \
	"$TMP/src/d/c" "$TMP/src/d"
tar -cf "$W/t.tar" --owner=0 --group=0 -C "$TMP/src" .
t_exit 0 "tar x with modes and times into the work tree" \
	cx -- /usr/bin/tar -xpf "$W/t.tar" -C "$W" --no-same-owner
t_eq "host side: modes and times as archived" \
	"$(cd "$W" && stat -c '%n %a %Y' a b d d/c | tr '\n' ' ')" \
	"a 750 1000000000 b 600 1000000000 d 700 1000000000 d/c 755 1000000000 "
t_exit 0 "tar x as root restores owner 0 too" \
	cx -- /usr/bin/tar -xpf "$W/t.tar" -C "$W" --same-owner
t_exit 0 "cp -p" cx -- /usr/bin/cp -p "$W/a" "$W/cp-a"
t_eq "host side: cp -p kept mode and time" "$(stat -c '%a %Y' "$W/cp-a")" \
	"750 1000000000"
t_exit 0 "install -m 755" cx -- /usr/bin/install -m 755 "$W/b" "$W/inst"
t_eq "host side: installed 755" "$(stat -c %a "$W/inst")" 755
plain_edits "setfattr user.* on a work file"
try OK "a POSIX ACL on a work file it owns" acl "$W/plain"
t_eq "host side: the ACL is there" \
	"$(getfattr -n system.posix_acl_access --absolute-names "$W/plain" 2>/dev/null |
	    grep -c posix_acl_access)" 1
tail -n 1 "$TMP/journal" >"$TMP/last"
t_grep "end record: the kernel did it all (the supervisor answered none)" \
	'"notify":\{"allowed":"0","denied":"0","failed":"0","observed":"0"\}' "$TMP/last"
mkdir "$TMP/real"
ln -s "$TMP/real" "$TMP/alias"
echo x >"$TMP/real/f"
chmod 600 "$TMP/real/f"
t_exit 0 "a --rw rule named through a symlink: chmod beneath it works" \
	cx --rw "$TMP/alias" --follow-symlinks "$TMP/alias" -- \
	/usr/bin/chmod 640 "$TMP/alias/f"
t_eq "host side: mode set" "$(stat -c %a "$TMP/real/f")" 640
if command -v git >/dev/null 2>&1; then
	git init -q "$W/repo"
	printf '#!/bin/sh\n' >"$W/repo/exe"
	chmod 755 "$W/repo/exe"
	git -C "$W/repo" add exe
	git -C "$W/repo" -c user.name=t -c user.email=t@t commit -qm x
	chmod 644 "$W/repo/exe"
	t_exit 0 "git checkout of an executable file" \
		cx --setenv HOME="$W" --rw /dev/null --ro /etc -- /usr/bin/git -C "$W/repo" checkout -- exe
	t_eq "host side: checked out 755" "$(stat -c %a "$W/repo/exe")" 755
else
	skip "git checkout of an executable file" "no git"
fi

done_testing
