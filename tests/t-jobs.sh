#!/bin/sh
# The everyday jobs, first try: each runs the command its shipped profile
# documents (the comment block of contrib/profiles/NAME.profile, taken
# from the file itself, run once, as written but for the paths of this
# build and of the fixtures), on loopback stand-ins for the registries:
# git (init and commit, clone of a local bare repository), npm install
# from a loopback registry through the run's egress broker, apt-get update
# and download from a loopback repository of a locally built package,
# tar x of a tarball with owners, an agent's tool call (a shell with a
# background job; a #!/usr/bin/env python3 script), a C build, a python
# test run: every command block of every shipped profile.  Then what a user is told before or as
# a job fails: a TLS client that does not trust the server's CA named
# with the fix (and the fix working), failed egress on stderr (cannot
# connect, cannot resolve, reset; bounded), a journal whose directory is
# missing.  Each job is checked from the host side too (the files it
# made, the requests the stand-in saw).
# The whole file runs in a private mount namespace: apt's directories
# (/etc/apt, /var/lib/apt/lists, /var/cache/apt) are this file's fixtures
# there, never the host's.
if [ -z "${JOBS_UNSHARED:-}" ] && [ "$(id -u)" -eq 0 ] &&
    command -v unshare >/dev/null 2>&1; then
	JOBS_UNSHARED=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

need_root
need_landlock 4
need_cgroup2
need_cmd python3
need_cmd git
need_cmd npm
need_cmd node
need_cmd tar
need_cmd openssl
need_cmd jq
need_cmd curl
need_cmd apt-get
need_cmd apt-ftparchive
need_cmd dpkg-deb
[ -n "${JOBS_UNSHARED:-}" ] || skip_all "needs its own mount namespace (unshare)"

PROF=$T_TOP/contrib/profiles
SHARE=$BIN/../share/borne
EF=$SHARE/egress-for
[ -x "$EF" ] && [ -f "$SHARE/profiles/apt.profile" ] ||
	skip_all "the build's share/borne is not made (make)"
SERVE=$T_TOP/tests/jobs-serve.py
can() { "$BIN/cgprobe" --require "$1" 2>/dev/null; }
BASE=cgroup2,cgroup-kill,clone-into-cgroup,landlock,seccomp,seccomp-kill-process,no-new-privs,execveat,pidfd
can "$BASE" || skip_all "confexec cannot run a plain plan here (cgprobe --require $BASE)"
W=$TMP/w
mkdir -p "$W"
# The tools as a user has them on PATH: this build's first.
JPATH=$BIN:/usr/local/bin:/usr/bin:/bin

# doc PROFILE N: the Nth command block of PROFILE's comment (lines
# "#   ...", continued by deeper-indented "#       ..." lines), as the
# profile shows it.
doc() {
	awk -v want="$2" '
	/^#   / { if (!inb) { n++; inb = 1 }
		if (n == want) print substr($0, 5); next }
	{ inb = 0 }' "$PROF/$1.profile"
}
# job DIR PROFILE N [SED]: run block N of PROFILE from DIR, once, by
# sh, with this build's egress-for for the installed one and SED applied
# (the fixtures' paths); $OUT and $ERR as t_exit keeps them.  The block
# is in $TMP/job.sh.
job() {
	jd=$1 jp=$2 jn=$3
	doc "$jp" "$jn" | sed "s|/usr/local/share/borne/egress-for|$EF|g; ${4:-}" \
	    >"$TMP/job.sh"
	[ -s "$TMP/job.sh" ] || { echo "no block $jn in $jp.profile" >&2; return 99; }
	(cd "$jd" && PATH=$JPATH exec sh "$TMP/job.sh")
}
# serve NAME DIR [CERT KEY]: a stand-in on 127.0.0.1 serving DIR; its
# port in $TMP/NAME.port, its requests in $TMP/NAME.log.
serve() {
	sname=$1; shift
	: >"$TMP/$sname.log"
	python3 "$SERVE" 127.0.0.1 "$TMP/$sname.port" "$1" "$TMP/$sname.log" \
	    ${2:+"$2"} ${3:+"$3"} >/dev/null 2>"$TMP/$sname.err" &
	at_exit "kill_ours $! 2>/dev/null"
	wait_for test -s "$TMP/$sname.port"
}

