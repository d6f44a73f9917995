#!/bin/sh
# docker-run-stripped.sh: run a container, then strip setuid/setgid bits
# and file capabilities from its bind mounts and volumes when it exits.
#
#   docker-run-stripped.sh [--within ROOT]... [--chown UID:GID] [--missing-ok]
#                          -- RUN-ARGS...
#
# RUN-ARGS are what you would give `docker run` (options, image, command).
# The container is created first and its mounts are read from `docker
# inspect` before it starts (so --rm-like cleanup cannot lose them), run
# attached, stripped with `suidstrip --inspect - --within ROOT` when it
# exits, then removed.  Only mount sources whose real path lies under a
# --within ROOT are touched (at least one is required); a source that is
# gone by then fails the strip unless --missing-ok.  Exit status: the
# container's when it failed, else suidstrip's (0 clean, 1 WARNING).
# Environment: DOCKER (client, default docker), SUIDSTRIP (default
# suidstrip), KEEP=1 keeps the container.  See contrib/README.suidstrip.md
# for teardown, detach, re-attach and orphan reaping.
set -u
DOCKER=${DOCKER:-docker}
SUIDSTRIP=${SUIDSTRIP:-suidstrip}
strip_args=
while [ $# -gt 0 ]; do
	case $1 in
	--within|--chown) [ $# -ge 2 ] || { echo "$0: $1 needs a value" >&2; exit 2; }
		strip_args="$strip_args $1 $(printf '%s' "$2" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"
		shift 2 ;;
	--missing-ok) strip_args="$strip_args --missing-ok"; shift ;;
	--) shift; break ;;
	*) echo "$0: unknown option: $1 (usage: $0 [--within ROOT]..." \
		"[--chown UID:GID] [--missing-ok] -- RUN-ARGS...)" >&2
		exit 2 ;;
	esac
done
case $strip_args in
*--within*) ;;
*) echo "$0: at least one --within ROOT is required" >&2; exit 2 ;;
esac
[ $# -gt 0 ] || { echo "$0: nothing to run" >&2; exit 2; }

cid=$("$DOCKER" create "$@") || exit 125
inspect=$(mktemp "${TMPDIR:-/tmp}/inspect.XXXXXX") || exit 125
cleanup() {
	rm -f "$inspect"
	[ "${KEEP:-0}" = 1 ] || "$DOCKER" rm -f "$cid" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"$DOCKER" inspect "$cid" >"$inspect" || exit 125
"$DOCKER" start -a "$cid"
rc=$?
# Teardown: the container has exited, nothing races the strip any more.
eval "set -- $strip_args"
"$SUIDSTRIP" "$@" --inspect - <"$inspect"
src=$?
[ $rc -ne 0 ] && exit $rc
exit $src
