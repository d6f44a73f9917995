# tests/container-suite.sh: confexec inside a default container, the
# checks shared by t-confexec-docker.sh (a rootful Docker engine) and
# t-confexec-podman.sh (rootless Podman), sourced after tests/lib.sh by a
# file that has defined
#   ce ARG...      the engine's client (docker-compatible commands: import,
#                  run, exec, top, wait, rm)
#   CE_NAME        docker or podman
#   ce_own PATH... give PATH (recursively) to the container's root, who
#                  must write the bind mount (a no-op for a rootful engine)
# and started the engine.  It checks, with the static build and busybox
# in an image made here:
#   - cgprobe --require answers for what the container can do (the
#     kernel's own answer, tried in the container, is the reference);
#   - strict mode refuses (125), one line per missing layer, naming what
#     would provide it; the payload does not run; the refusal journaled;
#   - --degrade runs with every layer the container allows, each proven
#     from inside with its exact errno (Landlock EACCES, seccomp EPERM,
#     leaked descriptors closed, no_new_privs, no capability, rlimits,
#     the sealed image), and names each missing layer on stderr and in
#     the journal;
#   - a confexec run inside a degraded one (nested) runs with its own
#     layers, each proven from inside, or is refused (125) naming why:
#     strict mode, an outer plan without --unix or without /proc;
#   - the whole tree, a setsid grandchild included, is gone when the
#     payload ends and at the timeout (124), as the engine's top and exec
#     and the container's /proc see it;
#   - contrib/ci-job.sh runs a small shell-built project in the container.
# What the container lacks is found in it (cgprobe for the cgroup,
# unshare(1) for the namespaces), never assumed from this machine.
#
# The container gets the static build (an image has no libc of the
# host's): in the static variant $BORNE_BIN; run in another variant, the
# suite uses .build/static (make static) and says so.  make check runs
# these suites in its static stage only (Makefile, STATIC_ONLY_TESTS).

need_cmd busybox
need_cmd jq
need_cmd file
need_cmd flock

# why FILE [N]: show FILE when a test failed since the last call (no
# diagnostics from tests that pass).
_nf=$T_FAIL
why() { [ "$T_FAIL" -gt "$_nf" ] && diag_file "$@"; _nf=$T_FAIL; }

# ---- the static build ----
if [ "$VARIANT" = static ]; then
	SB=$BIN SH=$HELP
else
	SB=$T_TOP/.build/static/bin SH=$T_TOP/.build/static/helpers
	[ -x "$SB/confexec" ] && [ -x "$SH/escape" ] ||
	    skip_all "the container runs the static build: make static first (make check runs this suite in its static stage)"
	note "variant $VARIANT: the container runs the static build of $SB"
fi
TOOLS="confexec planenc cgprobe journalchain"
HELPERS="escape fd-list landlock-abi"
for f in $TOOLS confexec-canary; do echo "$SB/$f"; done >"$TMP/files"
for f in $HELPERS; do echo "$SH/$f"; done >>"$TMP/files"
command -v busybox >>"$TMP/files"
nonstatic=$(while read -r f; do
	file -L "$f" | grep -Eq 'statically linked|static-pie linked' || echo "$f"
done <"$TMP/files")
t_eq "the tools, helpers and busybox are static" "$nonstatic" ""

# ---- the image: busybox, the static tools and helpers, the CI job ----
IMG=$TMP/img
L=/usr/local/libexec/borne
mkdir -p "$IMG/bin" "$IMG/usr/local/bin" "$IMG$L" "$IMG/ci/bin" "$IMG/w" \
	"$IMG/tmp" "$IMG/etc"
chmod 1777 "$IMG/tmp"
cp "$(command -v busybox)" "$IMG/bin/busybox"
for a in $(busybox --list); do
	[ "$a" = busybox ] || ln -s busybox "$IMG/bin/$a"
