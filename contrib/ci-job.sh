#!/bin/sh
# ci-job.sh: a shell CI job that builds and tests a project inside borne's
# boundary and keeps a verified journal of what ran.
#
#   sh contrib/ci-job.sh BORNE WORKDIR
#
# BORNE is where the borne tools come from: a directory holding them (the
# static build, .build/static/bin after `make static`, or a bin/
# directory above them) or a tar archive with them in its top directory
# or in a bin/ directory (any compression tar(1) reads by itself).
# WORKDIR is the project's checkout, where the build runs.
#
# What it does, in order:
#   1. installs the tools into $BORNE_PREFIX/bin (they are the only thing
#      it needs of borne; static binaries need no library);
#   2. picks the strongest plan this machine enforces, by asking
#      confexec --dry-run (its own mode selection, the code behind
#      `cgprobe --require`): strict, else --degrade; a degraded plan is
#      said on stderr, and every layer it lacks is named again by
#      confexec at each run and in the journal;
#   3. runs $BUILD_CMD, then $TEST_CMD (unless the build failed), each as
#      `sh -c CMD` in WORKDIR under
#          planenc --preset sys --rwx WORKDIR --env PATH ... \
#            | confexec --journal "$ARTIFACTS/runs.jnl"
#      i.e. the system read-only, WORKDIR read-write-execute (a build runs
#      what it compiles), no socket at all, an empty environment but for
#      PATH, HOME (WORKDIR) and TMPDIR, $BORNE_TIMEOUT of wall clock, the
#      whole process tree killed at the end;
#   4. verifies the journal (journalchain verify) and leaves it, with a
#      readable copy (runs.txt) and the mode chosen (mode.txt), in
#      $ARTIFACTS for the CI system to keep.
#
# Exit status: the build's when it failed, else the tests', else 0;
# 125 when confexec refused or failed, or the journal does not verify;
# 2 for a usage error.
#
# What it needs: a POSIX sh with cp, chmod, mv, mktemp, tar(1) for an
# archive, and
# what the project's own commands need (a C project needs a compiler and
# make on the runner; inside a container image without them, give
# BUILD_CMD and TEST_CMD that the image can run).  Root, or a cgroup2
# directory delegated to the job's user, for the strict plan.  On a
# Debian runner (root, the whole machine) the strict plan is used; inside
# a default container (no cgroup it may write, no CAP_SYS_ADMIN for
# namespaces) only a degraded one can run: Landlock, seccomp,
# no_new_privs, dropped capabilities, closed descriptors, rlimits and the
# sealed program image still hold, while the cgroup and the pid, mount,
# IPC and network namespaces are missing, and say so.
#
# Variables (all optional):
#   ARTIFACTS      directory kept by the CI system; must not be inside
#                  WORKDIR, which the build may write (default
#                  ${TMPDIR:-/tmp}/borne-artifacts)
#   BORNE_PREFIX   where the tools are installed (default /usr/local)
#   BUILD_CMD      the build (default: make)
#   TEST_CMD       the tests (default: make check)
#   BORNE_MODE     auto (default), strict or degrade
#   BORNE_TIMEOUT  wall-clock limit of each run (default 30m)
#   BORNE_PLAN_OPTS more planenc options, split on blanks (e.g.
#                  "--rlimit nofile=1024 --ro /opt/sdk"); a step that
#                  runs confexec itself (a nested run, which needs
#                  --degrade) needs "--unix --ro /proc" and --rox of
#                  the tools (confexec(1), Without namespaces)
set -eu

prog=ci-job.sh
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
usage() { say "usage: $prog BORNE WORKDIR"; exit 2; }

[ $# -eq 2 ] || usage
from=$1
WORKDIR=$(cd "$2" && pwd -P) || usage
ARTIFACTS=${ARTIFACTS:-${TMPDIR:-/tmp}/borne-artifacts}
BORNE_PREFIX=${BORNE_PREFIX:-/usr/local}
BUILD_CMD=${BUILD_CMD:-make}
TEST_CMD=${TEST_CMD:-make check}
BORNE_MODE=${BORNE_MODE:-auto}
BORNE_TIMEOUT=${BORNE_TIMEOUT:-30m}
BORNE_PLAN_OPTS=${BORNE_PLAN_OPTS:-}
case $BORNE_MODE in auto|strict|degrade) ;; *) usage ;; esac

