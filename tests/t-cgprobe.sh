#!/bin/sh
# cgprobe: its answers checked against independent probes of this machine,
# --require, --json, the daemon inventory, and read-only operation.
. "$(dirname "$0")/lib.sh"
needs root cgroup2 landlock=1 jq unshare setpriv

CG=$BIN/cgprobe
t_exit 0 "cgprobe runs" "$CG"
cp "$OUT" "$TMP/kv"
key() { sed -n "s/^$1=//p" "$TMP/kv"; }

# Landlock: the ABI straight from the syscall in a separate helper.
t_eq "landlock.abi matches the landlock-abi helper" \
    "$(key landlock.abi)" "$("$HELP/landlock-abi")"
abi=$("$HELP/landlock-abi")
for f in fs:1 refer:2 truncate:3 tcp:4 ioctl_dev:5 scope:6 log_flags:7; do
	n=${f#*:}; k=${f%:*}
	if [ "$abi" -ge "$n" ]; then want=yes; else want=no; fi
	t_eq "landlock.$k is $want at ABI $abi" "$(key "landlock.$k")" "$want"
done

# cgroup2: the mount from mountinfo (awk), the caller's cgroup from
# /proc/self/cgroup, the controllers from the file itself.
mnt=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") {
	if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo |
    head -n 1)
t_eq "cgroup2.mount matches mountinfo" "$(key cgroup2.mount)" "$mnt"
if grep -q ' - cgroup ' /proc/self/mountinfo; then mode=hybrid; else mode=pure; fi
t_eq "cgroup2.mode is $mode" "$(key cgroup2.mode)" "$mode"
t_eq "cgroup2.v1_hierarchies counted" "$(key cgroup2.v1_hierarchies)" \
    "$(grep -c ' - cgroup ' /proc/self/mountinfo)"
self=$(sed -n 's/^0:://p' /proc/self/cgroup)
t_eq "cgroup2.self matches /proc/self/cgroup" "$(key cgroup2.self)" "$self"
dir=$mnt${self%/}
t_eq "cgroup2.dir is mount + self" "$(key cgroup2.dir)" "$dir"
t_eq "available controllers are cgroup.controllers" \
    "$(key cgroup2.controllers.available)" "$(cat "$dir/cgroup.controllers")"
t_eq "enabled controllers are cgroup.subtree_control" \
    "$(key cgroup2.controllers.enabled)" "$(cat "$dir/cgroup.subtree_control")"
if [ -w "$dir" ]; then w=yes; else w=no; fi
t_eq "cgroup2.writable is $w" "$(key cgroup2.writable)" "$w"
t_eq "clone3(CLONE_INTO_CGROUP) usable" "$(key cgroup2.clone_into_cgroup)" yes
# cgroup.kill: make a child cgroup (after the probe ran) and look.
child=$dir/borne-t-cgprobe.$$
mkdir "$child" && at_exit "rmdir '$child' 2>/dev/null || :"
if [ -e "$child/cgroup.kill" ]; then cgkill=yes; else cgkill=no; fi
t_eq "cgroup2.kill matches a real child cgroup ($cgkill)" "$(key cgroup2.kill)" "$cgkill"
"$CG" >"$TMP/kv2"
t_grep "with a child present, the evidence is the child" \
    '^cgroup2.kill_evidence=child$' "$TMP/kv2"
rmdir "$child"

# memfd, seccomp, caller.
# vm.memfd_noexec came with MFD_EXEC (Linux 6.3); before, cgprobe says -1.
if [ -e /proc/sys/vm/memfd_noexec ]; then
	noexec=$(cat /proc/sys/vm/memfd_noexec) mfd_exec=yes
else
	noexec=-1 mfd_exec=no