done
# confexec --canary's probe program, beside confexec.
for f in $TOOLS confexec-canary; do cp "$SB/$f" "$IMG/usr/local/bin/"; done
for f in $HELPERS; do cp "$SH/$f" "$IMG$L/"; done
# The CI job installs the tools from a release-shaped archive.
for f in $TOOLS; do cp "$SB/$f" "$IMG/ci/bin/"; done
tar -cf "$IMG/ci/borne.tar" -C "$IMG/ci" bin
rm -r "$IMG/ci/bin"
cp "$T_TOP/contrib/ci-job.sh" "$IMG/ci/"
echo 'root:x:0:0:root:/root:/bin/sh' >"$IMG/etc/passwd"
(cd "$IMG" && tar -cf "$TMP/img.tar" .)
I=borne-cx:test
ok "$CE_NAME import the image" ce import "$TMP/img.tar" "$I"

# The bind mount every container gets at /w: scripts in, results out.
W=$TMP/w
mkdir -p "$W"
# crun NAME SCRIPT-TEXT [-d]: run the script in a default container
# (default capabilities and seccomp, no network), its stdout and stderr
# in $W/NAME.out and $W/NAME.err; its status returned.  With -d it is
# detached (its id in NAME.out) and kept when it ends (ce inspect).
crun() {
	_n=$1 _s=$2 _rm=--rm; shift 2
	[ "${1-}" = -d ] && _rm=
	printf '%s\n' "$_s" >"$W/$_n.sh"
	ce_own "$W"
	ce run $_rm --network none -v "$W:/w" "$@" "$I" \
	    sh /w/"$_n".sh >"$W/$_n.out" 2>"$W/$_n.err"
}
# The preamble of every script: the tools, the helpers, the plan options
# every run shares (no image cache: it needs CAP_LINUX_IMMUTABLE, which
# a default container lacks; every run seals a private memfd).
PRE='set -u
T=/usr/local/bin H=/usr/local/libexec/borne
cx() { "$T/confexec" --no-image-cache "$@"; }'

# ---- what the container can do, asked of the kernel in it ----
crun probe "$PRE
cd /w
\$T/cgprobe >probe.cgprobe
\$H/landlock-abi >probe.abi 2>&1
\$H/escape clone3 >probe.clone3
for ns in p:pid m:mount i:ipc n:net U:user; do
	f=\${ns%%:*}
	if [ \$f = p ]; then unshare -p -f true; else unshare -\$f true; fi \
	    >/dev/null 2>&1 && echo \"\${ns#*:} yes\" || echo \"\${ns#*:} no\"
done >probe.ns
# the cgroup2 mounts and their options (the fs type follows the \"-\")
awk '{ for (i = 7; i < NF; i++) if (\$i == \"-\") {
	if (\$(i + 1) == \"cgroup2\") print \$5, \$6; break } }' \
    /proc/self/mountinfo >probe.cg2
"
t_eq "the probe container ran" "$?" 0
why "$W/probe.err"
ns_can() { grep -qx "$1 yes" "$W/probe.ns"; }
kv() { sed -n "s/^$1=//p" "$W/probe.cgprobe"; }
note "in the container: $(tr '\n' ' ' <"$W/probe.ns")" \
	"cgroup2 mounts: $(tr '\n' ' ' <"$W/probe.cg2")"

# The layers the container lacks, by confexec's names (the dry run's,
# the journal's, and the subject of its refusal and warning lines).
MISSING=
grep -q ' rw' "$W/probe.cg2" || MISSING="$MISSING cgroup"
ns_can pid || MISSING="$MISSING pid-namespace"
ns_can mount || MISSING="$MISSING mount-view"
ns_can ipc || MISSING="$MISSING ipc-namespace"
note "missing layers:${MISSING:- none}"

# ---- cgprobe --require: the container's answers ----
crun req "$PRE
r() { \$T/cgprobe --require \"\$1\" 2>/w/req.\$1.err; echo \"\$1 \$?\"; }
r landlock,seccomp,no-new-privs,memfd-seal,execveat,close-range,pidfd
r cgroup2
r cgroup-kill
r userns
r memory
r cgroup2,userns,landlock
for m in pid mount ipc net; do r \$m-namespace; done
r pid-namespace,mount-namespace,ipc-namespace,net-namespace,landlock
r clone3
"
req() { sed -n "s/^$1 //p" "$W/req.out"; }
abi=$(cat "$W/probe.abi")
t_eq "cgprobe's Landlock ABI is the one the container's kernel answers ($abi)" \
	"$(kv landlock.abi)" "$abi"
t_eq "--require landlock,seccomp,no-new-privs,memfd-seal,execveat,close-range,pidfd: yes" \
	"$(req landlock,seccomp,no-new-privs,memfd-seal,execveat,close-range,pidfd)" 0
# cgprobe's namespace.* keys: the run's namespaces as confexec would make
# them, against unshare(1) in the same container.
for ns in pid mount ipc net; do
	ns_can $ns && want=yes || want=no
	t_eq "cgprobe namespace.$ns is what unshare finds ($want)" \
	    "$(kv namespace.$ns)" "$want"
done
case " $MISSING " in *" cgroup "*) want=1 ;; *) want=0 ;; esac
t_eq "--require cgroup2 answers as the container's mounts say ($want)" "$(req cgroup2)" "$want"
t_eq "--require cgroup-kill too" "$(req cgroup-kill)" "$want"
[ "$want" -eq 1 ] && t_eq "--require memory too" "$(req memory)" 1
ns_can user && want=0 || want=1
t_eq "--require userns answers as unshare -U in the container ($want)" \
	"$(req userns)" "$want"
