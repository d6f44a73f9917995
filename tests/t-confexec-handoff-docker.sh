#!/bin/sh
# The trust handoff with a real engine: Debian's dockerd, started here in
# a private mount namespace (tests/docker-engine.sh) with a second socket
# at /run/docker.sock (a tmpfs of that namespace over /run: the host's
# /run is untouched), and `docker version` run by confexec under a plan
# that puts the socket in the run's view, grants AF_UNIX and acknowledges
# docker.  The journal names the
# dockerd started here (its pid, uid 0, its executable) as the kernel
# reports them, and the end record counts the same connections.
. "$(dirname "$0")/docker-engine.sh"
docker_unshare "$@"
. "$(dirname "$0")/lib.sh"
needs root dockerd jq
[ -n "${BORNE_DOCKER_UNSHARED:-}" ] || skip_all "needs unshare -m"
mount -t tmpfs tmpfs /run || skip_all "cannot mount a tmpfs on /run"
docker_start -H unix:///run/docker.sock
DEXE=$(readlink "/proc/$DPID/exe")
J=$TMP/j

"$BIN/planenc" --preset sys --ro /run/docker.sock --unix --ack-daemon docker --tmp \
    --setenv DOCKER_HOST=unix:///run/docker.sock --setenv HOME=/nonexistent \
    --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0 \
    -- "$DOCKER" version --format '{{.Server.Version}}' >"$TMP/plan" ||
    fail "planenc"
t_exit 0 "docker version under confexec" "$BIN/confexec" --journal "$J" \
    <"$TMP/plan"
t_eq "it answered with the engine's version (host side)" "$(cat "$OUT")" \
    "$("$DOCKER" version --format '{{.Server.Version}}')"
"$BIN/journalchain" show --json "$J" >"$TMP/show"
jq -c 'select(.event.event == "handoff") | .event' "$TMP/show" >"$TMP/ev"
n=$(wc -l <"$TMP/ev" | tr -d ' ')
ok "at least one handoff event" test "$n" -ge 1
t_eq "each names docker at /run/docker.sock, dockerd's pid, uid 0 and executable" \
    "$(jq -r '[.daemon, .socket, .pid, .uid, .exe] | @tsv' "$TMP/ev" |
    sort -u)" "$(printf 'docker\t/run/docker.sock\t%s\t0\t%s' "$DPID" \
    "$DEXE")"
t_eq "the end record counts them" "$(jq -c 'select(.event.event == "end") |
    .event.handoff | [.daemons.docker, .unlogged]' "$TMP/show")" "[$n,0]"
ok "the journal verifies" "$BIN/journalchain" verify --deep "$J"
note "end record: $(jq -c 'select(.event.event == "end") | .event.handoff' "$TMP/show")"
done_testing