fi
t_eq "memfd.noexec is vm.memfd_noexec ($noexec)" "$(key memfd.noexec)" "$noexec"
t_eq "memfd.exec_flag is $mfd_exec" "$(key memfd.exec_flag)" "$mfd_exec"
avail=" $(cat /proc/sys/kernel/seccomp/actions_avail) "
for a in kill_process kill_thread trap errno user_notif trace log; do
	case $avail in *" $a "*) want=yes ;; *) want=no ;; esac
	t_eq "seccomp.action.$a matches actions_avail ($want)" \
	    "$(key "seccomp.action.$a")" "$want"
done
t_eq "seccomp filter mode available" "$(key seccomp.filter)" yes
t_eq "seccomp.arch is uname -m" "$(key seccomp.arch)" "$(uname -m)"
t_eq "caller.uid" "$(key caller.uid)" "$(id -u)"
t_eq "caller.gid" "$(key caller.gid)" "$(id -g)"
t_eq "caller.root" "$(key caller.root)" yes
t_eq "userns.max is the sysctl" "$(key userns.max)" \
    "$(cat /proc/sys/user/max_user_namespaces)"
t_eq "no_new_privs not set on the caller" "$(key no_new_privs.set)" no
t_exit 0 "under setpriv --no-new-privs" setpriv --no-new-privs "$CG"
t_grep "no_new_privs.set=yes seen" '^no_new_privs.set=yes$' "$OUT"

# /etc/subuid and /etc/subgid of our own, bind-mounted in a private mount
# namespace: ranges by name and by numeric uid, malformed lines skipped.
me=$(id -un)
cat >"$TMP/subuid" <<EOS
$me:100000:65536
nobody:200000:65536
0:300000:10
$me:x:1
$me:5
$me:400000:0
$me:4294967295:2
${me}x:500000:1
EOS
printf '%s:600000:1000\n' "$me" >"$TMP/subgid"
t_exit 0 "own subuid/subgid files: runs" unshare -m --propagation private \
    sh -c 'mount --bind "$1" /etc/subuid && mount --bind "$2" /etc/subgid &&
    exec "$3"' sh "$TMP/subuid" "$TMP/subgid" "$CG"
t_grep "subuid ranges by name and uid, malformed skipped" \
    '^subuid.ranges=100000:65536,300000:10$' "$OUT"
t_grep "subgid range" '^subgid.ranges=600000:1000$' "$OUT"
t_exit 0 "--require subuid,subgid with ranges" unshare -m \
    --propagation private sh -c 'mount --bind "$1" /etc/subuid &&
    mount --bind "$2" /etc/subgid && exec "$3" --require subuid,subgid' \
    sh "$TMP/subuid" "$TMP/subgid" "$CG"
: >"$TMP/empty"
t_exit 1 "--require subuid without ranges is 1" unshare -m \
    --propagation private sh -c 'mount --bind "$1" /etc/subuid &&
    exec "$2" --require subuid' sh "$TMP/empty" "$CG"
t_grep "names subuid" "^cgprobe: subuid: not enforceable: no /etc/subuid range" "$ERR"

# Every key is documented in the man page.
missing=
for k in $(cut -d= -f1 "$TMP/kv" | grep -v '^daemon\.') daemon.count; do
	grep -q -- "\*$k\*" "$T_TOP/man/cgprobe.1.scd" || missing="$missing $k"
done
for n in docker containerd podman buildkit libvirt libvirt-ro dbus-system \
    crio snapd lxd incus docker-rootless podman-rootless; do
	grep -Eq "^\|  ([a-z-]+, )*$n(,|\$)" "$T_TOP/man/cgprobe.1.scd" ||
	    missing="$missing daemon.$n"
done
t_eq "every key is in cgprobe(1)" "$missing" ""