n=$(grep -c . "$W/req.cgroup2,userns,landlock.err")
want=0
grep -q ' rw' "$W/probe.cg2" || want=$((want + 1))
ns_can user || want=$((want + 1))
t_eq "--require cgroup2,userns,landlock: one line per missing mechanism ($want)" \
	"$n" "$want"
why "$W/req.cgroup2,userns,landlock.err"
# The namespace mechanisms (cgprobe(1), MECHANISMS) against unshare.
want=0
for ns in pid mount ipc net; do
	ns_can $ns && w=0 || { w=1; want=$((want + 1)); }
	t_eq "--require $ns-namespace answers as unshare -${ns%"${ns#?}"} ($w)" \
	    "$(req $ns-namespace)" "$w"
done
t_eq "--require of the four and landlock: one line per missing one ($want)" \
	"$(grep -c '^cgprobe: [a-z]*-namespace: not enforceable: ' \
	"$W/req.pid-namespace,mount-namespace,ipc-namespace,net-namespace,landlock.err")" \
	"$want"
t_eq "each naming what would provide it" "$(grep -Ev -- \
	'\(.*(--privileged|--cap-add|CAP_SYS_ADMIN)' \
	"$W/req.pid-namespace,mount-namespace,ipc-namespace,net-namespace,landlock.err")" ""
why "$W/req.pid-namespace,mount-namespace,ipc-namespace,net-namespace,landlock.err"
# clone3: the container's seccomp profile answers ENOSYS, or it runs.
[ "$(cat "$W/probe.clone3")" = OK ] && want=0 || want=1
t_eq "--require clone3 answers as clone3 in the container ($(cat "$W/probe.clone3"))" \
	"$(req clone3)" "$want"

# ---- strict mode: refused, one line per missing layer ----
mkdir -p "$W/s"
crun strict "$PRE
\$T/planenc --preset sys --ro /proc --rw /w/s -- \$H/escape write /w/s/ran |
    cx --dry-run >/w/s/dry.json 2>/w/s/dry.err
echo \$? >/w/s/dry.rc
\$T/planenc --preset sys --ro /proc --rw /w/s -- \$H/escape write /w/s/ran |
    cx --journal /w/s/j.jnl
"
st=$?
if [ -z "$MISSING" ]; then
	t_eq "the container lacks nothing: strict mode runs" "$st" 0
else
	t_eq "strict mode refuses (125)" "$st" 125
	ok "the payload did not run" test ! -e "$W/s/ran"
	t_eq "the dry run refuses too" "$(cat "$W/s/dry.rc")" 125
	refused=$(jq -r '.layers[] | select(.verdict == "refuse") | .layer' \
	    "$W/s/dry.json" | tr '\n' ' ')
	for l in $MISSING; do
		case " $refused " in
		*" $l "*) pass "the dry run refuses $l" ;;
		*) fail "the dry run refuses $l"; diag "refused: $refused" ;;
		esac
	done
	for l in landlock seccomp no-new-privs; do
		t_eq "the dry run enforces $l" "$(jq -r ".layers[] |
		    select(.layer == \"$l\") | .verdict" "$W/s/dry.json")" enforce
	done
	# One line per missing layer ("confexec: refusing: LAYER: why (what
	# would provide it)"), and nothing else.
	nl=$(grep -c . "$W/strict.err")
	nm=$(echo $MISSING | wc -w)
	t_eq "one line per missing layer ($nm)" "$nl" "$nm"
	for l in $MISSING; do
		t_eq "$l refused on one line" \
		    "$(grep -c -- "^confexec: refusing: $l: " "$W/strict.err")" 1
	done
	# What provides a layer in a container: an engine's option
	# (--privileged, --cap-add, --cgroupns) or CAP_SYS_ADMIN.
	t_eq "each line says what would provide its layer" "$(grep -Ev -- \
	    '\(.*(--privileged|--cap-add|--cgroupns|CAP_SYS_ADMIN)' \
	    "$W/strict.err")" ""
	t_grep "the last line says --degrade would run without them" \
	    'use --degrade to run without them\)$' "$W/strict.err"
	[ "$nl" -eq "$nm" ] || diag_file "$W/strict.err"
	# A refusal after the plan decoded is journaled as a start/end pair
	# (confexec(1), --journal): the start lists the refused layers.
	journalchain show --json "$W/s/j.jnl" | jq -c .event >"$W/s/j.json"
	t_eq "the journal has the refused run's start and end, exit 125" \
	    "$(jq -r '.event + ":" + (.exit // "" | tostring)' "$W/s/j.json" |
	    tr '\n' ' ')" "start: end:125 "
	for l in $MISSING; do
		t_eq "its start record lists $l as refused" "$(jq -r \
		    'select(.event == "start") | .refused | index("'"$l"'") != null' \
		    "$W/s/j.json")" true
	done
