#!/bin/sh
# Real work under plans people write: only --preset sys --tmp plus the
# work directory (--rwx where it must execute), through planenc | confexec:
# a C project's configure and make, a python unittest suite, git, an agent
# tool call that starts a background job.  Then what those plans rest on,
# proved from inside and from the host: the private tmp, /dev/null, rwx,
# port 0, symlinked rule paths, exec failures that name what was missing,
# and the start record (argv, cwd, resolved rules).
# The whole file runs in a private mount namespace: the overlay it puts
# on /etc (a planted secret, below) is seen by its own runs only, never
# by another test's --preset sys beside it.
if [ -z "${WL_UNSHARED:-}" ] && [ "$(id -u)" -eq 0 ] &&
    command -v unshare >/dev/null 2>&1; then
	WL_UNSHARED=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

needs root landlock=1 cgroup2 python3 git gcc make bash

PROF=$T_TOP/contrib/profiles
# What every confexec run needs (confexec(1), Mode selection): a host
# that cannot enforce it refuses every plan (125).
can() { "$BIN/cgprobe" --require "$1" 2>/dev/null; }
BASE=cgroup2,cgroup-kill,clone-into-cgroup,landlock,seccomp,seccomp-kill-process,no-new-privs,execveat,pidfd
can "$BASE" || skip_all "confexec cannot run a plain plan here (cgprobe --require $BASE)"
W=$TMP/w
mkdir -p "$W"

# cx DIR PLANENC-ARGS...: planenc ARGS | confexec, from DIR (the payload's
# working directory is confexec's).  $OUT, $ERR as t_exit keeps them.
cx() {
	cxd=$1; shift
	(cd "$cxd" && "$PE" "$@" >"$TMP/.plan") || return 2
	(cd "$cxd" && TMPDIR=$TB exec "$CX" --journal "$TMP/runs.jnl" \
	    <"$TMP/.plan")
}
# The private directories confexec made: a list before and after a run,
# under a base of this file's own (other files' runs make theirs in /tmp
# at the same time).
TB=$W/tmpbase
mkdir -m 755 "$TB"
tmps() { ls -1d "$TB"/borne-tmp-* 2>/dev/null | sort; }
tmps >"$TMP/tmps.before"
# last_start KEY: KEY of the journal's last start record (jq filter).
last_start() {
	jq -c "select(.event.event == \"start\") | .event | $1" \
	    "$TMP/runs.jnl" | tail -n 1
}

# ---- a C project: configure (a shell script) and make with gcc ----------
C=$W/hello
mkdir -p "$C"
cat >"$C/configure" <<'CONF'
#!/bin/sh
# What autoconf scripts do: a background job with output to /dev/null (dash
# refuses to go on without it), a compiler test in a temp dir, running what
# it compiled, random bytes.
exec 5>/dev/null
( : ) >/dev/null 2>&1 &
wait
t=$(mktemp -d) || { echo "configure: mktemp failed" >&2; exit 1; }
printf 'int main(void) { return 0; }\n' >"$t/conftest.c"
gcc -o conftest "$t/conftest.c" || { echo "configure: C compiler cannot create executables" >&2; exit 1; }
./conftest || { echo "configure: cannot run C programs" >&2; exit 1; }
rm -rf "$t" conftest
head -c 8 /dev/urandom | od -An -tx1 >/dev/null || exit 1
printf '#define GREETING "hello, world"\n' >config.h
printf 'CC = gcc\n' >config.mk
echo "tmp=$TMPDIR" >configure.tmpdir
echo "configure: ok"
CONF
chmod 755 "$C/configure"
cat >"$C/hello.c" <<'SRC'
#include <stdio.h>
#include "config.h"
int main(void) { puts(GREETING); return 0; }
SRC
printf 'include config.mk\nhello: hello.c config.h\n\t$(CC) -O2 -pipe -o hello hello.c\ncheck: hello\n\t./hello >out.txt\n' >"$C/Makefile"
t_exit 0 "C project: configure && make && make check (--profile c-build --rwx)" \
	cx "$C" --profile "$PROF/c-build.profile" --rwx "$C" -- \
	sh -c './configure && make && make check'
t_grep "  configure ran its tests" '^configure: ok$' "$OUT"
t_eq "  the program built and ran (host side)" "$(cat "$C/out.txt" 2>/dev/null)" \
	"hello, world"
