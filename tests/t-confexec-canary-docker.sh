#!/bin/sh
# confexec --canary with a real Docker engine (tests/docker-engine.sh:
# Debian's dockerd in a private mount namespace, stopped by its PID), its
# socket where the daemon inventory looks for it (/run/docker.sock, on a
# /run of this file's own): a plan granted it (--unix --ack-daemon
# docker) shows the daemon probe granted and still passes; one without
# the unix right shows it denied; one that does not acknowledge it is
# refused.
. "$(dirname "$0")/docker-engine.sh"
docker_unshare "$@"
. "$(dirname "$0")/lib.sh"
needs root landlock=4 dockerd
[ -x "$BIN/confexec-canary" ] || skip_all "no $BIN/confexec-canary (make all)"
docker_start

# The engine's socket on /run/docker.sock, in this namespace only.
mount -t tmpfs -o mode=0755 tmpfs /run && : >/run/docker.sock &&
    mount --bind "$D/s" /run/docker.sock ||
    skip_all "cannot put the engine's socket on /run/docker.sock"
t_exit 0 "the engine answers on /run/docker.sock" \
    env DOCKER_HOST=unix:///run/docker.sock "$DOCKER" version

# canary PLANENC-ARGS...: the canary of the plan, lines in $OUT, journal
# $J (emptied).
J=$TMP/run.jnl
canary() {
	rm -f "$J"
	"$PE" "$@" -- /bin/true >"$TMP/plan" || return 124
	"$CX" --canary --journal "$J" <"$TMP/plan"
}
daemon() { awk -F'\t' '$1 == "daemon" {print $3 "\t" $4 "\t" $6}' "$OUT"; }

t_exit 0 "--unix --ack-daemon docker: exit 0" canary --unix --ack-daemon docker \
    --ro /run/docker.sock
t_eq "  the daemon probe: granted (acknowledged), connected, a match" \
    "$(daemon)" \
    "$(printf 'granted (acknowledged: --ack-daemon docker)\tok\tmatch')"
t_eq "  every line a match or not run" \
    "$(awk -F'\t' '$6 != "match" && $6 != "not run"' "$OUT")" ""
t_eq "  it tried the engine's socket" \
    "$(awk -F'\t' '$1 == "daemon" {print $2}' "$OUT")" \
    "connect /run/docker.sock (docker)"
t_eq "  its connection is a handoff record: dockerd's pid, uid 0" \
    "$(jq -c '.event | select(.event == "handoff") | [.daemon, .pid, .uid]' "$J")" \
    "[\"docker\",$(cat "$D/pid"),0]"

t_exit 0 "--unix --ack-daemon docker, no rule naming the socket: exit 0" \
    canary --unix --ack-daemon docker
t_eq "  denied by the view, ENOENT" "$(daemon)" \
    "$(printf 'denied (mount-view: no rule names it)\tENOENT\tmatch')"
t_eq "  no handoff record" \
    "$(jq -c '.event | select(.event == "handoff")' "$J")" ""

t_exit 0 "no unix right: the daemon probe denied, exit 0" canary
t_eq "  denied by seccomp, EPERM" "$(daemon)" \
    "$(printf 'denied (seccomp: no unix right)\tEPERM\tmatch')"

t_exit 125 "--unix, docker not acknowledged: refused, 125" canary --unix
t_grep "  naming the daemon and the flag" \
    "docker socket /run/docker.sock is connectable.*--ack-daemon docker" "$ERR"
t_eq "  no probe line" "$(cat "$OUT")" ""
done_testing