# ---- the blocks exist: what the tests below run is what users read ----
# piped: block N of PROFILE ends in "| confexec".
piped() { doc "$1" "$2" | tail -n 1 | grep -q '| confexec$'; }
for pb in "git 1" "git 2" "npm 1" "npm 2" "apt 1" "apt 2" "tar 1" \
    "agent-tool 1" "agent-tool 2" "c-build 1" "python-test 1"; do
	# shellcheck disable=SC2086
	set -- $pb
	ok "$1.profile documents its job (block $2, ending in | confexec)" \
	    piped "$1" "$2"
done

# ---- git: init and commit; clone of a local bare repository -------------
G=$W/git
mkdir -p "$G/work" "$G/srv/git"
echo "first" >"$G/work/README"
t_exit 0 "git: init, add, commit (git.profile, block 1)" job "$G/work" git 1
t_eq "  the commit is on the host" \
	"$(git -C "$G/work" log --format='%an <%ae> %s' 2>/dev/null)" \
	"ci <ci@example.org> msg"
t_eq "  with the file" "$(git -C "$G/work" show HEAD:README 2>/dev/null)" first
git init -q --bare "$G/srv/git/project.git" &&
	git -C "$G/work" push -q "$G/srv/git/project.git" HEAD:refs/heads/main 2>/dev/null &&
	git -C "$G/srv/git/project.git" symbolic-ref HEAD refs/heads/main
mkdir -p "$G/clone"
# tree DIR: every file of DIR with its digest and mode, and the
# directories with theirs (a snapshot to compare).
tree() { (cd "$1" && find . -printf '%p %m %s\n' | sort && find . -type f -exec sha256sum {} + | sort); }
tree "$G/srv/git/project.git" >"$TMP/bare.before"
t_exit 0 "git: clone of a local bare repository (git.profile, block 2)" \
	job "$G/clone" git 2 "s|/srv/git|$G/srv/git|g"
t_eq "  the clone is on the host, at the same commit" \
	"$(git -C "$G/clone/project" rev-parse HEAD 2>/dev/null)" \
	"$(git -C "$G/work" rev-parse HEAD)"
tree "$G/srv/git/project.git" >"$TMP/bare.after"
ok "  the bare repository is unchanged (read-only in the run)" \
	cmp "$TMP/bare.before" "$TMP/bare.after"

# ---- npm install through the broker, from a loopback registry ----------
# The registry stand-in serves one package: its document at /hello-borne
# and its tarball.  The project names it; its .npmrc names the registry
# (npm's own configuration, which egress-for reads).
N=$W/npm
mkdir -p "$N/src/package" "$N/reg/hello-borne/-" "$N/proj"
printf '{"name":"hello-borne","version":"1.0.0","main":"index.js"}\n' \
	>"$N/src/package/package.json"
printf 'module.exports = "hello from the registry";\n' >"$N/src/package/index.js"
TGZ=$N/reg/hello-borne/-/hello-borne-1.0.0.tgz
tar -C "$N/src" -czf "$TGZ" package
# npmdoc URL-BASE: the package document for a registry at URL-BASE.
npmdoc() {
	printf '{"name":"hello-borne","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"hello-borne","version":"1.0.0","dist":{"tarball":"%s/hello-borne/-/hello-borne-1.0.0.tgz","shasum":"%s","integrity":"sha512-%s"}}}}\n' \
	    "$1" "$(sha1sum "$TGZ" | cut -d' ' -f1)" \
	    "$(openssl dgst -sha512 -binary "$TGZ" | base64 -w0)"
}
serve npmreg "$N/reg"
NP=$(cat "$TMP/npmreg.port" 2>/dev/null)
npmdoc "http://127.0.0.1:$NP" >"$N/reg/hello-borne/index.json"
printf 'registry=http://127.0.0.1:%s/\n' "$NP" >"$N/proj/.npmrc"
printf '{"name":"proj","version":"1.0.0","private":true,"dependencies":{"hello-borne":"1.0.0"}}\n' \
	>"$N/proj/package.json"
