#!/bin/sh
# confexec: no privileged file leaves a run changed (issue 34, confexec(1)
# PRIVILEGED FILES).  A setuid, setgid or file-capability file beneath a
# rw rule, rewritten from inside by privrw (a shared mapping with and
# without msync, pwrite, O_TRUNC then write, a rename over it, a host
# hard link into the rw tree): strict mode refuses the plan before
# anything runs, naming each file and the suidstrip command; degrade
# strips it first, loudly.  Each checked from the host side: the file's
# SHA-256, mode, owner and capability unchanged (strict), or its
# privilege gone (degrade), also when a timeout, a cancel or a SIGKILLed
# confexec ends the run.
. "$(dirname "$0")/lib.sh"

needs root landlock=1 cgroup2 setcap getcap sha256sum jq socat

H=$HELP/privrw
[ -x "$H" ] || skip_all "no $H (make helpers)"
SYS=$ROOTFS
W=$TMP/w		# the --rw tree
O=$TMP/o		# outside every rule
J=$TMP/run.jnl
mkdir -p "$W" "$O"
EXTRA=
[ "$VARIANT" = asan ] && EXTRA="--ro /proc"

# plan [PLANENC-OPTION...] -- ROUTE FILE [READY]: the plan (the system,
# the helpers, $W read-write) of privrw, in $TMP/plan.
plan() {
	o=
	while [ "$1" != -- ]; do o="$o $1"; shift; done
	shift
	# shellcheck disable=SC2086
	"$PE" $SYS --rox "$HELP" --rw "$W" $EXTRA $o \
	    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
	    -- "$H" "$@" >"$TMP/plan"
}
# cx [PLANENC-OPTION...] -- ROUTE FILE: the run, journal $J (emptied).
cx() {
	plan "$@" || return 99
	rm -f "$J"
	"$CX" --journal "$J" <"$TMP/plan"
}
# state FILE: what the host sees of it: digest, mode, owner, inode,
# links, capability ("-" none).
state() {
	printf '%s %s %s\n' "$(sha256sum <"$1" | cut -d' ' -f1)" \
	    "$(stat -c '%a %u:%g %i %h' "$1")" \
	    "$(getcap "$1" | sed 's/^[^ ]* //; s/^$/-/')"
}
# privileged FILE: it carries setuid, setgid or a capability.
privileged() {
	[ -n "$(find "$1" -perm /6000)" ] || [ -n "$(getcap "$1")" ]
}
# mk KIND FILE: a root-owned copy of true carrying KIND (suid: 4755,
# sgid: 2755, cap: cap_net_raw+ep).
mk() {
	rm -f "$2" "$2.new"
	cp /usr/bin/true "$2"
	case $1 in
	suid) chmod 4755 "$2" ;;
	sgid) chmod 2755 "$2" ;;
	cap) chmod 755 "$2"; setcap cap_net_raw+ep "$2" ;;
	esac
}
# start_record: the start record's "privileged", compact.
start_priv() { jq -c 'select(.event.event == "start") | .event.privileged' "$J"; }

ok "the kinds are made as meant (setuid, setgid, capability)" sh -c '
	cp /usr/bin/true "$1/k"; chmod 4755 "$1/k"; test -u "$1/k" &&
	chmod 2755 "$1/k" && test -g "$1/k" && rm "$1/k"' sh "$TMP"

# ---- strict: refused before anything runs, the file unchanged ----------
for kind in suid sgid cap; do
	for route in mmap-msync mmap-exit pwrite trunc rename; do
		F=$W/$kind-$route
		mk $kind "$F"
		S0=$(state "$F")
		t_exit 125 "$kind, $route: the plan is refused (125)" \
		    cx -- $route "$F"
		t_eq "  host side: digest, mode, owner, capability unchanged" \
		    "$(sync; state "$F")" "$S0"
		t_eq "  nothing was written beside it" \
		    "$(ls "$F.new" 2>/dev/null)" ""
		rm -f "$F"
	done
	t_grep "  $kind: one line naming it and the suidstrip command" \
	    "^confexec: privileged file beneath rw $W: $W/$kind-rename \(mode [0-9]+, owner 0:0(, capability cap_net_raw=ep)?\): clear it with: suidstrip -- $W/$kind-rename\$" \
	    "$ERR"
