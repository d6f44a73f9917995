# tests/docker-engine.sh: a private Docker engine for one test file,
# sourced by the suites that need one, before tests/lib.sh:
#
#   . "$(dirname "$0")/docker-engine.sh"
#   docker_unshare "$@"
#   . "$(dirname "$0")/lib.sh"
#
#   docker_unshare "$@"   re-exec the file in a private mount namespace
#                         (the engine's mounts go with it), once, as
#                         root; before lib.sh, whose temporary directory
#                         and exit trap an exec would leak
#   docker_start [ARG...] start Debian's dockerd (vfs storage, no bridge,
#                         no iptables) with its data root, exec root,
#                         pidfile and socket under $TMP/d, and ARGs (e.g.
#                         another -H), poll until it answers (bounded),
#                         export DOCKER_HOST; $DPID is its PID, stopped
#                         when the file ends.  skip_all when it does not
#                         come up.
#   $DOCKER               the client (Debian's, /usr/bin/docker, unless
#                         DOCKER is set)
#
# Nothing here touches another engine: every path is the test's own, and
# only the PID this shell started is signalled.

docker_unshare() {
	if [ -z "${BORNE_DOCKER_UNSHARED:-}" ] && [ "$(id -u)" -eq 0 ] &&
	    command -v unshare >/dev/null 2>&1; then
		BORNE_DOCKER_UNSHARED=1 exec unshare -m --propagation private \
		    sh "$0" "$@"
	fi
}

docker_start() {
	need_root
	need_cmd dockerd
	DOCKER=${DOCKER:-/usr/bin/docker}
	[ -x "$DOCKER" ] || DOCKER=$(command -v docker) || skip_all "needs docker"
	D=$TMP/d
	mkdir -p "$D"
	# Sockets live under $D: keep its path short (sun_path is 108 bytes).
	dockerd --storage-driver=vfs --bridge=none --iptables=false \
	    --ip6tables=false --data-root "$D/root" --exec-root "$D/x" \
	    --pidfile "$D/pid" -H "unix://$D/s" "$@" >"$D/log" 2>&1 &
	DPID=$!
	at_exit docker_stop
	export DOCKER_HOST="unix://$D/s"
	# Bounded: 150 tries of the client, each a round trip (or a refused
	# connect while the socket is not there yet), about 30 s at most.
	_di=0
	until "$DOCKER" version >/dev/null 2>&1; do
		_di=$((_di + 1))
		if [ $_di -gt 150 ] || ! kill -0 "$DPID" 2>/dev/null; then
			diag_file "$D/log" 40
			skip_all "dockerd did not come up"
		fi
		sleep 0.2
	done
	pass "dockerd is up after $_di polls"
}

docker_stop() {
	for _dc in $("$DOCKER" ps -aq 2>/dev/null); do
		"$DOCKER" rm -f "$_dc" >/dev/null 2>&1
	done
	kill_ours -TERM "$DPID"
	# Until it has exited (a zombie counts: it is our child, reaped by
	# the wait below), 10 s at most, then KILL.
	_di=0
	while [ $_di -lt 100 ] && _ds=$(sed 's/.*) \([A-Za-z]\).*/\1/' \
	    "/proc/$DPID/stat" 2>/dev/null) && [ "$_ds" != Z ]; do
		sleep 0.1; _di=$((_di + 1))
	done
	kill_ours -KILL "$DPID"
	wait "$DPID" 2>/dev/null
	# Unmount whatever is left under $D, deepest first, before rm -rf.
	awk -v d="$D" '$5 ~ "^" d {print $5}' /proc/self/mountinfo | sort -r |
	    while read -r _dm; do umount -l "$_dm" 2>/dev/null; done
}