t_exit 0 "npm install through the broker (npm.profile, block 2)" job "$N/proj" npm 2
t_eq "  the package is installed (host side)" \
	"$(cd "$N/proj" && node -e 'console.log(require("hello-borne"))' 2>&1)" \
	"hello from the registry"
t_exit 0 "npm ls, no network (npm.profile, block 1)" job "$N/proj" npm 1
t_grep "  lists the package" 'hello-borne@1\.0\.0' "$OUT"
t_grep "  the registry stand-in served the document" \
	'^GET /hello-borne 200$' "$TMP/npmreg.log"
t_grep "  and the tarball" \
	'^GET /hello-borne/-/hello-borne-1\.0\.0\.tgz 200$' "$TMP/npmreg.log"

# ---- apt-get update and download, from a loopback repository -----------
# A fresh host's apt, made here: its sources name only the stand-in (a
# flat repository of one package, "hello", built here), its partial
# directories and auxfiles _apt's, mode 0700 and 0755, as apt leaves them.
A=$W/apt
mkdir -p "$A/pkg/DEBIAN" "$A/pkg/usr/share/doc/hello" "$A/repo" \
	"$A/etc/sources.list.d" "$A/etc/apt.conf.d" "$A/etc/preferences.d" \
	"$A/etc/trusted.gpg.d" "$A/lists/partial" "$A/lists/auxfiles" \
	"$A/cache/archives/partial" "$A/dl"
printf 'Package: hello\nVersion: 1.0-borne\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: a test package\n' \
	>"$A/pkg/DEBIAN/control"
echo "hello" >"$A/pkg/usr/share/doc/hello/README"
dpkg-deb --root-owner-group --build "$A/pkg" "$A/repo/hello_1.0-borne_all.deb" >/dev/null &&
	(cd "$A/repo" && apt-ftparchive packages . >Packages &&
	    apt-ftparchive release . >Release) ||
	skip_all "cannot build the test repository"
serve aptrepo "$A/repo"
AP=$(cat "$TMP/aptrepo.port" 2>/dev/null)
echo "deb [trusted=yes] http://127.0.0.1:$AP/ ./" >"$A/etc/sources.list"
chown _apt "$A/lists/partial" "$A/lists/auxfiles" "$A/cache/archives/partial" &&
	chmod 700 "$A/lists/partial" "$A/cache/archives/partial" ||
	skip_all "no _apt user to own apt's partial directories"
mount --bind "$A/etc" /etc/apt && mount --bind "$A/lists" /var/lib/apt/lists &&
	mount --bind "$A/cache" /var/cache/apt ||
	skip_all "cannot put the fixture apt in place (bind mounts)"
t_exit 0 "apt-get update through the broker (apt.profile, block 1)" \
	job "$W" apt 1
t_nogrep "  without a warning or an error from apt" '^(W|E): ' "$OUT"
t_nogrep "  (nor on stderr)" '^(W|E): ' "$ERR"
t_grep "  the index is on the host" 'Package: hello' \
	"$(ls "$A"/lists/*_Packages 2>/dev/null | head -n 1)"
t_grep "  fetched from the stand-in" '^GET /\./Packages 200$' "$TMP/aptrepo.log"
t_exit 0 "apt-get download through the broker (apt.profile, block 2)" \
	job "$A/dl" apt 2
ok "  the package is on the host" cmp "$A/dl/hello_1.0-borne_all.deb" \
	"$A/repo/hello_1.0-borne_all.deb"
umount /var/cache/apt /var/lib/apt/lists /etc/apt

# ---- tar x of a tarball with owners ---------------------------------------
X=$W/tar
mkdir -p "$X/src/d" "$X/out"
echo "data" >"$X/src/d/f"
tar -C "$X/src" --owner=1000 --group=1000 -czf "$X/src.tar.gz" d
t_exit 0 "tar x of a tarball owned by uid 1000 (tar.profile, block 1)" \
	job "$X" tar 1