done
t_grep "the refusal says why" \
    "^confexec: refusing: 1 privileged file\(s\) beneath the rw rules \(listed above\): the payload could rewrite them and keep their setuid, setgid or capability\$" \
    "$ERR"
t_eq "the journal: a start record listing it, an end record with 125" \
    "$(jq -r '.event | select(.event == "start") | .privileged |
	[.found, .refused, .stripped, .files[0].path, .files[0].action,
	.files[0].mode, .files[0].capability] | @tsv' "$J")" \
    "$(printf '1\t1\t0\t%s\trefused\t0755\tcap_net_raw=ep' "$W/cap-rename")"
t_eq "  the end record: exit 125, the refusal" \
    "$(jq -r '.event | select(.event == "end") | [.exit,
	(.refused | startswith("1 privileged file(s) beneath the rw rules"))] |
	@tsv' "$J")" "$(printf '125\ttrue')"
t_exit 0 "  the journal verifies" "$BIN/journalchain" verify "$J"

# Deep in the tree, and in a nested rw rule: found all the same.
mkdir -p "$W/a/b/c/d"
mk suid "$W/a/b/c/d/deep"
mk sgid "$W/a/x"
D0=$(state "$W/a/b/c/d/deep")
t_exit 125 "two files deep in the tree, rules nested: refused" \
    cx --rw "$W/a/b" -- mmap-msync "$W/a/b/c/d/deep"
t_eq "  one line each" \
    "$(grep -c '^confexec: privileged file beneath rw' "$ERR")" 2
t_eq "  the start record counts both" "$(start_priv | jq -r .found)" 2
t_eq "  host side: unchanged" "$(state "$W/a/b/c/d/deep")" "$D0"
rm -rf "$W/a"

# Past PATH_MAX from / (110 directories of 40 bytes beneath $W/p): the
# walk goes by descriptors, never by the path; found, refused, and with
# --degrade stripped all the same.  deep CMD...: CMD in that directory.
DN=d0123456789012345678901234567890123456789
deep() {
	(cd "$W/p" || exit 1
	i=0
	while [ $i -lt 110 ]; do cd -P "$DN" || exit 1; i=$((i + 1)); done
	"$@")
}
mkdir "$W/p"
(cd "$W/p" && i=0 && while [ $i -lt 110 ]; do
	mkdir "$DN" && cd -P "$DN" || exit 1; i=$((i + 1)); done)
deep sh -c 'cp /usr/bin/true f && chmod 4755 f'
P0=$(deep stat -c '%a %u:%g %i' f)
ok "a setuid file $(( ${#W} + 3 + 41 * 110 + 2 )) bytes from / (past PATH_MAX)" \
    test "$P0" = "4755 0:0 $(deep stat -c %i f)"
t_exit 125 "  refused" cx --rw "$W/p" -- mmap-msync "$W/p/f"
t_eq "  the start record counts it" "$(start_priv | jq -r .found)" 1
t_eq "  host side: unchanged" "$(deep stat -c '%a %u:%g %i' f)" "$P0"
t_exit 0 "  --degrade: the run goes on" cx --degrade --rw "$W/p" -- \
    mmap-msync "$W/p/f"
t_eq "  host side: stripped (0755), the same file" \
    "$(deep stat -c '%a %u:%g %i' f)" "755 0:0 ${P0##* }"
rm -rf "$W/p"

# A symbolic link to a setuid file outside: not followed, not a file of
# the tree (the payload opening it reaches the outside file's mount,
# read-only in the view).
mk suid "$O/outside"
ln -s "$O/outside" "$W/link"
OS0=$(state "$O/outside")
t_exit 0 "a symlink beneath --rw to a setuid file outside: runs (not followed)" \
    cx -- mmap-msync "$W/link"
t_grep "  the write through it: refused (outside every rule)" \
    '^(EACCES|ENOENT|EROFS)$' "$OUT"
t_eq "  host side: the outside file unchanged" "$(state "$O/outside")" "$OS0"
t_eq "  the start record: walked, nothing found" \
    "$(start_priv | jq -c '[.found, .errors]')" '[0,"0"]'
rm -f "$W/link"

