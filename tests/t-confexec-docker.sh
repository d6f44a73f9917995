#!/bin/sh
# confexec inside a default Docker container (root without CAP_SYS_ADMIN,
# Docker's seccomp profile, --network none) with a real engine: Debian's
# dockerd, started here in a private mount namespace (tests/docker-engine.sh)
# and stopped by its PID.  The checks are tests/container-suite.sh's.
. "$(dirname "$0")/docker-engine.sh"
docker_unshare "$@"
. "$(dirname "$0")/lib.sh"
needs root dockerd
docker_start
CE_NAME=docker
ce() { "$DOCKER" "$@"; }
ce_own() { :; }
. "$T_TOP/tests/container-suite.sh"
done_testing