t_nogrep "  no ownership failure" 'Cannot change ownership' "$ERR"
t_eq "  the files are on the host, the caller's" \
	"$(stat -c '%u %s' "$X/out/d/f" 2>/dev/null)" "0 5"
# Without the profile's TAR_OPTIONS, the failure it prevents.
mkdir -p "$X/out2"
"$BIN/planenc" --preset sys --tmp --ro "$X/src.tar.gz" --rw "$X/out2" -- \
	tar -C "$X/out2" -xzf "$X/src.tar.gz" >"$TMP/tar2.plan"
t_exit 2 "  (without it: tar fails as root without CAP_CHOWN)" \
	"$BIN/confexec" <"$TMP/tar2.plan"
t_grep "  (Cannot change ownership to uid 1000)" \
	'Cannot change ownership to uid 1000' "$ERR"

# ---- an agent's tool call: a #!/usr/bin/env python3 script -------------
T=$W/agent
mkdir -p "$T/ws" "$T/tools"
cat >"$T/tools/count.py" <<'PY'
#!/usr/bin/env python3
import os, sys
n = sum(1 for _ in os.scandir(sys.argv[1]))
with open("count.txt", "w") as f:
    f.write("%d\n" % n)
print("counted", n)
PY
chmod 755 "$T/tools/count.py"
mkdir -p "$T/ws/src" && : >"$T/ws/src/a" && : >"$T/ws/src/b"
t_exit 0 "agent tool call, a #!/usr/bin/env python3 script (agent-tool.profile, block 2)" \
	job "$T/ws" agent-tool 2 "s|/opt/tools|$T/tools|g"
t_eq "  it ran" "$(cat "$OUT")" "counted 2"
t_eq "  its file is on the host" "$(cat "$T/ws/count.txt" 2>/dev/null)" 2

t_exit 0 "agent tool call, a shell with a background job (agent-tool.profile, block 1)" \
	job "$T/ws" agent-tool 1
t_grep "  its file is on the host" '^src$' "$T/ws/listing.txt"

# ---- a C build and a python test run: the other profiles' commands ----
C=$W/c
mkdir -p "$C"
printf '#!/bin/sh\nprintf "CC = cc\\n" >config.mk\necho configured\n' >"$C/configure"
chmod 755 "$C/configure"
printf 'int main(void) { return 0; }\n' >"$C/m.c"
printf 'include config.mk\nm: m.c\n\t$(CC) -o m m.c\n' >"$C/Makefile"
t_exit 0 "a C build: ./configure && make (c-build.profile, block 1)" \
	job "$C" c-build 1
ok "  the program is on the host" test -x "$C/m"
Y=$W/py
mkdir -p "$Y"
printf 'import unittest\nclass T(unittest.TestCase):\n    def test_it(self):\n        self.assertTrue(True)\n' \
	>"$Y/test_it.py"
t_exit 0 "a python test run (python-test.profile, block 1)" \
	job "$Y" python-test 1
t_grep "  one test ran" '^Ran 1 test' "$ERR"

# ---- TLS through the broker: a CA the payload does not trust -----------
# The registry stand-in over TLS with a self-signed certificate (as an
# intercepting proxy's CA looks to a client without it).  npm gives up
# during the handshake; the broker names the cause and the fix, once, on
# stderr and in the journal.  With the fix, the same job passes.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$N/key.pem" \
	-out "$N/ca.pem" -days 2 -subj /CN=localhost \
	-addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null ||
	skip_all "openssl cannot make a certificate"
mkdir -p "$N/treg/hello-borne/-" "$N/tproj"
cp "$TGZ" "$N/treg/hello-borne/-/"
serve tlsreg "$N/treg" "$N/ca.pem" "$N/key.pem"
TP=$(cat "$TMP/tlsreg.port" 2>/dev/null)
npmdoc "https://127.0.0.1:$TP" >"$N/treg/hello-borne/index.json"
# fetch-retries=0: one handshake, not npm's minute of retries.
printf 'registry=https://127.0.0.1:%s/\nfetch-retries=0\n' "$TP" >"$N/tproj/.npmrc"
cp "$N/proj/package.json" "$N/tproj/"
HINT="egress: 127\\.0\\.0\\.1:$TP: TLS: the payload closed after the server's certificates, likely not trusting their CA \\(an intercepting proxy\\?\\): --ro CA\\.pem --setenv NODE_EXTRA_CA_CERTS=CA\\.pem \\(node\\) or SSL_CERT_FILE=CA\\.pem"
job "$N/tproj" npm 2 "s#| confexec#| confexec --journal $TMP/tls.jnl#" \
	>"$OUT" 2>"$ERR"