# ---- a hard link the host made into the rw tree -------------------------
for kind in suid sgid cap; do
	mk $kind "$O/hl-$kind"
	ln "$O/hl-$kind" "$W/hl-$kind"
	S0=$(state "$O/hl-$kind")
	t_exit 125 "$kind, a host hard link into --rw: refused (125)" \
	    cx -- mmap-msync "$W/hl-$kind"
	t_grep "  said: a hard link, and how to clear it" \
	    "^confexec: privileged file beneath rw $W: $W/hl-$kind .*: a hard link \(2 links\): its strip would change every link, perhaps one outside the rules; remove this link, or strip the shared file with: suidstrip -- $W/hl-$kind\$" \
	    "$ERR"
	t_exit 125 "  in degrade mode too (its strip would change the outside link)" \
	    cx --degrade -- mmap-msync "$W/hl-$kind"
	t_eq "  host side: the outside file unchanged" \
	    "$(state "$O/hl-$kind")" "$S0"
	rm -f "$W/hl-$kind"
done

# ---- degrade: stripped first, loudly ------------------------------------
for kind in suid sgid cap; do
	for route in mmap-msync mmap-exit pwrite trunc rename; do
		F=$W/$kind-$route
		mk $kind "$F"
		t_exit 0 "degrade, $kind, $route: runs (exit 0)" \
		    cx --degrade -- $route "$F"
		cp "$ERR" "$TMP/degrade.err"
		t_eq "  the rewrite went through: OK" "$(cat "$OUT")" OK
		sync
		ok "  host side: no setuid, setgid or capability left" \
		    sh -c '! { [ -n "$(find "$1" -perm /6000)" ] ||
			[ -n "$(getcap "$1")" ]; }' sh "$F"
		rm -f "$F"
	done
	t_grep "  $kind: one WARNING line naming it" \
	    "^confexec: WARNING: privileged file beneath rw $W stripped before the run: $W/$kind-rename \(mode [0-9]+ -> 0?755, owner 0:0(, capability cap_net_raw=ep removed)?\)\$" \
	    "$TMP/degrade.err"
	t_eq "  the start record lists it, stripped" \
	    "$(start_priv | jq -r '[.found, .stripped, .refused,
		.files[0].action] | @tsv')" "$(printf '1\t1\t0\tstripped')"
	t_grep "  and says so in its warnings" \
	    '"warnings":\[[^]]*"1 privileged file\(s\) beneath the rw rules stripped before the run"' "$J"
done

# stripped WHOSE: host side, $W/t has no setuid, setgid or capability
# left, and WHOSE bytes are the payload's.
stripped() {
	sync
	ok "  host side: no setuid, setgid or capability left" \
	    sh -c '! { [ -n "$(find "$1" -perm /6000)" ] ||
		[ -n "$(getcap "$1")" ]; }' sh "$W/t"
	ok "  host side: $1 bytes are the payload's (the rewrite landed)" \
	    grep -q "rewritten by the payload" "$W/t"
}

# ---- how the run ends opens nothing ---------------------------------------
# Strict: whatever would have ended it, the run never started.
mk suid "$W/t"
S0=$(state "$W/t")
t_exit 125 "strict with --timeout 2s: refused (125)" \
    cx --timeout 2s -- mmap-exit "$W/t" "$W/ready"
t_eq "  host side: unchanged" "$(state "$W/t")" "$S0"
ok "  nothing ran (no ready file)" test ! -e "$W/ready"
# Degrade: stripped before the payload's first instruction; then the
# payload rewrites it and is ended by a timeout, a cancel or SIGKILL of
# confexec itself.
for kind in suid sgid cap; do
	mk $kind "$W/t"
	rm -f "$W/ready"
	t_exit 124 "degrade, $kind rewritten, then the timeout: 124" \
	    cx --degrade --timeout 2s -- mmap-exit "$W/t" "$W/ready"
	t_eq "  it was rewritten" "$(cat "$OUT")" OK
	stripped its
done
rm -f "$W/ready"