ok "  the binary is on the host" test -x "$C/hello"
ctmp=$(sed -n 's/^tmp=//p' "$C/configure.tmpdir" 2>/dev/null)
t_grep "  TMPDIR was the run's private directory" \
	"^tmp=$TB/borne-tmp-[0-9a-f]{32}\$" "$C/configure.tmpdir"
ok "  and it is gone after the run" test ! -e "${ctmp:-/nonexistent}"

# ---- a C build with only --preset sys --tmp --rwx: the preset's PATH ----
# No PATH given: the preset sets it to the usual command directories that
# exist here, so cc finds cc1 and collect2 finds ld (with an empty
# environment they do not).
CB=$W/cb
mkdir -p "$CB"
printf 'int main(void) { return 42; }\n' >"$CB/m.c"
printf 'm: m.c\n\tcc -c -o m.o m.c\n\tcc -o m m.o\n' >"$CB/Makefile"
t_exit 0 "C build: make, cc, ld with only --preset sys --tmp --rwx" \
	cx "$CB" --preset sys --tmp --rwx "$CB" -- \
	sh -c 'make && ld --version >/dev/null && echo "PATH=$PATH"'
t_grep "  the payload's PATH is the preset's" \
	'^PATH=(/usr/local/sbin:)?(/usr/local/bin:)?(/usr/sbin:)?/usr/bin' "$OUT"
ok "  the binary was linked (host side)" test -x "$CB/m"
"$CB/m"
t_eq "  and it runs" "$?" 42
"$PE" --preset sys --setenv PATH=/opt/x -- /bin/true >"$TMP/pp.plan"
t_eq "  a PATH the plan sets is kept" \
	"$("$PE" --decode <"$TMP/pp.plan" | jq -r .env.PATH)" /opt/x

# ---- the system preset keeps the host's secrets ---------------------------
# A root payload owns /etc/shadow (mode 0640, root's): the preset grants
# /etc whole, and the run's view withholds what others may not read (its
# /etc idmapped: the payload is "others" there) and the secrets by name
# (covered by an empty file or directory of mode 0).  Secrets planted for
# this test (a directory others may search, a key only root may read;
# sudoers, a sudoers.d entry and an ssh host private key readable by
# others, withheld by their names) show the rule on any host.
SEC=/etc/borne-test-secret.$$
[ -n "${WL_UNSHARED:-}" ] || skip_all "needs a private mount namespace (unshare -m) for its /etc overlay"
mkdir -p "$TMP/etc" && mount -t tmpfs -o mode=700 tmpfs "$TMP/etc" &&
	mkdir "$TMP/etc/up" "$TMP/etc/work" &&
	mount -t overlay overlay \
	    -o "lowerdir=/etc,upperdir=$TMP/etc/up,workdir=$TMP/etc/work" /etc ||
	skip_all "cannot put an overlay on /etc in this mount namespace"
# The sanitized helper's leak checker would need /proc, which the preset
# does not grant: granted, and the checker kept quiet, in the asan build.
QUIET=
[ "$VARIANT" = asan ] && QUIET="--ro /proc --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0"
mkdir -m 0755 "$SEC" && mkdir -m 0755 "$SEC/d" &&
	echo private >"$SEC/d/key" && chmod 0600 "$SEC/d/key" &&
	echo public >"$SEC/d/key.pub" && chmod 0644 "$SEC/d/key.pub"
HK=/etc/ssh/ssh_host_borne_test_key
mkdir -p /etc/ssh /etc/sudoers.d &&
	echo 'root ALL=(ALL) ALL' >/etc/sudoers && chmod 0644 /etc/sudoers &&
	echo 'u ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/borne-test &&
	chmod 0644 /etc/sudoers.d/borne-test &&
	echo private >"$HK" && chmod 0644 "$HK" &&
	echo public >"$HK.pub" && chmod 0644 "$HK.pub" ||
	fail "plant sudoers, sudoers.d and an ssh host key in the overlay"
# A symbolic link in /etc is granted as its target outside /etc only when
# others may read that: a key of mode 0600, or a directory holding one,
# is not granted through a link (targets on a tmpfs of this namespace's,
# on /mnt: every directory above them searchable).
mount -t tmpfs -o mode=755 tmpfs /mnt &&
	mkdir -m 0755 /mnt/ld && echo private >/mnt/ld/key &&
	chmod 0600 /mnt/ld/key && echo public >/mnt/ld/pub &&
	chmod 0644 /mnt/ld/pub && mkdir -m 0755 /mnt/pd &&
	echo public >/mnt/pd/f && chmod 0644 /mnt/pd/f &&
	ln -s /mnt/ld/key /etc/borne-test-link-key &&
	ln -s /mnt/ld /etc/borne-test-link-dir &&
	ln -s /mnt/ld/pub /etc/borne-test-link-pub &&
	ln -s /mnt/pd /etc/borne-test-link-pd ||
	fail "plant symbolic links in /etc to keys on /mnt"
