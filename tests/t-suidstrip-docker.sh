#!/bin/sh
# suidstrip end to end with a real Docker engine: containers (default and
# hardened profiles) plant setuid, setgid, capability, hard-link, device
# and FIFO entries in bind mounts and a volume; `docker inspect | suidstrip
# --inspect - --within ROOT` strips exactly what it should.  The daemon is
# Debian's dockerd, started here (vfs storage, no network) in a private
# mount namespace, and stopped by its PID.
. "$(dirname "$0")/docker-engine.sh"
docker_unshare "$@"
. "$(dirname "$0")/lib.sh"
needs root dockerd busybox cc getcap jq
S=$BIN/suidstrip

# ---- the daemon (tests/docker-engine.sh) ----
docker_start

# ---- a tiny image: busybox plus a static capability writer ----
IMG=$TMP/img
mkdir -p "$IMG/bin" "$IMG/w" "$IMG/v"
cp "$(command -v busybox)" "$IMG/bin/busybox"
for a in sh touch chmod chown mkdir mknod mkfifo ln true; do
	ln -s busybox "$IMG/bin/$a"
done
ok "a static fcapset builds" \
	cc -static -O2 -o "$IMG/bin/fcapset" "$T_TOP/tests/helpers/fcapset.c"
(cd "$IMG" && tar -cf "$TMP/img.tar" .)
ok "docker import the image" "$DOCKER" import "$TMP/img.tar" borne-suid:test

# What a build in the sandbox might leave behind, in $1.
PLANT='set -e; cd "$1"
touch su; chmod 4755 su
touch sg; chmod 2755 sg
touch both; chmod 6711 both
touch cap2; fcapset cap2 2
touch cap3; fcapset cap3 3 1000
touch hl; chmod 4755 hl; ln hl hl2
mknod null c 1 3
mkfifo fifo
mkdir sgd; chmod 2775 sgd
mkdir -p deep/er; touch deep/er/x; chmod 6755 deep/er/x
touch plain; chmod 755 plain'

R=$TMP/sbx/docker
mkdir -p "$R/c1" "$R/c2" "$TMP/sbx2/docker" "$TMP/elsewhere"
ok "container with default capabilities plants into its bind mount" \
	"$DOCKER" run --name c1 --network none -v "$R/c1:/w" \
	--tmpfs /tmp -v "$TMP/elsewhere:/e" borne-suid:test \
	sh -c "$PLANT; touch /e/x; chmod 4755 /e/x" sh /w
ok "hardened container (cap-drop ALL + 5, no-new-privileges) plants too" \
	"$DOCKER" run --name c2 --network none --cap-drop ALL \
	--cap-add CHOWN --cap-add FOWNER --cap-add SETFCAP --cap-add MKNOD \
	--cap-add DAC_OVERRIDE --security-opt no-new-privileges \
	-v "$R/c2:/w" -v vol1:/v --mount type=bind,src="$TMP/sbx2/docker",dst=/x \
	borne-suid:test sh -c "$PLANT; touch /x/y; chmod 4755 /x/y" sh /w
ok "and into a named volume" \
	"$DOCKER" run --rm --network none -v vol1:/v borne-suid:test sh -c "$PLANT" sh /v
VOL=$("$DOCKER" volume inspect -f '{{.Mountpoint}}' vol1)
t_eq "the planted setuid file arrived root-owned on the host" \
	"$(stat -c '%a %u' "$R/c1/su")" "4755 0"
t_eq "the capability arrived too" "$(getcap "$R/c1/cap2" | sed 's/.* //')" \
	"cap_net_raw=ep"
t_eq "the device node arrived" "$(stat -c %F "$R/c2/null")" \
	"character special file"

"$DOCKER" inspect c1 c2 >"$TMP/inspect.json"
t_exit 1 "--check on docker inspect finds the planted files" \
	sh -c "'$S' --check --inspect - --within '$R' <'$TMP/inspect.json'"
t_eq "--check lists 8 files a container" \
	"$(grep -c "^privileged: $R/c1/" "$OUT") $(grep -c "^privileged: $R/c2/" "$OUT")" "8 8"

t_exit 0 "docker inspect | suidstrip --inspect - --within ROOT" \
	sh -c "'$S' --json --inspect - --within '$R' <'$TMP/inspect.json'"