S=$TMP/ctl
for kind in suid sgid cap; do
	mk $kind "$W/t"
	rm -f "$W/ready" "$S" "$J"
	plan --degrade -- mmap-exit "$W/t" "$W/ready"
	"$CX" --journal "$J" --control "$S" <"$TMP/plan" >"$TMP/c.out" \
	    2>"$TMP/c.err" &
	CXPID=$!
	at_exit "kill_ours -9 $CXPID"
	wait_for test -e "$W/ready" || diag_file "$TMP/c.err"
	printf '%s\n' '{"v":1,"op":"cancel"}' | socat - "UNIX-CONNECT:$S" \
	    >"$TMP/answer"
	t_eq "degrade, $kind rewritten, then a cancel: delivered" \
	    "$(jq -r .result "$TMP/answer")" delivered
	wait "$CXPID"
	t_eq "  the run ended, cancelled" \
	    "$(jq -r 'select(.event.event == "end") | .event.cancel' "$J")" \
	    control
	sync
	ok "  host side: no setuid, setgid or capability left" \
	    sh -c '! { [ -n "$(find "$1" -perm /6000)" ] ||
		[ -n "$(getcap "$1")" ]; }' sh "$W/t"

	mk $kind "$W/t"
	rm -f "$W/ready"
	"$CX" <"$TMP/plan" >"$TMP/k.out" 2>"$TMP/k.err" &
	CXPID=$!
	at_exit "kill_ours -9 $CXPID"
	wait_for test -e "$W/ready" || diag_file "$TMP/k.err"
	kill -9 "$CXPID"
	wait "$CXPID"
	t_eq "degrade, $kind rewritten, then confexec SIGKILLed: 137" "$?" 137
	# The run dies with confexec: its payload holds $W/t open until then.
	gone() { [ -z "$(fuser "$W/t" 2>/dev/null)" ]; }
	if command -v fuser >/dev/null 2>&1; then
		ok "  the payload is gone within the wait" wait_for -t 10 gone
	fi
	stripped the
done
rm -f "$W/t" "$W/ready"

# ---- bounds and what is not looked at -------------------------------------
# More than 64 in degrade mode: refused (a plan over a system tree).
mkdir "$W/many"
i=0
while [ $i -lt 70 ]; do : >"$W/many/f$i"; chmod 4755 "$W/many/f$i"; i=$((i + 1)); done
t_exit 125 "degrade, 70 setuid files: refused past 64" \
    cx --degrade -- mmap-msync "$W/many/f0"
t_eq "  64 stripped, 6 refused" \
    "$(start_priv | jq -r '[.found, .stripped, .refused, (.files | length),
	.omitted] | @tsv')" "$(printf '70\t64\t6\t32\t38')"
t_eq "  host side: 6 left setuid, for suidstrip" \
    "$(find "$W/many" -perm /6000 | wc -l)" 6
t_exit 0 "  suidstrip, as said, clears them" "$BIN/suidstrip" -- "$W/many"
t_exit 0 "  then the strict plan runs" cx -- pwrite "$W/many/f0"
rm -rf "$W/many"

# A nested mount beneath the rw rule, writable: walked as its own tree.
mkdir -p "$W/mnt"
if mount -t tmpfs -o size=4m borne-priv "$W/mnt" 2>/dev/null; then
	at_exit "umount -l '$W/mnt' 2>/dev/null"
	mk suid "$W/mnt/s"
	M0=$(state "$W/mnt/s")
	t_exit 125 "a setuid file in a writable mount beneath --rw: refused" \
	    cx -- mmap-msync "$W/mnt/s"
	t_eq "  host side: unchanged" "$(state "$W/mnt/s")" "$M0"
	mount -o remount,ro "$W/mnt"
	t_exit 0 "  read-only on the host (so in the view): not walked, runs" \
	    cx -- mmap-msync "$W/mnt/s"
	t_eq "  the rewrite: EROFS" "$(cat "$OUT")" EROFS
	t_eq "  host side: unchanged" "$(state "$W/mnt/s")" "$M0"
	umount "$W/mnt"
else
	skip "a nested mount beneath --rw" "tmpfs mount refused here"
fi

# A name with a newline and an escape sequence: one line, escaped.
odd="$W/$(printf 'a\nconfexec: forged\033[2J')"
mk suid "$odd"
t_exit 125 "a setuid file named with a newline and ESC: refused" \
    cx -- pwrite "$W/plain"
t_eq "  its line is one line" \
    "$(grep -c '^confexec: privileged file beneath rw' "$ERR")" 1
t_nogrep "  no forged line" '^confexec: forged' "$ERR"
t_grep "  the newline and ESC written \\xNN" \
    "^confexec: privileged file beneath rw $W: $W/a\\\\x0aconfexec: forged\\\\x1b\\[2J " "$ERR"
rm -f "$odd"