fi

# ---- --degrade: every available layer, proven from inside ----
mkdir -p "$W/d/ok"
crun degrade "$PRE
cd /w/d
# Controls, outside confexec: what the container itself allows.
\$H/escape write /w/d/no-ctl >ctl.write
\$H/escape socket 2 2 0 >ctl.udp
exec 5</etc/passwd 7>/w/d/leak
\$H/fd-list >ctl.fds
# run NAME PLANENC-OPTION... -- PROGRAM...: one degraded run
run() {
	n=\$1; shift
	\$T/planenc --degrade --preset sys --ro /proc --rw /w/d/ok \"\$@\" |
	    cx --journal /w/d/j.jnl >\$n.out 2>\$n.err
	echo \$? >\$n.rc
}
run write -- \$H/escape write /w/d/ok/f
run outside -- \$H/escape write /w/d/no
run etc -- \$H/escape write /etc/evil
run udp -- \$H/escape socket 2 2 0
run layers --tcp -- \$H/escape tcp-udp 9
run fds -- \$H/fd-list
run status -- \$H/escape status
run limits --rlimit nofile=64:64 -- /bin/cat /proc/self/limits
run exe -- \$H/escape exe
run fork -- /bin/sh -c 'echo a | cat; \$0 pthread; \$0 clone3' \$H/escape
# The canaries of a degraded plan: what the missing layers change.
\$T/planenc --degrade --rw /w/d/ok -- /bin/true |
    cx --canary >canary.out 2>canary.err
echo \$? >canary.rc
\$T/journalchain verify j.jnl >verify.out 2>&1; echo \$? >verify.rc
\$T/journalchain show --json j.jnl >show.txt
\$T/journalchain show --json j.jnl >show.json
"
t_eq "the degrade container ran" "$?" 0
why "$W/degrade.err"
d() { cat "$W/d/$1" 2>/dev/null; }
t_eq "control: the container itself may write /w/d" "$(d ctl.write)" OK
t_eq "control: the container itself may make a UDP socket" "$(d ctl.udp)" OK
t_eq "control: the container's shell holds fds 5 and 7" \
	"$(d ctl.fds | cut -d' ' -f1 | grep -E '^(5|7)$' | tr '\n' ' ')" "5 7 "