cp "$OUT" "$TMP/strip.json"; cp "$ERR" "$TMP/strip.err"
for c in c1 c2; do
	W=$R/$c
	t_eq "$c: setuid stripped" "$(stat -c %a "$W/su")" "755"
	t_eq "$c: setgid stripped" "$(stat -c %a "$W/sg")" "755"
	t_eq "$c: both stripped, rest of the mode kept" "$(stat -c %a "$W/both")" "711"
	t_eq "$c: deep file stripped" "$(stat -c %a "$W/deep/er/x")" "755"
	t_eq "$c: hard link stripped (shared inode)" "$(stat -c '%a %h' "$W/hl2")" "755 2"
	t_eq "$c: owner unchanged" "$(stat -c %u "$W/su")" "0"
	t_eq "$c: no capability left" "$(getcap -r "$W")" ""
	t_eq "$c: plain file untouched" "$(stat -c %a "$W/plain")" "755"
	t_eq "$c: device node untouched" "$(stat -c '%F %t:%T' "$W/null")" \
		"character special file 1:3"
	t_eq "$c: FIFO untouched" "$(stat -c %F "$W/fifo")" "fifo"
	t_eq "$c: setgid directory untouched" "$(stat -c %a "$W/sgd")" "2775"
	t_grep "$c: device node reported" "$W/null: device node \(char 1:3\) left in place" \
		"$TMP/strip.err"
	t_grep "$c: setgid directory reported" "$W/sgd: setgid directory left in place" \
		"$TMP/strip.err"
	t_grep "$c: hard link reported" "$W/hl2?: hard link \(2 links\)" "$TMP/strip.err"
done
t_eq "json: the v3 capability and its root id" \
	"$(jq -r "select(.target==\"$R/c1\" and .path==\"cap3\") | \"\(.action) \(.cap) \(.cap_rootid)\"" "$TMP/strip.json")" \
	"stripped cap_net_raw=ep 1000"
t_grep "a bind mount outside ROOT is reported and skipped" \
	"$TMP/elsewhere: skipped: outside every --within root" "$TMP/strip.err"
t_grep "/sbx2 is not under /sbx" "sbx2/docker: skipped: outside" "$TMP/strip.err"
t_eq "so its file keeps its bit" "$(stat -c %a "$TMP/elsewhere/x") $(stat -c %a "$TMP/sbx2/docker/y")" \
	"4755 4755"
t_grep "the volume (outside ROOT) is skipped" "$VOL: skipped: outside" "$TMP/strip.err"
t_nogrep "the --tmpfs mount is no target" "/tmp: skipped|\"/tmp\"" "$TMP/strip.err"
t_exit 0 "a second --check is clean" \
	sh -c "'$S' --check --inspect - --within '$R' <'$TMP/inspect.json'"

# Volumes are stripped like bind mounts once their root is allowed.
"$DOCKER" run --name c3 --network none -v vol1:/v borne-suid:test true
t_exit 0 "the volume is stripped under --within its root" \
	sh -c "'$DOCKER' inspect c3 | '$S' --inspect - --within '$(dirname "$(dirname "$VOL")")'"
t_eq "volume: setuid stripped" "$(stat -c %a "$VOL/su")" "755"
t_eq "volume: capability removed" "$(getcap -r "$VOL")" ""

# --chown restores ownership of what root left, then strips.
mkdir -p "$R/c4"
"$DOCKER" run --name c4 --network none -v "$R/c4:/w" borne-suid:test \
	sh -c "$PLANT" sh /w
t_exit 0 "--chown 1000:1000 with docker inspect" \
	sh -c "'$DOCKER' inspect c4 | '$S' --chown 1000:1000 --inspect - --within '$R'"
t_eq "c4: files back to the host user" "$(stat -c %u:%g "$R/c4/su" "$R/c4/deep/er/x" | sort -u)" \
	"1000:1000"
t_eq "c4: hard-linked file left to root (reported)" "$(stat -c %u "$R/c4/hl")" "0"
t_eq "c4: device node left to root" "$(stat -c %u "$R/c4/null")" "0"
t_eq "c4: nothing privileged left" "$(stat -c %a "$R/c4/su" "$R/c4/hl") $(getcap -r "$R/c4")" \
	"755
755 "

# The contrib wrapper: run, then strip the bind mounts at exit.
mkdir -p "$R/c5"
t_exit 0 "contrib/docker-run-stripped.sh runs and strips" \
	env SUIDSTRIP="$S" DOCKER="$DOCKER" sh "$T_TOP/contrib/docker-run-stripped.sh" \
	--within "$R" -- --network none -v "$R/c5:/w" borne-suid:test sh -c "$PLANT" sh /w
t_eq "c5: stripped by the wrapper" "$(stat -c %a "$R/c5/su" "$R/c5/sg" | tr '\n' ' ')" "755 755 "
t_eq "c5: no capability" "$(getcap -r "$R/c5")" ""

done_testing
