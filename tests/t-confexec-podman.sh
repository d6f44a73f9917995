#!/bin/sh
# confexec inside a rootless Podman container (Debian's podman, run by a
# user that is not root, with subordinate ids; default capabilities and
# seccomp, --network none).  The checks are tests/container-suite.sh's.
#
# The host's configuration is not touched: the test user exists only in
# this file's private mount namespace, where /etc/passwd, /etc/group,
# /etc/subuid and /etc/subgid are copies with it added, bind-mounted over
# the host's (newuidmap, setuid root, reads them there).  Podman's state
# (storage, runtime directory, home) is under the test's directory; its
# rootless pause process is killed by its PID when the file ends.
if [ -z "${BORNE_PODMAN_UNSHARED:-}" ] && [ "$(id -u)" -eq 0 ] &&
    command -v unshare >/dev/null 2>&1; then
	BORNE_PODMAN_UNSHARED=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
needs root podman newuidmap newgidmap setpriv
[ -n "${BORNE_PODMAN_UNSHARED:-}" ] || skip_all "needs a private mount namespace (unshare)"
for f in passwd group subuid subgid; do
	[ -f "/etc/$f" ] || skip_all "needs /etc/$f to bind a copy over"
done

# ---- a user of this mount namespace only ----
PUID=61000
while [ $PUID -lt 62000 ] && { getent passwd $PUID >/dev/null ||
    getent group $PUID >/dev/null || [ -n "$(ps -o pid= -u $PUID)" ]; }; do
	PUID=$((PUID + 1))
done
[ $PUID -lt 62000 ] || skip_all "no free uid in 61000-61999"
# Subordinate ids far above any account's.
SUB=1800000000
PN=borne-pod
PD=$TMP/pod
mkdir -p "$PD/home" "$PD/run" "$PD/etc" "$PD/storage"
{ cat /etc/passwd; echo "$PN:x:$PUID:$PUID::$PD/home:/bin/sh"; } >"$PD/etc/passwd"
{ cat /etc/group; echo "$PN:x:$PUID:"; } >"$PD/etc/group"
echo "$PN:$SUB:65536" >"$PD/etc/subuid"
echo "$PN:$SUB:65536" >"$PD/etc/subgid"
chmod 644 "$PD/etc/"*
for f in passwd group subuid subgid; do
	mount --bind "$PD/etc/$f" "/etc/$f" || skip_all "cannot bind over /etc/$f"
done
# The user reaches its own directories under the test's (mode 0700).
chmod 711 "$TMP" "$PD"
chown -R "$PUID:$PUID" "$PD/home" "$PD/run" "$PD/storage"
chmod 700 "$PD/run"
t_eq "the test user is known here only" "$(getent passwd $PUID | cut -d: -f1)" "$PN"

CE_NAME=podman
ce() {
	setpriv --reuid="$PUID" --regid="$PUID" --clear-groups \
	    env -i HOME="$PD/home" XDG_RUNTIME_DIR="$PD/run" PATH="$PATH" \
	    podman --root "$PD/storage" --runroot "$PD/run/storage" \
	    --storage-driver vfs --cgroup-manager cgroupfs \
	    --events-backend file "$@"
}
ce_own() { chown -R "$PUID:$PUID" "$@"; }
pod_stop() {
	ce rm -fa >/dev/null 2>&1
	# The rootless pause process (it holds the user namespace): ours
	# if it runs as the test user.
	_pp=$(cat "$PD/run/libpod/tmp/pause.pid" 2>/dev/null)
	if [ -n "$_pp" ] && [ "$(stat -c %u "/proc/$_pp" 2>/dev/null)" = "$PUID" ]; then
		kill -KILL "$_pp" 2>/dev/null
	fi
	# Its files belong to subordinate ids: make them removable.
	chmod -R u+rwX "$PD" 2>/dev/null
}
at_exit pod_stop

ce info >"$TMP/pod.info" 2>&1
t_grep "podman runs rootless" 'rootless: true' "$TMP/pod.info"
grep -q 'rootless: true' "$TMP/pod.info" || {
	diag_file "$TMP/pod.info" 30
	skip_all "rootless podman does not start here"
}
t_grep "with the test's subordinate ids" "host_id: $SUB" "$TMP/pod.info"
# The image's files must be readable by the user.
. "$T_TOP/tests/container-suite.sh"
done_testing