for f in /etc/shadow /etc/gshadow "$SEC/d/key" /etc/sudoers \
    /etc/sudoers.d/borne-test "$HK"; do
	[ -e "$f" ] || continue
	sum=$(sha256sum "$f")
	t_exit 0 "--preset sys, a root payload: read $f" \
		cx "$W" --preset sys --rox "$HELP" $QUIET -- "$HELP/escape" read "$f"
	t_grep "  refused (EACCES)" '^EACCES$' "$OUT"
	t_eq "  the host file is unchanged" "$(sha256sum "$f")" "$sum"
done
for f in /etc/passwd "$SEC/d/key.pub" "$HK.pub"; do
	t_exit 0 "--preset sys, a root payload: read $f" \
		cx "$W" --preset sys --rox "$HELP" $QUIET -- "$HELP/escape" read "$f"
	t_grep "  allowed" '^OK$' "$OUT"
done
# A link of /etc leads where it leads: the preset names /etc alone, and
# what lies outside every rule is not in the view, readable or not.
for f in /etc/borne-test-link-key /etc/borne-test-link-dir/key \
    /etc/borne-test-link-pub /etc/borne-test-link-pd/f; do
	t_exit 0 "--preset sys, a root payload: read $f" \
		cx "$W" --preset sys --rox "$HELP" $QUIET -- "$HELP/escape" read "$f"
	t_grep "  not in the view (ENOENT)" '^ENOENT$' "$OUT"
done
# The preset is the same handful of rules whatever /etc holds: a directory
# of 2,000 entries and one others may not read change nothing.
"$PE" --preset sys -- /bin/true | "$PE" --decode >"$TMP/sec.json"
mkdir -m 0755 "$SEC/many" && mkdir -m 0700 "$SEC/closed" &&
	i=0 && while [ $i -lt 2000 ]; do : >"$SEC/many/f$i"; i=$((i + 1)); done
"$PE" --preset sys -- /bin/true | "$PE" --decode >"$TMP/sec2.json"
t_eq "  the plan: /etc one rule, named the preset's" \
	"$(jq -c '[.preset, [.ro[] | select(startswith("/etc"))]]' "$TMP/sec2.json")" \
	'["sys",["/etc"]]'
t_eq "  the same plan whatever /etc holds" "$(jq -c 'del(.plan_sha256)' \
	"$TMP/sec2.json")" "$(jq -c 'del(.plan_sha256)' "$TMP/sec.json")"
ok "  a handful of rules (at most 12)" \
	test "$(jq '[.ro, .rw, .rox, .rwx] | add | length' "$TMP/sec2.json")" -le 12
t_exit 0 "--preset sys over that /etc: a run" \
	cx "$W" --preset sys --rox "$HELP" $QUIET -- "$HELP/escape" read \
	"$SEC/closed"
t_grep "  the directory others may not search: EACCES" '^EACCES$' "$OUT"
SR=$(grep '"event":"start"' "$TMP/runs.jnl" | tail -n 1)
ok "  the start record is small (under 4 KiB: $(printf %s "$SR" | wc -c) bytes)" \
	test "$(printf %s "$SR" | wc -c)" -lt 4096
t_eq "  it names the preset and how /etc's secrets are withheld" \
	"$(printf %s "$SR" | jq -r '[.event.preset, (.event.etc_secrets.how |
	    IN("idmapped", "covered"))] | @tsv')" "$(printf 'sys\ttrue')"
umount /mnt
umount /etc && umount "$TMP/etc"
ok "  the overlay on /etc is gone: the planted secrets were never the host's" \
	test ! -e "$SEC" -a ! -e "$HK" -a ! -e /etc/sudoers.d/borne-test

# ---- a python unittest suite ---------------------------------------------
PY=$W/py
mkdir -p "$PY"
cat >"$PY/test_calc.py" <<'PYT'
import os, tempfile, unittest
class Calc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(1 + 1, 2)
    def test_tempfile(self):
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"x")
            self.assertTrue(f.name.startswith(os.environ["TMPDIR"]))
    def test_urandom(self):
        self.assertEqual(len(os.urandom(16)), 16)