for r in write outside etc udp layers fds status limits exe fork; do
	t_eq "degraded run '$r' exits 0" "$(d $r.rc)" 0
	[ "$(d $r.rc)" = 0 ] || diag_file "$W/d/$r.err"
done
t_eq "a write inside the rw rule: OK" "$(d write.out)" OK
t_eq "a write outside the rules: EACCES (Landlock)" "$(d outside.out)" EACCES
ok "and nothing was written there" test ! -e "$W/d/no"
t_eq "a write into /etc (read-only rule): EACCES" "$(d etc.out)" EACCES
t_eq "a UDP socket: EPERM (seccomp)" "$(d udp.out)" EPERM
t_eq "two layers: TCP connect EACCES (Landlock), UDP EPERM (seccomp)" \
	"$(d layers.out | tr '\n' ' ')" "connect:EACCES udp:EPERM "
t_eq "the leaked fds 5 and 7 are closed: the payload holds 0, 1, 2" \
	"$(d fds.out | cut -d' ' -f1 | tr '\n' ' ')" "0 1 2 "
st() { sed -n "s/^$1:[[:space:]]*//p" "$W/d/status.out"; }
t_eq "no_new_privs is set" "$(st NoNewPrivs)" 1
t_eq "a seccomp filter is installed" "$(st Seccomp)" 2
for c in CapEff CapPrm CapInh CapBnd CapAmb; do
	t_eq "$c is empty" "$(st $c)" 0000000000000000
done
t_grep "RLIMIT_NOFILE is the plan's" '^Max open files +64 +64 ' "$W/d/limits.out"
t_grep "the sealed image executes (a memfd)" '^/memfd:' "$W/d/exe.out"
t_eq "fork works; a thread (clone) OK; clone3 ENOSYS" \
	"$(d fork.out | tr '\n' ' ')" "a OK ENOSYS "
for l in $MISSING; do
	t_eq "stderr names the missing $l, once" \
	    "$(grep -c -- "^confexec: WARNING: running without $l: " "$W/d/write.err")" 1
done
case " $MISSING " in *" cgroup "*" pid-namespace "*)
	t_grep "without both, confexec says it ends the tree as a subreaper" \
	    '^confexec: WARNING: no cgroup and no pid namespace: confexec, a child subreaper' \
	    "$W/d/write.err" ;;
esac
# --canary in the container: every probe matches what the degraded plan
# gives, the missing layers' routes granted (and done, seen by confexec
# on the container's side).
t_eq "--canary of a degraded plan in the container: exit 0" "$(d canary.rc)" 0
why "$W/d/canary.err"
cl() { awk -F'\t' -v p="$1" '$1 == p {print $3 "\t" $4 "\t" $5 "\t" $6}' \
    "$W/d/canary.out"; }
t_eq "  every line a match (or not run)" \
	"$(awk -F'\t' '$6 != "match" && $6 != "not run"' "$W/d/canary.out")" ""
case " $MISSING " in
*" mount-view "*)
	t_eq "  chmod outside the rules: granted (mount-view missing), done" \
	    "$(cl chmod-outside)" \
	    "$(printf 'granted (mount-view missing)\tok\tmode 0644 -> 0600\tmatch')" ;;
*)
	t_eq "  chmod outside the rules: denied (mount-view)" \
	    "$(cl chmod-outside)" \
	    "$(printf 'denied (mount-view)\tEROFS\tfile unchanged\tmatch')" ;;
esac
t_eq "  read outside the rules: denied (landlock)" "$(cl read-outside)" \
	"$(printf 'denied (landlock)\tEACCES\t-\tmatch')"
t_eq "  inside the rw rule: granted" "$(cl rw-create | cut -f2,4)" \
	"$(printf 'ok\tmatch')"
t_eq "the journal verifies in the container" "$(d verify.rc)" 0
ok "and on the host" journalchain verify "$W/d/j.jnl"
jq -c 'select(.event.event == "start") | .event' "$W/d/show.json" | head -n 1 \
	>"$W/d/start.json"
