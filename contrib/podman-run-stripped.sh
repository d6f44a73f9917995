#!/bin/sh
# podman-run-stripped.sh: the podman variant of docker-run-stripped.sh (same
# options, same exit status): run a container, then strip setuid/setgid
# bits and file capabilities from its bind mounts and volumes when it
# exits.  podman inspect prints the same Mounts[] shape as docker's.
#
#   podman-run-stripped.sh [--within ROOT]... [--chown UID:GID] [--missing-ok]
#                          -- RUN-ARGS...
#
# Environment: PODMAN (client, default podman), SUIDSTRIP, KEEP as in
# docker-run-stripped.sh.
DOCKER=${PODMAN:-podman} exec sh "$(dirname "$0")/docker-run-stripped.sh" "$@"