t_eq "npm install from a registry whose CA npm does not trust: fails" "$?" 1
t_grep "  npm says the certificate is self-signed" 'SELF_SIGNED_CERT' "$ERR"
t_said "  the broker names the cause and the fix, on stderr" "$HINT\$" "$ERR"
t_eq "  once" "$(grep -c 'TLS: the payload closed' "$ERR")" 1
t_eq "  and in the journal's egress event" \
	"$(jq -r '.event | select(.event == "egress") | .reason' "$TMP/tls.jnl" | sort -u)" \
	"TLS: the payload closed after the server's certificates, likely not trusting their CA (an intercepting proxy?): --ro CA.pem --setenv NODE_EXTRA_CA_CERTS=CA.pem (node) or SSL_CERT_FILE=CA.pem"
t_exit 0 "  with the fix the broker named (the CA granted, NODE_EXTRA_CA_CERTS): installs" \
	job "$N/tproj" npm 2 "s#-- npm install#--ro $N/ca.pem --setenv NODE_EXTRA_CA_CERTS=$N/ca.pem -- npm install#"
t_nogrep "  and the broker says nothing" 'TLS: ' "$ERR"
t_eq "  the package is installed (host side)" \
	"$(cd "$N/tproj" && node -e 'console.log(require("hello-borne"))' 2>&1)" \
	"hello from the registry"
# curl (OpenSSL) and python likewise; SSL_CERT_FILE for them.
t_exit 60 "curl, the same CA untrusted: fails (60)" sh -c \
	"'$BIN/planenc' --preset sys --egress 127.0.0.1:$TP -- /usr/bin/curl -sS https://127.0.0.1:$TP/hello-borne/ | '$BIN/confexec'"
t_said "  the broker names the cause" "$HINT\$" "$ERR"
t_exit 0 "  with SSL_CERT_FILE: fetched" sh -c \
	"'$BIN/planenc' --preset sys --ro '$N/ca.pem' --setenv SSL_CERT_FILE='$N/ca.pem' --egress 127.0.0.1:$TP -- /usr/bin/curl -sS -o /dev/null -w '%{http_code}' https://127.0.0.1:$TP/hello-borne/ | '$BIN/confexec'"
t_eq "  (200)" "$(cat "$OUT")" 200
t_nogrep "  and the broker says nothing" 'egress:' "$ERR"
# Plain HTTP through a tunnel is no TLS: never named so.
t_exit 0 "a CONNECT tunnel that is not TLS: no TLS hint" sh -c \
	"'$BIN/planenc' --preset sys --egress 127.0.0.1:$NP -- /usr/bin/curl -sS -p -o /dev/null http://127.0.0.1:$NP/hello-borne | '$BIN/confexec'"
t_nogrep "  nothing said" 'egress:' "$ERR"

# ---- failed egress on stderr, bounded ------------------------------------
# A port nothing listens on: the kernel's refusal, said.  The ports were
# bound by this file and closed again (another process taking one
# meanwhile would show as a connection that did not fail).
closed_ports() {
	python3 -c '
import socket, sys
ss = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ss.append(s)
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"
}
CP=$(closed_ports 1)
t_exit 56 "curl to a listed port nothing listens on: fails (56, the tunnel's 502)" sh -c \
	"'$BIN/planenc' --preset sys --egress 127.0.0.1:$CP -- /usr/bin/curl -sS -p http://127.0.0.1:$CP/ | '$BIN/confexec' --journal '$TMP/fail.jnl'"