# More nested mounts than the walk takes: strict refuses, not trusting
# what it did not walk.
mkdir -p "$W/binds/src"
i=0
while [ $i -le 256 ] && mkdir "$W/binds/m$i" &&
    mount --bind "$W/binds/src" "$W/binds/m$i" 2>/dev/null; do
	i=$((i + 1))
done
at_exit "umount -l '$W'/binds/m* 2>/dev/null"
if [ $i -eq 257 ]; then
	t_exit 125 "257 nested mounts beneath --rw: refused (256 walked)" \
	    cx -- pwrite "$W/binds/src/x"
	t_grep "  said" "^confexec: refusing: privileged files beneath the rw rules: 1 place\\(s\\) could not be looked at, the first more than 256 nested mounts beneath the rw rules: walk: not all walked\$" "$ERR"
else
	skip "257 nested mounts beneath --rw" "bind mount $i refused"
fi
umount "$W"/binds/m* 2>/dev/null
rm -rf "$W/binds"

# A rule naming the file itself.
mk suid "$O/single"
S0=$(state "$O/single")
t_exit 125 "a rw rule naming a setuid file itself: refused" \
    cx --rw "$O/single" -- mmap-msync "$O/single"
t_grep "  named" "^confexec: privileged file beneath rw $O/single: $O/single " "$ERR"
t_eq "  host side: unchanged" "$(state "$O/single")" "$S0"

# A caller that is not root walks as itself: what it cannot read or
# strip is not taken on trust.
if command -v setpriv >/dev/null 2>&1; then
	N=$(mktemp -d /tmp/borne-priv-nr.XXXXXX)
	at_exit "rm -rf '$N'"
	chmod 755 "$N"
	chown 65534:65534 "$N"
	mkdir "$N/closed"
	chmod 700 "$N/closed"
	# nr [PLANENC-OPTION...]: privrw pwrite on $N/plain as uid 65534.
	nr() {
		# shellcheck disable=SC2086
		"$PE" $SYS --rox "$HELP" --rw "$N" $EXTRA "$@" \
		    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
		    -- "$H" pwrite "$N/plain" >"$TMP/plan" || return 99
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		    env ASAN_OPTIONS=detect_leaks=0 "$CX" --no-image-cache \
		    <"$TMP/plan"
	}
	: >"$N/plain"
	chown 65534:65534 "$N/plain"
	t_exit 0 "not root, degrade, a directory it cannot read beneath --rw: runs" \
	    nr --degrade
	t_grep "  said, naming it" "^confexec: WARNING: privileged files beneath the rw rules: 1 place\(s\) could not be looked at, the first $N/closed: open: Permission denied\$" "$ERR"
	rmdir "$N/closed"
	mk suid "$N/mine"
	chown 65534:65534 "$N/mine"
	chmod 4755 "$N/mine"
	t_exit 0 "not root, degrade: its own setuid file stripped" nr --degrade
	t_eq "  host side: 0755" "$(stat -c %a "$N/mine")" 755
	mk suid "$N/roots"
	R0=$(state "$N/roots")
	t_exit 125 "not root, degrade: root's setuid file it cannot strip: refused" \
	    nr --degrade
	t_grep "  said: not stripped, and the command" \
	    "^confexec: privileged file beneath rw $N: $N/roots .*: not stripped: chmod: Operation not permitted; clear it with: suidstrip -- $N/roots\$" \
	    "$ERR"
	t_eq "  host side: unchanged" "$(state "$N/roots")" "$R0"
else
	skip "a caller that is not root" "needs setpriv"
fi

# Nothing privileged: the run goes on, the start record says so.
: >"$W/plain"
t_exit 0 "a rw tree with nothing privileged: runs" cx -- pwrite "$W/plain"
t_eq "  the start record: found 0" \
    "$(start_priv | jq -c '[.found, .stripped, .refused, .files]')" '[0,0,0,[]]'
# Without a rw rule the walk does not run: null.
# shellcheck disable=SC2086
"$PE" $SYS --rox "$HELP" $EXTRA \
    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
    -- "$H" pwrite /nonexistent >"$TMP/plan"
rm -f "$J"
t_exit 0 "without a rw rule: runs" sh -c '"$1" --journal "$2" <"$3"' sh \
    "$CX" "$J" "$TMP/plan"
t_eq "  the start record's privileged is null" "$(start_priv)" null

done_testing