PYT
t_exit 0 "python3 -m unittest (--profile python-test --rw)" \
	cx "$PY" --profile "$PROF/python-test.profile" --rw "$PY" -- \
	python3 -m unittest -v
t_grep "  three tests ran" '^Ran 3 tests' "$ERR"
t_grep "  and passed" '^OK$' "$ERR"
t_eq "  the program was looked up in the plan's PATH" "$(last_start .program)" \
	"\"$(PATH=/usr/local/bin:/usr/bin:/bin command -v python3)\""

# ---- #! tools: pytest, npm, npx ---------------------------------------------
# Scripts, as most language tools are (pytest: #!/usr/bin/python3; npm and
# npx: #!/usr/bin/env node): planenc runs the interpreter with the script,
# first try, with only --preset sys and the work directory.
PT=$W/pytest
mkdir -p "$PT"
printf 'def test_one():\n    assert 1 + 1 == 2\n\ndef test_two(tmp_path):\n    (tmp_path / "f").write_text("x")\n' >"$PT/test_it.py"
if command -v pytest >/dev/null 2>&1; then
	t_exit 0 "pytest -q (--preset sys --rw), a #! script on PATH" \
		cx "$PT" --preset sys --rw "$PT" -- pytest -q
	t_grep "  two tests passed" '^2 passed' "$OUT"
	t_eq "  the program is its interpreter" "$(last_start .program)" \
		"\"$(sed -n '1s/^#! *\([^ ]*\).*/\1/p' "$(command -v pytest)")\""
else
	skip "pytest -q, a #! script on PATH" "needs pytest (python3-pytest)"
fi
NP=$W/npm
mkdir -p "$NP"
if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
	t_exit 0 "npm --version (--preset sys --rw), #!/usr/bin/env node" \
		cx "$NP" --preset sys --rw "$NP" -- npm --version
	t_eq "  the host's npm version" "$(cat "$OUT")" "$(npm --version)"
	t_eq "  node found on the plan's PATH is the program" \
		"$(last_start .program)" "\"$(PATH=/usr/local/bin:/usr/bin:/bin command -v node)\""
	t_exit 0 "npx --version" cx "$NP" --preset sys --rw "$NP" -- npx --version
	t_grep "  a version" '^[0-9]+\.[0-9]+\.[0-9]+$' "$OUT"
	t_exit 0 "npm ls (--profile npm)" cx "$NP" \
		--profile "$PROF/npm.profile" --rw "$NP" -- npm ls
	t_grep "  the project listed" "^$NP\$" "$OUT"
else
	skip "npm --version, #!/usr/bin/env node" "needs npm and node"
fi

# ---- a pinned script: handed over sealed ---------------------------------
# --sha256 with a #! PROGRAM pins the script: confexec copies it into a
# sealed memfd, checks the copy and gives the interpreter that copy.  A
# shell reads its script as it goes: this one rewrites its own file (it
# may: the directory is rw) and then reaches its last line only if what
# it reads is not the file.
SC=$W/pin
mkdir -p "$SC"
{ printf '#!/bin/sh\nprintf "#!/bin/sh\\necho tampered\\n" >"$1"\n'
  printf 'echo "head $0"\n'
  i=0; while [ $i -lt 300 ]; do
	echo "# padding: past what a shell reads of its script at once"
	i=$((i + 1))
  done
  echo 'echo tail'; } >"$SC/s.orig"
cp "$SC/s.orig" "$SC/s.sh" && chmod 755 "$SC/s.sh"
t_exit 0 "a script run by path (no pin)" cx "$SC" --preset sys --rw "$SC" -- \
	"$SC/s.sh" "$SC/s.sh"
t_grep "  its path is its \$0" "^head $SC/s.sh\$" "$OUT"
t_eq "  its own rewrite is what the shell read next" "$(grep -c '^tail$' "$OUT")" 0
cp "$SC/s.orig" "$SC/s.sh"
PIN=$(sha256sum "$SC/s.sh" | cut -c1-64)
t_exit 0 "a pinned script (--sha256)" cx "$SC" --preset sys --rw "$SC" \
	--sha256 "$PIN" -- "$SC/s.sh" "$SC/s.sh"
t_grep "  read from a sealed copy: \$0 is /proc/self/fd/N" \
	'^head /proc/self/fd/[0-9]+$' "$OUT"
t_grep "  the pinned bytes ran to the end despite the rewrite" '^tail$' "$OUT"
t_grep "  the file was rewritten all the same" '^echo tampered$' "$SC/s.sh"
t_eq "  the start record names the script's digest" \
	"$(last_start .script_sha256)" "\"$PIN\""