# --require.  What a controller needs (cgprobe(1)): the caller's cgroup
# writable and the controller in its cgroup.controllers, read here from
# the files; a cgroup two levels below ours, to which nothing is
# delegated, shows the refusal on every host.
ctl_want() { # ctl_want CTL: the exit status --require CTL must have
	if [ -w "$dir" ] && grep -qw -- "$1" "$dir/cgroup.controllers"; then
		echo 0
	else
		echo 1
	fi
}
for c in memory pids cpu; do
	w=$(ctl_want $c)
	t_exit "$w" "--require $c is $w: $c is $([ "$w" = 0 ] || echo "not ")in $dir/cgroup.controllers" \
	    "$CG" --require $c
	t_eq "--require $c: nothing on stdout" "$(cat "$OUT")" ""
	if [ "$w" = 0 ]; then
		t_eq "--require $c: silent on success" "$(cat "$ERR")" ""
	else
		t_grep "names $c and why" \
		    "^cgprobe: $c: not enforceable: .*$c controller" "$ERR"
	fi
done
noctl=$dir/t-cgprobe-noctl.$$
mkdir "$noctl" "$noctl/leaf" &&
    at_exit "rmdir '$noctl/leaf' '$noctl' 2>/dev/null || :"
in_noctl() { sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh \
    "$noctl/leaf" "$@"; }
t_exit 0 "in a cgroup with nothing delegated: runs" in_noctl "$CG"
t_grep "its cgroup2.self is that cgroup" \
    "^cgroup2.self=${self%/}/t-cgprobe-noctl.$$/leaf\$" "$OUT"
t_grep "no controller available there" '^cgroup2.controllers.available=$' \
    "$OUT"
t_exit 1 "there, --require memory,pids,cpu is 1" in_noctl "$CG" \
    --require memory,pids,cpu
t_eq "one line each, naming the missing controller" \
    "$(sed -n 's/^cgprobe: \([a-z]*\): not enforceable: .* has no \1 controller$/\1/p' "$ERR" |
    paste -sd, -)" memory,pids,cpu
t_exit 0 "--require landlock,seccomp succeeds" "$CG" --require landlock,seccomp
t_eq "silent on success" "$(cat "$OUT" "$ERR")" ""
# Several mechanisms, some missing: subuid made missing (an empty
# /etc/subuid), memory and pids as this host has them.
miss=
for c in pids memory; do [ "$(ctl_want $c)" = 0 ] || miss=$miss$c,; done
miss=${miss}subuid
t_exit 1 "one missing among several ($miss)" unshare -m \
    --propagation private sh -c 'mount --bind "$1" /etc/subuid &&
    exec "$2" --require landlock,pids,seccomp,memory,subuid' sh \
    "$TMP/empty" "$CG"
t_eq "one line per missing mechanism, in order" \
    "$(cut -d: -f2 "$ERR" | tr -d ' ' | paste -sd, -)" "$miss"
# What this kernel offers, from the probes above: Landlock levels from
# the landlock-abi helper, cgroup.kill from the child cgroup, MFD_EXEC
# with vm.memfd_noexec.
req=clone-into-cgroup,close-range,execveat
[ "$cgkill" = yes ] && req=$req,cgroup-kill
[ "$mfd_exec" = yes ] && req=$req,memfd-exec
for f in refer:2 truncate:3 tcp:4 ioctl-dev:5 scope:6 log:7; do
	[ "$abi" -ge "${f#*:}" ] && req=$req,landlock-${f%:*}
done
t_exit 0 "--require what this kernel offers ($req)" "$CG" --require "$req"
if [ "$abi" -lt 7 ]; then
	t_exit 1 "--require landlock-log at ABI $abi is 1" "$CG" \
	    --require landlock-log
	t_grep "names the ABI needed" \
	    "^cgprobe: landlock-log: not enforceable: needs Landlock ABI 7, kernel has $abi" \
	    "$ERR"
fi
t_exit 2 "unknown mechanism is 2" "$CG" --require landlock,frobnicate
t_grep "unknown name named" "unknown mechanism: frobnicate" "$ERR"
t_exit 2 "empty list is 2" "$CG" --require ""
t_exit 2 "empty item is 2" "$CG" --require landlock,,seccomp
t_exit 2 "--json with --require is 2" "$CG" --json --require landlock
t_exit 2 "an operand is 2" "$CG" extra
t_exit 2 "unknown option is 2" "$CG" --frob
t_exit 0 "-h" "$CG" -h
t_grep "usage on stdout" "^usage: cgprobe " "$OUT"