t_grep "  the broker says why on stderr" \
	"^confexec: egress: 127\\.0\\.0\\.1:$CP: connect 127\\.0\\.0\\.1 port $CP: Connection refused\$" "$ERR"
t_eq "  and in the journal" \
	"$(jq -r '.event | select(.event == "egress") | [.verdict, .reason] | join(" ")' "$TMP/fail.jnl")" \
	"failed connect 127.0.0.1 port $CP: Connection refused"
# A name no resolver knows (.invalid, RFC 6761).
"$BIN/planenc" --preset sys --egress nothing.invalid:80 -- /usr/bin/curl -sS -p \
	http://nothing.invalid/ | "$BIN/confexec" >"$OUT" 2>"$ERR"
t_eq "curl to a listed name that cannot be resolved: fails (56)" "$?" 56
# (a resolver that does not answer in 10 s is said as that)
t_grep "  the broker says why on stderr" \
	'^confexec: egress: nothing\.invalid:80: (cannot resolve nothing\.invalid: |nothing\.invalid port 80: no connection in 10000 ms$)' "$ERR"
# A destination that resets the connection once it is relayed.
python3 -c '
import socket, struct, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    c.recv(1)
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()' "$TMP/rst.port" 2>/dev/null &
at_exit "kill_ours $! 2>/dev/null"
wait_for test -s "$TMP/rst.port"
RP=$(cat "$TMP/rst.port" 2>/dev/null)
"$BIN/planenc" --preset sys --egress "127.0.0.1:$RP" -- /usr/bin/curl -sS -p \
	"http://127.0.0.1:$RP/" | "$BIN/confexec" >"$OUT" 2>"$ERR"
# curl sees the tunnel end (52, an empty reply) or reset (56), as the
# broker's close finds its socket.
rc=$?
t_eq "curl to a destination that resets: fails (52 or 56, got $rc)" \
	"$(echo "$rc" | sed 's/^5[26]$/52 or 56/')" "52 or 56"
t_grep "  the broker says so on stderr" \
	"^confexec: egress: 127\\.0\\.0\\.1:$RP: relaying (to|from) the destination: (Connection reset by peer|Broken pipe)\$" "$ERR"
# Twenty destinations that all fail: sixteen lines, then how many more.
PORTS=$(closed_ports 20)
EG=
for p in $PORTS; do EG="$EG --egress 127.0.0.1:$p"; done
cat >"$TMP/many.sh" <<EOF
for p in $PORTS; do curl -s -p -o /dev/null http://127.0.0.1:\$p/; done
exit 0
EOF
# shellcheck disable=SC2086
"$BIN/planenc" --preset sys --ro "$TMP/many.sh" $EG -- /bin/sh "$TMP/many.sh" |
	"$BIN/confexec" --journal "$TMP/many.jnl" >"$OUT" 2>"$ERR"
t_eq "twenty failing destinations: the run goes on (0)" "$?" 0
t_eq "  sixteen said, one line each" \
	"$(grep -c '^confexec: egress: 127\.0\.0\.1:[0-9]*: connect ' "$ERR")" 16
t_grep "  then how many more were not" \
	'^confexec: egress: 4 more failed connections not said here \(at most 16 are, each destination and cause once; the journal has every one\)$' "$ERR"
t_eq "  the journal has all twenty" \
	"$(jq -r '.event | select(.event == "egress") | .verdict' "$TMP/many.jnl" | grep -c '^failed$')" 20

# ---- a journal whose directory is missing ---------------------------------
"$BIN/planenc" --preset sys -- /bin/true >"$TMP/true.plan"
t_exit 125 "a journal in a missing directory: refused (125)" \
	"$BIN/confexec" --journal "$W/nolog/runs.jnl" <"$TMP/true.plan"
t_grep "  the refusal names the command that makes it" \
	"cannot open $W/nolog/runs\\.jnl: No such file or directory \\(make its directory first: mkdir -p $W/nolog\\)" "$ERR"
mkdir -p "$W/nolog"
t_exit 0 "  after it: runs" "$BIN/confexec" --journal "$W/nolog/runs.jnl" <"$TMP/true.plan"

done_testing