t_exit 125 "the pin against a changed script: refused" cx "$SC" --preset sys \
	--rw "$SC" --sha256 "$PIN" -- "$SC/s.sh"
t_grep "  naming the script" "$SC/s.sh: script: SHA-256 differs from the pinned digest" "$ERR"
"$PE" --preset sys --rw "$SC" --sha256 "$PIN" -- "$SC/s.sh" >"$TMP/pin.plan"
t_exit 125 "  --dry-run says so too" "$CX" --dry-run <"$TMP/pin.plan"
t_grep "  naming the script" "would refuse: $SC/s.sh: script: SHA-256 differs" "$ERR"

# ---- git init / add / commit / log ----------------------------------------
G=$W/repo
mkdir -p "$G"
echo "first" >"$G/README"
t_exit 0 "git init, add, commit, log (--profile git --rw)" \
	cx "$G" --profile "$PROF/git.profile" --rw "$G" --setenv "HOME=$G" \
	--setenv GIT_AUTHOR_NAME=ci --setenv GIT_AUTHOR_EMAIL=ci@example.org \
	--setenv GIT_COMMITTER_NAME=ci \
	--setenv GIT_COMMITTER_EMAIL=ci@example.org -- \
	sh -c 'git init -q && git add README && git commit -q -m first && git log --oneline'
t_grep "  the commit is in the log" '^[0-9a-f]{7,} first$' "$OUT"
t_eq "  and in the repository, seen from the host" \
	"$(git -C "$G" log --format=%s 2>/dev/null)" first

# ---- an agent tool call: bash -lc with a background job -------------------
A=$W/agent
mkdir -p "$A"
t_exit 0 "bash -lc 'cmd > /dev/null &' (--profile agent-tool --rw)" \
	cx "$A" --profile "$PROF/agent-tool.profile" --rw "$A" -- \
	bash -lc 'echo hi > /dev/null & wait $!; echo "bg=$?"; date > now.txt &
	wait; cat < /dev/null; echo done'
t_grep "  the background job ran" '^bg=0$' "$OUT"
t_grep "  and the command finished" '^done$' "$OUT"
ok "  its file is on the host" test -s "$A/now.txt"

# ---- the private tmp ---------------------------------------------------------
T2=$W/tmp2
mkdir -p "$T2"
printf '%s\n' 'echo "$TMPDIR" >>dirs' 'stat -c %a "$TMPDIR" >>modes' \
	'echo data >"$TMPDIR/f" && cat "$TMPDIR/f"' \
	'cp /bin/true "$TMPDIR/t" && chmod 755 "$TMPDIR/t" && echo chmod=ok' \
	'"$TMPDIR/t"; echo "exec=$?"' \
	'sleep 0.2' >"$T2/s.sh"
for i in 1 2; do
	t_exit 0 "--tmp run $i" cx "$T2" --preset sys --tmp --rw "$T2" -- \
		sh ./s.sh
done
t_grep "  written and read back in TMPDIR" '^data$' "$OUT"
t_grep "  its metadata may change there (chmod, as beneath rw)" '^chmod=ok$' "$OUT"
t_grep "  a program copied there does not execute (rw, not rwx): 126" \
	'^exec=126$' "$OUT"
t_eq "  two runs, two directories" "$(sort -u "$T2/dirs" | wc -l | tr -d ' ')" 2
t_eq "  each mode 0700" "$(sort -u "$T2/modes")" 700
t_nogrep "  none of them left" "." "$(for d in $(cat "$T2/dirs"); do
	[ -e "$d" ] && echo "$d"; done >"$TMP/left"; echo "$TMP/left")"
tmps >"$TMP/tmps.after"
t_eq "  no borne-tmp- directory left by this file" \
	"$(comm -13 "$TMP/tmps.before" "$TMP/tmps.after" | wc -l | tr -d ' ')" 0
t_eq "  the start record names it" "$(last_start '(.tmp // "") | test("/borne-tmp-[0-9a-f]{32}$")')" true
# A payload that tries to keep its tmp: a read-only tree, a link out.
printf '%s\n' 'mkdir -p "$TMPDIR/a/b" && touch "$TMPDIR/a/b/f" && ln -s /etc "$TMPDIR/a/etc"' \
	'chmod 0 "$TMPDIR/a/b" "$TMPDIR/a"; echo "$TMPDIR" >kept' >"$T2/k.sh"