jl() { jq -r "$1" "$W/d/start.json"; }
t_eq "the start record says degrade" "$(jl .mode)" degrade
for l in $MISSING; do
	t_eq "the journal lists $l as degraded" \
	    "$(jl ".degraded | index(\"$l\") != null")" true
	t_eq "and not as applied" "$(jl ".layers | index(\"$l\") == null")" true
done
for l in landlock seccomp no-new-privs; do
	t_eq "the journal lists $l as applied" \
	    "$(jl ".layers | index(\"$l\") != null")" true
done
t_grep "journalchain show prints the warnings" 'WARNING|warnings' "$W/d/show.txt"

# A plan with the unix grant would get a network namespace of its own.
if ! ns_can net; then
	crun unix "$PRE
\$T/planenc --degrade --preset sys --unix -- \$H/escape socket 2 2 0 |
    cx --journal /w/d/u.jnl
"
	t_eq "--unix: the degraded run exits 0" "$?" 0
	t_eq "a UDP socket is still EPERM" "$(cat "$W/unix.out")" EPERM
	t_grep "stderr names the missing net-namespace" \
	    "^confexec: WARNING: running without net-namespace: " "$W/unix.err"
	t_eq "the journal lists net-namespace as degraded" \
	    "$(journalchain show --json "$W/d/u.jnl" | jq -r \
	    'select(.event.event == "start") | .event.degraded |
	    index("net-namespace") != null')" true
fi

# ---- nested: a payload that runs confexec (a CI job sandboxing a step) ----
# The outer run is degraded as the container needs and grants what the
# inner confexec needs of it (confexec(1), Without namespaces): --unix
# for its listener channel, /proc for its descriptor check.  Without
# either the inner run is refused, saying which grant is missing.
mkdir -p "$W/n/ok/in"
crun nested "$PRE
cd /w/n
# The inner step: MODE PROGRAM... under planenc | confexec, inside the
# outer run, with fd 8 opened there (the inner run must close it);
# MODE --none runs PROGRAM bare, as the control.
printf '%s\n' '#!/bin/sh' 'exec 8<\"\$0\"' 'm=\$1; shift' \
    '[ \"\$m\" = --none ] && exec \"\$@\"' \
    '/usr/local/bin/planenc \$m --preset sys --ro /proc --rw /w/n/ok/in -- \"\$@\" |' \
    '    /usr/local/bin/confexec --no-image-cache' >inner