# --json: valid, and the same facts as key=value.
t_exit 0 "--json runs" "$CG" --json
t_eq "--json is one line" "$(wc -l <"$OUT" | tr -d ' ')" 1
cp "$OUT" "$TMP/json"
ok "--json parses with jq" jq -e 'type == "object"' "$TMP/json"
# Other tests on this host may create cgroups or sockets between two runs:
# a snapshot is compared with the next one, up to three tries.
fromjson() {
	jq -r 'to_entries[] | "\(.key)=\(if .value == true then "yes"
	    elif .value == false then "no" else .value end)"' "$1"
}
same=no
for try in 1 2 3; do
	"$CG" --json >"$TMP/json" && fromjson "$TMP/json" >"$TMP/fromjson" &&
	    "$CG" >"$TMP/kv3" && cmp -s "$TMP/fromjson" "$TMP/kv3" &&
	    { same=yes; break; }
done
t_eq "--json agrees with key=value" "$same" yes
[ "$same" = yes ] || diff "$TMP/fromjson" "$TMP/kv3" | diag
t_eq "landlock.abi is a JSON number" "$(jq '."landlock.abi" | type' "$TMP/json")" '"number"'

# Daemon sockets, in a private mount namespace with an empty /run.
ns() { unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=0755 tmpfs /run && "$@"' sh "$@"; }
t_exit 0 "empty /run: runs" ns "$CG"
t_grep "no daemon found" '^daemon.count=0$' "$OUT"
t_nogrep "no docker key" '^daemon\.docker=' "$OUT"
t_exit 0 "docker socket: runs" ns "$HELP/unix-listen" /run/docker.sock 0600 "$CG"
t_grep "docker connectable for root" '^daemon.docker=/run/docker.sock connectable$' "$OUT"
t_grep "counted once (/var/run is /run)" '^daemon.count=1$' "$OUT"
t_exit 0 "docker socket, unprivileged caller" ns "$HELP/unix-listen" \
    /run/docker.sock 0600 setpriv --reuid 65534 --regid 65534 \
    --clear-groups "$CG"
t_grep "not connectable for uid 65534" \
    '^daemon.docker=/run/docker.sock not-connectable$' "$OUT"
t_exit 0 "world-writable socket, unprivileged caller" ns "$HELP/unix-listen" \
    /run/docker.sock 0666 setpriv --reuid 65534 --regid 65534 \
    --clear-groups "$CG"
t_grep "connectable for uid 65534 when 0666" \
    '^daemon.docker=/run/docker.sock connectable$' "$OUT"
t_exit 0 "a regular file is no daemon" ns sh -c ': >/run/docker.sock && exec "$1"' sh "$CG"
t_grep "regular file not counted" '^daemon.count=0$' "$OUT"

# Read-only: under a Landlock domain that allows only read and execute,
# cgprobe still works and says the same (the helper is shown to bite).
t_exit 0 "landlock-ro: cgprobe exits 0" "$HELP/landlock-ro" "$CG"
same=no
for try in 1 2 3; do
	"$HELP/landlock-ro" "$CG" >"$TMP/kv-ro" && "$CG" >"$TMP/kv4" &&
	    cmp -s "$TMP/kv-ro" "$TMP/kv4" && { same=yes; break; }
done
t_eq "landlock-ro: same output" "$same" yes
t_exit 0 "landlock-ro: --json exits 0" "$HELP/landlock-ro" "$CG" --json
t_exit 0 "landlock-ro: --require exits 0" "$HELP/landlock-ro" "$CG" --require landlock
t_exit 1 "landlock-ro really forbids writing" "$HELP/landlock-ro" \
    sh -c 'echo x >"$1" 2>/dev/null || exit 1' sh "$TMP/written"
t_eq "nothing was written" "$(ls "$TMP/written" 2>/dev/null)" ""


# ---- the command line: options anywhere, one error format ----
# A usage error: exit 2, nothing on stdout, two lines on stderr: what was
# wrong (matching $2) and the hint.
usage_err() {
	desc=$1 re=$2; shift 2
	t_exit 2 "$desc: exit 2" "$CG" "$@"
	t_eq "$desc: nothing on stdout" "$(cat "$OUT")" ""
	t_eq "$desc: says what was wrong, then the hint" \
	    "$(sed -n 1p "$ERR" | grep -c -E -- "^cgprobe: $re")$(sed -n '2,$p' "$ERR")" \
	    "1try 'cgprobe --help'"
}
usage_err "an operand before an option" "unexpected operand: x " x --json
usage_err "an operand after an option" "unexpected operand: x " --json x
usage_err "an operand after --" "unexpected operand: --json " -- --json
POSIXLY_CORRECT=1 "$CG" x --json >"$TMP/pc.out" 2>"$TMP/pc.err"
t_eq "POSIXLY_CORRECT: the operand is still refused (2, nothing printed)" \
    "$?:$(wc -c <"$TMP/pc.out" | tr -d ' '):$(sed -n 1p "$TMP/pc.err")" \
    "2:0:cgprobe: unexpected operand: x (cgprobe takes none)"
usage_err "an unknown option" "unknown or ambiguous option: --frob" --frob
usage_err "an unknown short option" "unknown option: -z" -z
usage_err "--require without its value" "--require needs a value" --require
usage_err "a value given to --json" "--json takes no value" --json=yes
usage_err "an unknown mechanism" "--require: unknown mechanism: frobnicate " \
    --require landlock,frobnicate
usage_err "an empty mechanism" "--require: empty mechanism name" \
    --require landlock,,seccomp
usage_err "--require twice" "--require seccomp: given twice; it takes one value" \
    --require landlock --require seccomp
usage_err "--json with --require" "--json and --require exclude each other" \
    --require landlock --json
t_exit 0 "options in any order: -r after nothing else" "$CG" -r landlock
t_exit 0 "-j is --json" "$CG" -j
t_eq "-j prints one JSON object" "$(jq -r '."caller.root"' "$OUT")" true
t_exit 0 "--version" "$CG" --version
t_grep "--version: cgprobe VERSION" "^cgprobe [^ ]+$" "$OUT"
t_exit 0 "--help" "$CG" --help
t_grep "--help: one line for --require, with its value" \
    "^ +-r, --require LIST +[^ ]" "$OUT"

# The namespace keys: root here, with CAP_SYS_ADMIN and no filter, makes
# them (the refusals are shown by t-confexec-contained.sh).
for k in syscall.clone3 namespace.pid namespace.mount namespace.ipc \
    namespace.net caller.cap_sys_admin; do
    t_eq "$k=yes for root with CAP_SYS_ADMIN" "$(key "$k")" yes
done
t_eq "namespace.why is empty then" "$(key namespace.why)" ""
t_exit 0 "--require clone3,seccomp-listener,pid-namespace,mount-namespace,ipc-namespace,net-namespace" \
    "$CG" --require \
    clone3,seccomp-listener,pid-namespace,mount-namespace,ipc-namespace,net-namespace
t_exit 1 "without CAP_SYS_ADMIN: --require pid-namespace is 1" \
    setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$CG" \
    --require pid-namespace
t_grep "naming CAP_SYS_ADMIN and who provides it" \
    'pid-namespace: not enforceable: unshare\(CLONE_NEWPID\): Operation not permitted \(needs CAP_SYS_ADMIN: docker run --cap-add SYS_ADMIN\)' \
    "$ERR"
t_exit 1 "under a filter answering ENOSYS to clone3: --require clone3 is 1" \
    "$HELP/deny-clone3" "$CG" --require clone3

done_testing