t_exit 0 "--tmp: a payload that makes its tmp hard to remove" \
	cx "$T2" --preset sys --tmp --rw "$T2" -- sh ./k.sh
ok "  removed anyway" test ! -e "$(cat "$T2/kept")"
ok "  without following its link out" test -f /etc/passwd

# ---- /dev/null, /dev/urandom: the preset --------------------------------------
D=$W/dev
mkdir -p "$D"
t_exit 0 "--preset sys: /dev/null writable, /dev/urandom readable" \
	cx "$D" --preset sys -- sh -c 'echo x >/dev/null && head -c 4 /dev/urandom | wc -c'
t_eq "  four random bytes" "$(tr -d ' ' <"$OUT")" 4
t_exit 2 "without the preset's /dev/null: the shell's redirection fails" \
	cx "$D" --rox /usr --rox /lib --rox /lib64 --follow-symlinks /lib \
	--follow-symlinks /lib64 -- /bin/sh -c 'echo x >/dev/null'
t_grep "  not in the view" '/dev/null: Directory nonexistent' "$ERR"

# ---- --rwx: write and execute on purpose --------------------------------------
X=$W/x
mkdir -p "$X"
t_exit 0 "--rwx: a program written there runs" \
	cx "$X" --preset sys --rwx "$X" -- \
	sh -c 'cp /bin/true ./t && chmod 700 ./t && ./t && echo ran'
t_grep "  it ran" '^ran$' "$OUT"
t_exit 126 "--rw only: the same program is refused (126)" \
	cx "$X" --preset sys --rw "$X" -- sh -c 'cp /bin/true ./u && exec ./u'
t_grep "  Permission denied" 'Permission denied' "$ERR"
t_exit 2 "--rw PARENT --rox CHILD (rwx by the back door) is refused" \
	"$PE" --rw "$X" --rox "$X/bin" -- /bin/true
t_grep "  and says to use rwx" "rox $X/bin: inside rw $X .*use rwx" "$ERR"

# ---- port 0: a test server binds an ephemeral port --------------------------
SRV='import socket
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(__import__("sys").argv[1])))
except OSError as e:
    print("bind:", e.errno); raise SystemExit(0)
s.listen(1)
print("port", s.getsockname()[1])'
N=$W/net
mkdir -p "$N"
# (planenc's own PATH may find a shim script first: the plan's is the
# system's.)
NP=PATH=/usr/bin:/bin
if can landlock-tcp; then
	t_exit 0 "--bind-tcp 0: a server binds port 0" \
		cx "$N" --preset sys --setenv "$NP" --tcp --bind-tcp 0 -- python3 -c "$SRV" 0
	t_grep "  and gets an ephemeral port" '^port [1-9][0-9]*$' "$OUT"
	t_exit 0 "without --bind-tcp 0: refused" \
		cx "$N" --preset sys --setenv "$NP" --tcp -- python3 -c "$SRV" 0
	t_eq "  EACCES from Landlock" "$(cat "$OUT")" "bind: 13"
	t_exit 0 "--bind-tcp 0 grants no fixed port" \
		cx "$N" --preset sys --setenv "$NP" --tcp --bind-tcp 0 -- python3 -c "$SRV" 47123
	t_eq "  EACCES for port 47123" "$(cat "$OUT")" "bind: 13"
else
	t_exit 125 "--bind-tcp 0 where Landlock has no TCP rules: refused" \
		cx "$N" --preset sys --setenv "$NP" --tcp --bind-tcp 0 -- python3 -c "$SRV" 0
fi

# ---- symlinks in rule paths ---------------------------------------------------
S=$W/sym
mkdir -p "$S/work" "$S/secret" "$S/real/sub"
echo key >"$S/secret/id"
ln -s "$S/secret" "$S/work/cache"	# planted by an earlier run
t_exit 125 "a rule path that is a symlink: refused" \
	cx "$S" --preset sys --rw "$S/work/cache" -- sh -c 'echo pwned >"$1/id"' sh "$S/work/cache"
t_grep "  naming the link and its target" \
	"rw $S/work/cache: symbolic link $S/work/cache -> $S/secret refused" "$ERR"
t_eq "  the target is untouched" "$(cat "$S/secret/id")" key
# After a sibling rule, walked from the directory that rule's walk
# reached: the link is still refused, not followed.
mkdir -p "$S/work/a"
t_exit 125 "a symlink rule after a sibling rule: refused" \
	cx "$S" --preset sys --rw "$S/work/a" --rw "$S/work/cache" -- /bin/true