chmod 755 inner
# nest NAME OUTER-OPTION... -- MODE PROGRAM...
nest() {
	n=\$1; shift
	o=; while [ \"\$1\" != -- ]; do o=\"\$o \$1\"; shift; done; shift
	\$T/planenc --degrade --preset sys --rw /w/n/ok --rox /w/n/inner \$o \
	    -- /w/n/inner \"\$@\" | cx >\$n.out 2>\$n.err
	echo \$? >\$n.rc
}
G='--unix --ro /proc'
nest write \$G -- --degrade \$H/escape write /w/n/ok/in/ran
nest outside \$G -- --degrade \$H/escape write /w/n/ok/outside
nest udp \$G -- --degrade \$H/escape socket 2 2 0
nest ctlfds \$G -- --none \$H/fd-list
nest fds \$G -- --degrade \$H/fd-list
nest status \$G -- --degrade \$H/escape status
nest strict \$G -- --strict \$H/escape write /w/n/ok/in/strict
nest nounix --ro /proc -- --degrade \$H/escape write /w/n/ok/in/nounix
nest noproc --unix -- --degrade \$H/escape write /w/n/ok/in/noproc
"
t_eq "the nested container ran" "$?" 0
why "$W/nested.err"
n() { cat "$W/n/$1" 2>/dev/null; }
t_eq "nested, degrade: the inner run exits 0" "$(n write.rc)" 0
why "$W/n/write.err"
t_eq "  its payload wrote inside the inner rw rule" "$(n write.out)" OK
ok "  (the file is there on the host)" test -e "$W/n/ok/in/ran"
t_grep "  the inner run names its missing seccomp-listener" \
	'^confexec: WARNING: running without seccomp-listener: ' "$W/n/write.err"
t_eq "nested: a write the outer rules allow, the inner not: EACCES" \
	"$(n outside.out)" EACCES
ok "  and nothing was written there" test ! -e "$W/n/ok/outside"
t_eq "nested: a UDP socket: EPERM" "$(n udp.out)" EPERM
t_eq "control: the inner step holds fd 8 in the outer run" \
	"$(n ctlfds.out | cut -d' ' -f1 | grep -x 8)" 8
t_eq "nested: the inner payload holds 0, 1, 2 only (fd 8 closed)" \
	"$(n fds.out | cut -d' ' -f1 | tr '\n' ' ')" "0 1 2 "
ns() { sed -n "s/^$1:[[:space:]]*//p" "$W/n/status.out"; }
one=$(sed -n 's/^Seccomp_filters:[[:space:]]*//p' "$W/d/status.out")
t_eq "nested: one more seccomp filter than a single run's (${one:-?})" \
	"$(ns Seccomp_filters)" "$((${one:-0} + 1))"
t_eq "  no_new_privs set" "$(ns NoNewPrivs)" 1
t_eq "  no capability" "$(ns CapEff):$(ns CapBnd)" \
	0000000000000000:0000000000000000
t_eq "nested, strict: refused (125)" "$(n strict.rc)" 125
t_grep "  saying a nested confexec needs --degrade" \
	'^confexec: refusing: pid-namespace: .*nested confexec needs --degrade' \
	"$W/n/strict.err"
ok "  the inner payload did not run" test ! -e "$W/n/ok/in/strict"
t_eq "nested, the outer plan without --unix: refused (125)" "$(n nounix.rc)" 125
t_grep "  naming the grant it needs" \
	'^confexec: refusing: listener channel: socketpair\(AF_UNIX\): Operation not permitted \(.*outer plan to grant --unix\)' \
	"$W/n/nounix.err"
why "$W/n/nounix.err"
ok "  the inner payload did not run" test ! -e "$W/n/ok/in/nounix"
t_eq "nested, the outer plan without /proc: refused (125)" "$(n noproc.rc)" 125
t_grep "  naming the grant it needs" \
	'^confexec: child: verifying descriptors: /proc/self/fd: Permission denied \(.*outer plan to grant --ro /proc\)' \
	"$W/n/noproc.err"
why "$W/n/noproc.err"
ok "  the inner payload did not run" test ! -e "$W/n/ok/in/noproc"

# ---- the tree ends with the run: at the payload's end, at the timeout ----
# A detached container runs confexec, writes its status, and stays up
# (until /w/t/stop) so that the engine's top and the container's /proc can be
# asked what is left.  The journal is beside /w/t, which the plans grant
# rw (confexec refuses a journal a rw rule reaches).
mkdir -p "$W/t" "$W/tj"
crun tree "$PRE
cd /w/t
\$T/planenc --degrade --preset sys --rw /w/t -- \$H/escape grandchild /w/t/end.pid |
    cx --journal /w/tj/j.jnl >end.out 2>end.err
echo \$? >end.rc.tmp; mv end.rc.tmp end.rc
\$T/planenc --degrade --preset sys --rw /w/t --timeout 2s -- \
    \$H/escape grandchild-sleep /w/t/to.pid |
    cx --journal /w/tj/j.jnl >to.out 2>to.err
echo \$? >to.rc.tmp; mv to.rc.tmp to.rc
while [ ! -e stop ]; do sleep 0.1; done
" -d
CID=$(cat "$W/tree.out")
# Bounded: 600 polls of 0.1 s for a run of 2 s on a loaded machine.
i=0
while [ ! -e "$W/t/to.rc" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "a payload that leaves a setsid grandchild: confexec exits 0" \
	"$(cat "$W/t/end.rc" 2>/dev/null)" 0
why "$W/t/end.err"
t_eq "at the timeout: 124" "$(cat "$W/t/to.rc" 2>/dev/null)" 124
t_grep "said" "timed out after 2000 ms; the run's tree was killed" "$W/t/to.err"
why "$W/t/to.err"
ok "both grandchildren ran (their pid files)" test -s "$W/t/end.pid" -a -s "$W/t/to.pid"
ok "their locks are free: both are dead" \
	sh -c "flock -n '$W/t/end.pid.lock' true && flock -n '$W/t/to.pid.lock' true"
if [ "$CE_NAME" = docker ]; then
	ce top "$CID" -o pid,args >"$W/t/top" 2>&1
else
	ce top "$CID" pid args >"$W/t/top" 2>&1
fi
t_grep "$CE_NAME top lists the container's processes" 'sh /w/tree.sh' "$W/t/top"
t_nogrep "$CE_NAME top: no process of the runs left" 'escape|confexec' "$W/t/top"
why "$W/t/top"
ce exec "$CID" ps -o pid,args >"$W/t/ps" 2>&1
t_nogrep "ps in the container: none either" 'escape|confexec' "$W/t/ps"
for p in end to; do
	gp=$(cat "$W/t/$p.pid" 2>/dev/null)
	t_exit 1 "the container's /proc has no $p grandchild (pid ${gp:-?})" \
	    ce exec "$CID" test -e "/proc/${gp:-0}"
done
t_eq "the journal's second end record says timeout" \
	"$(journalchain show --json "$W/tj/j.jnl" | jq -r 'select(.event.event == "end") | .event.timeout' | tr '\n' ' ')" \
	"false true "
touch "$W/t/stop"
# Bounded: 300 polls of 0.1 s.
i=0
while [ "$(ce inspect -f '{{.State.Running}}' "$CID" 2>&1)" = true ] &&
    [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "the container ends when told" \
	"$(ce inspect -f '{{.State.ExitCode}}' "$CID" 2>&1)" 0
ce rm -f "$CID" >/dev/null 2>&1

# ---- the CI example in the container ----
# No compiler in the image: the project is built by a shell script.
PJ=$W/ci/proj
mkdir -p "$PJ/src" "$W/ci/art"
printf 'one\n' >"$PJ/src/1.txt"
printf 'two\n' >"$PJ/src/2.txt"
cat >"$PJ/build.sh" <<'EOF'
mkdir -p out
cat src/*.txt >out/all.txt
EOF
cat >"$PJ/test.sh" <<'EOF'
set -e
test "$(cat out/all.txt)" = "one
two"
# the tests may not reach outside the project
if echo x >/etc/ci-evil; then exit 1; fi
if echo x >/w/ci/evil; then exit 1; fi
echo "tests passed"
EOF
crun ci "cd /w/ci/proj && ARTIFACTS=/w/ci/art BORNE_PREFIX=/opt/borne \
BUILD_CMD='sh build.sh' TEST_CMD='sh test.sh' sh /ci/ci-job.sh /ci/borne.tar /w/ci/proj"
st=$?
t_eq "ci-job.sh in the container: exit 0" "$st" 0
[ "$st" -eq 0 ] || diag_file "$W/ci.err" 40
[ -n "$MISSING" ] && want=degrade || want=strict
t_eq "it picks the mode the container allows ($want)" \
	"$(cat "$W/ci/art/mode.txt" 2>/dev/null)" "$want"
[ "$want" = degrade ] && t_grep "and says it is degraded" '^ci-job.sh: DEGRADED' "$W/ci.err"
t_eq "the project was built" "$(cat "$PJ/out/all.txt" 2>/dev/null | tr '\n' ' ')" "one two "
t_grep "its tests passed, writes outside refused" '^tests passed$' "$W/ci.out"
ok "nothing written outside the project" test ! -e "$W/ci/evil"
ok "the journal it kept verifies on the host" journalchain verify "$W/ci/art/runs.jnl"
t_eq "two runs, each started and ended, both 0" \
	"$(journalchain show --json "$W/ci/art/runs.jnl" | jq -r '.event | .event + ":" + (.exit // "" | tostring)' | tr '\n' ' ')" \
	"start: end:0 start: end:0 "
for l in $MISSING; do
	t_eq "its start records list $l as degraded" \
	    "$(journalchain show --json "$W/ci/art/runs.jnl" | jq -r 'select(.event.event == "start") | .event.degraded | index("'"$l"'") != null' | sort -u)" true
done