mkdir -p "$ARTIFACTS"
ARTIFACTS=$(cd "$ARTIFACTS" && pwd -P)
case $ARTIFACTS/ in
"$WORKDIR"/*)
	# The payload may write WORKDIR: it could replace the journal file
	# (a broken chain is detected, a journal swapped whole is not).
	say "ARTIFACTS ($ARTIFACTS) is inside WORKDIR ($WORKDIR): refusing"
	exit 2 ;;
esac
JNL=$ARTIFACTS/runs.jnl

# ---- 1. install the tools ----
tools="planenc confexec journalchain cgprobe"
if [ -f "$from" ]; then
	x=$(mktemp -d "${TMPDIR:-/tmp}/ci-job.XXXXXX")
	trap 'rm -rf "$x"' EXIT
	tar -xf "$from" -C "$x"
	from=$x
fi
[ -d "$from/bin" ] && [ -x "$from/bin/confexec" ] && from=$from/bin
mkdir -p "$BORNE_PREFIX/bin"
for t in $tools; do
	[ -x "$from/$t" ] || { say "no $t in $1"; exit 2; }
	# cp and chmod, not install(1): a busybox image may lack it; a new
	# name, then rename(2): a running copy is never overwritten.
	cp "$from/$t" "$BORNE_PREFIX/bin/.$t.new"
	chmod 755 "$BORNE_PREFIX/bin/.$t.new"
	mv -f "$BORNE_PREFIX/bin/.$t.new" "$BORNE_PREFIX/bin/$t"
done
B=$BORNE_PREFIX/bin
say "installed $tools into $B ($("$B/confexec" --version))"

# ---- 2. the strongest plan this machine enforces ----
# The rights every run gets; the program comes after "--".
set -- --preset sys --rwx "$WORKDIR" --env PATH --setenv "HOME=$WORKDIR" \
	--timeout "$BORNE_TIMEOUT"
# shellcheck disable=SC2086 # BORNE_PLAN_OPTS is split on purpose
[ -n "$BORNE_PLAN_OPTS" ] && set -- "$@" $BORNE_PLAN_OPTS
cd "$WORKDIR"
# dry PLAN-OPTIONS...: does confexec accept this plan here?  Its verdict
# on each layer goes to dry-run.json, and its lines on the missing ones
# (one each, with what would provide it) to dry-run.err.
dry() {
	"$B/planenc" "$@" -- sh -c : |
	    "$B/confexec" --dry-run >"$ARTIFACTS/dry-run.json" 2>"$ARTIFACTS/dry-run.err"
}
mode=
case $BORNE_MODE in
strict|auto)
	if dry "$@" --tmp; then
		mode=strict; set -- "$@" --tmp
	elif [ "$BORNE_MODE" = strict ]; then
		cat "$ARTIFACTS/dry-run.err" >&2
		say "BORNE_MODE=strict, and this machine cannot enforce every layer"
		exit 125
	else
		# Why strict mode is out of reach, in confexec's words.
		cat "$ARTIFACTS/dry-run.err" >&2
	fi ;;
esac
if [ -z "$mode" ]; then
	# Without a mount namespace, --tmp is a private directory that
	# confexec makes and removes, not a tmpfs (confexec(1)).
	set -- "$@" --degrade --tmp
	if ! dry "$@"; then
		cat "$ARTIFACTS/dry-run.err" >&2
		say "confexec refuses even a degraded plan here"
		exit 125
	fi
	mode=degrade
	say "DEGRADED: running with every layer this machine allows, not all" \
	    "of them; confexec names each missing layer below and in $JNL"
fi
echo "$mode" >"$ARTIFACTS/mode.txt"
say "mode: $mode"

# ---- 3. build, then test ----
# run PLAN-OPTIONS...: one confined run of `sh -c "$cmd"`; its status is
# the payload's (124 on timeout, 125 if confexec refused or failed).
run() {
	say "run: $cmd"
	"$B/planenc" "$@" -- sh -c "$cmd" | "$B/confexec" --journal "$JNL"
}
st=0
cmd=$BUILD_CMD
run "$@" || st=$?
if [ "$st" -eq 0 ]; then
	cmd=$TEST_CMD
	run "$@" || st=$?
fi

# ---- 4. the journal, verified, kept ----
if ! "$B/journalchain" verify "$JNL"; then
	say "the journal $JNL does not verify"
	exit 125
fi
"$B/journalchain" show "$JNL" >"$ARTIFACTS/runs.txt"
say "journal verified: $JNL (artifacts: $ARTIFACTS)"
[ "$st" -eq 0 ] || say "the job failed: exit $st"
exit "$st"