t_grep "  naming the link and its target" \
	"rw $S/work/cache: symbolic link $S/work/cache -> $S/secret refused" "$ERR"
ln -s "$S/real" "$S/link"
t_exit 125 "a symlink in a middle component: refused" \
	cx "$S" --preset sys --rw "$S/link/sub" -- /bin/true
t_grep "  naming that component" "symbolic link $S/link -> $S/real refused" "$ERR"
t_exit 0 "--follow-symlinks accepts it for that rule" \
	cx "$S" --preset sys --rw "$S/link/sub" --follow-symlinks "$S/link/sub" \
	-- sh -c 'echo ok >"$1/f"' sh "$S/link/sub"
t_eq "  written through the link" "$(cat "$S/real/sub/f")" ok
t_eq "  the start record has the resolved path" \
	"$(last_start "[.rules[] | select(.path == \"$S/link/sub\") | .resolved]")" \
	"[\"$S/real/sub\"]"
mkdir -p "$S/tree/bin"
ln -s "$S/tree/bin" "$S/xlink"
t_exit 125 "rox on a followed link into a rw tree: refused once resolved" \
	cx "$S" --preset sys --rw "$S/tree" --rox "$S/xlink" \
	--follow-symlinks "$S/xlink" -- /bin/true
t_grep "  write and execute would both apply" \
	"rox $S/xlink \\($S/tree/bin\\) and rw $S/tree \\($S/tree\\) nest once resolved" "$ERR"
# The links of a merged /usr (/lib -> usr/lib): root's, in a / only root
# can write, relative and not climbing: followed without a flag, the start
# record shows where they led.
SYSLINK=
for l in /lib /lib64 /bin /sbin; do
	[ -L "$l" ] && [ "$(stat -c %u "$l")" = 0 ] && SYSLINK=$l && break
done
if [ -n "$SYSLINK" ] && [ "$(stat -c %u /)" = 0 ] &&
    [ "$(( $(stat -c 0%a /) & 022 ))" -eq 0 ]; then
	t_exit 0 "a system link of / ($SYSLINK) needs no --follow-symlinks" \
		cx "$S" --preset sys --rox "$SYSLINK" -- /bin/true
	t_eq "  the start record has where it led" \
		"$(last_start "[.rules[] | select(.path == \"$SYSLINK\") | .resolved]")" \
		"[\"$(readlink -f "$SYSLINK")\"]"
else
	skip "a system link of / needs no --follow-symlinks" "no merged-/usr link in /"
fi

# ---- exec failures name what was missing ---------------------------------------
E=$W/ex
mkdir -p "$E"
INTERP=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
import struct
off, = struct.unpack_from("<Q", d, 32); sz, n = struct.unpack_from("<HH", d, 54)
for i in range(n):
    t, = struct.unpack_from("<I", d, off + i * sz)
    if t == 3:
        o, = struct.unpack_from("<Q", d, off + i * sz + 8)
        l, = struct.unpack_from("<Q", d, off + i * sz + 32)
        print(d[o:o + l - 1].decode())' /usr/bin/true)
RI=$(readlink -f "$INTERP")
t_exit 126 "a program whose interpreter is outside every rox rule: 126" \
	cx "$E" --rox /usr/bin -- /usr/bin/true
t_grep "  names the program and its ELF interpreter" \
	"child: execveat: No such file or directory: program /usr/bin/true: its ELF interpreter $INTERP" "$ERR"
t_grep "  and the flag that grants it" \
	"grant it with --rox $(dirname "$RI"), or --preset sys\\)" "$ERR"
t_grep "  the end record says so too" "ELF interpreter $INTERP" "$TMP/runs.jnl"

# ---- the start record: argv, cwd, resolved rules ------------------------------------
t_exit 0 "three runs of /bin/sh, told apart" \
	cx "$D" --preset sys -- /bin/sh -c 'exit 0'
t_eq "  argv" "$(last_start .argv)" '["/bin/sh","-c","exit 0"]'
t_eq "  cwd" "$(last_start .cwd)" "\"$D\""
t_eq "  each rule with its resolved path" \
	"$(last_start '[.rules[] | select(.path == "/etc")]')" \
	'[{"intent":"ro","path":"/etc","resolved":"/etc"}]'

# A plan near the text bound: the start record lists what fits and counts
# the rest, and the run is journaled.
BIGA=$(head -c 60000 /dev/zero | tr '\0' a)
t_exit 0 "a plan with 900 kB of arguments runs with a journal" \
	cx "$D" --preset sys -- /bin/true $BIGA $BIGA $BIGA $BIGA $BIGA \
	$BIGA $BIGA $BIGA $BIGA $BIGA $BIGA $BIGA $BIGA $BIGA $BIGA
t_eq "  its start record lists argv in part, counting the rest" \
	"$(last_start '[(.argv | length) + .argv_omitted, (.argv_omitted > 0)]')" \
	'[16,true]'

# ---- make install-profiles, egress-for -----------------------------------
PFX=$TMP/pfx
t_exit 0 "make install-profiles into a prefix" \
	make -s -C "$T_TOP" install-profiles PREFIX="$PFX"
for f in "$T_TOP"/contrib/profiles/*.profile; do
	n=$(basename "$f" .profile)
	ok "  $n.profile installed" cmp "$f" "$PFX/share/borne/profiles/$n.profile"
done
ok "  egress-for installed, executable" test -x "$PFX/share/borne/egress-for"
mkdir -p "$PFX/bin" && cp "$PE" "$PFX/bin/planenc"
t_exit 0 "  the installed planenc finds --profile apt by name" \
	"$PFX/bin/planenc" --profile apt -- /bin/true
t_grep "  its rules" '^rw /var/lib/apt/lists$' "$OUT"

# egress-for: the --egress lines of the servers a package manager is
# configured with, read from its own configuration (one-line and deb822
# sources, options, ports, credentials, disabled stanzas, duplicates).
EF=$T_TOP/contrib/egress-for.sh
A=$TMP/apt
mkdir -p "$A/sources.list.d"
cat >"$A/sources.list" <<'SRC'
# a comment
deb [arch=amd64 signed-by=/k.gpg] http://mirror.example.org/debian bookworm main
deb-src https://user:secret@src.example.org:8443/debian bookworm main
deb file:/srv/local ./
deb http://mirror.example.org/debian bookworm-updates main
SRC
cat >"$A/sources.list.d/x.sources" <<'SRC'
Types: deb deb-src
URIs: http://a.example.org/d https://b.example.org/d
Suites: bookworm
Components: main

Types: deb
URIs: http://off.example.org/d
Enabled: no
Suites: bookworm

# Types: deb
Types: deb
URIs: http://[2001:db8::1]/d
Suites: bookworm
SRC
t_exit 0 "egress-for apt: from a sources directory" env APT_ETC="$A" sh "$EF" apt
t_eq "  each server once, in order, disabled and file: ones left out" \
	"$(tr '\n' ' ' <"$OUT")" \
	"--egress mirror.example.org:80 --egress src.example.org:8443 --egress a.example.org:80 --egress b.example.org:443 --egress [2001:db8::1]:80 "
t_exit 0 "  planenc takes its lines" "$PE" $(cat "$OUT") -- /bin/true
rm -f "$A/sources.list" "$A/sources.list.d/x.sources"
t_exit 1 "egress-for apt: nothing configured: exit 1" env APT_ETC="$A" sh "$EF" apt
t_grep "  saying so" '^egress-for: apt: no http or https server configured$' "$ERR"
t_exit 2 "egress-for: an unknown manager: exit 2" sh "$EF" pip

# ---- make demo says what its runs show -----------------------------------
t_exit 0 "contrib/demo.sh runs" sh "$T_TOP/contrib/demo.sh"
cp "$OUT" "$TMP/demo.out"
# after: the line a demo step printed after the line naming it.
after() { grep -F -A1 -- "$1" "$TMP/demo.out" | sed -n 2p; }
t_eq "  demo: writing /etc gives EROFS, as its text says" \
	"$(after 'escape" write /etc/borne-demo |')" EROFS
t_grep "  demo: the text says EROFS for /etc" 'writing /etc is refused .*$' "$TMP/demo.out"
t_grep "  (EROFS)" '\(EROFS, its own mount namespace\)' "$TMP/demo.out"
t_eq "  demo: reading /etc/shadow gives EACCES, as its text says" \
	"$(after 'escape" read /etc/shadow |')" EACCES
t_grep "  demo: the text says EACCES for /etc/shadow" \
	'reading /etc/shadow is refused by Landlock \(EACCES' "$TMP/demo.out"
t_eq "  demo: the TCP connect gives EACCES" "$(after 'escape" connect 22 |')" EACCES
t_eq "  demo: the UDP socket gives EPERM" "$(after 'escape" socket 2 2 0 |')" EPERM

done_testing
