#!/bin/sh
# contrib/ci-job.sh on this host: a tiny C project built and tested under
# planenc | confexec, the journal verified and kept; a failing test, a
# write outside the project, an archive of the tools, a misplaced
# artifacts directory.  The mode the job picks must be the one the host
# can enforce (cgprobe).  tests/t-confexec-docker.sh runs the same job
# inside a container.
. "$(dirname "$0")/lib.sh"
needs cc make jq
JOB=$T_TOP/contrib/ci-job.sh

# The project: a program and its test.
P=$TMP/proj
mkdir -p "$P"
cat >"$P/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { puts("hello, ci"); return 0; }
EOF
printf '%s\n' 'hello: hello.c' '	$(CC) -O2 -o $@ hello.c' \
	'check: hello' '	test "$$(./hello)" = "hello, ci"' >"$P/Makefile"

# job NAME [VAR=VALUE...]: run the job on $P from $BIN, artifacts in
# $TMP/NAME.art, the tools installed in $TMP/NAME.pfx.
job() {
	_n=$1; shift
	env ARTIFACTS="$TMP/$_n.art" BORNE_PREFIX="$TMP/$_n.pfx" "$@" \
	    sh "$JOB" "${FROM:-$BIN}" "$P" >"$TMP/$_n.out" 2>"$TMP/$_n.err"
}
# records NAME: the journal as JSON lines
records() { journalchain show --json "$TMP/$1.art/runs.jnl" | jq -c .event; }

# What the host enforces decides the mode: root with a writable cgroup2
# can build every layer of the job's plan; otherwise it degrades.
want=degrade
if [ "$(id -u)" -eq 0 ] && host_can cgroup2,cgroup-kill,clone-into-cgroup,landlock,seccomp,no-new-privs,pidfd,execveat; then
	want=strict
fi

job ok; st=$?
t_eq "the job builds and tests the project (exit 0)" "$st" 0
[ "$st" -eq 0 ] || diag_file "$TMP/ok.err" 40
t_eq "it picks the mode the host enforces ($want)" \
	"$(cat "$TMP/ok.art/mode.txt" 2>/dev/null)" "$want"
t_grep "and says so" "^ci-job.sh: mode: $want\$" "$TMP/ok.err"
t_eq "the build ran in the project (its program is there)" \
	"$("$P/hello")" "hello, ci"
ok "the journal verifies" journalchain verify "$TMP/ok.art/runs.jnl"
t_eq "the journal has a start and an end per run" \
	"$(records ok | jq -r '.event' | tr '\n' ' ')" "start end start end "
t_eq "the runs are the build, then the tests" \
	"$(records ok | jq -r 'select(.event == "start") | .argv | join(" ")' | tr '\n' ';')" \
	"sh -c make;sh -c make check;"
t_eq "both ended with status 0" \
	"$(records ok | jq -r 'select(.event == "end") | .exit' | tr '\n' ' ')" "0 0 "
t_eq "in the mode chosen" \
	"$(records ok | jq -r 'select(.event == "start") | .mode' | sort -u)" "$want"
if [ "$want" = strict ]; then
	t_eq "nothing degraded" \
		"$(records ok | jq -c 'select(.event == "start") | .degraded' | sort -u)" "[]"
else
	t_grep "a degraded job says so" "DEGRADED" "$TMP/ok.err"
fi
t_grep "a readable copy is kept, a line a record" \
	'^ *[0-9]+  [0-9T:-]{19}Z +[0-9]+  end +.*  exit=0 denials=' "$TMP/ok.art/runs.txt"
ok "the tools were installed where asked" test -x "$TMP/ok.pfx/bin/confexec"

# A failing test fails the job with its status; the journal is still
# verified and kept.
sed 's/hello, ci/hello, world/' "$P/Makefile" >"$TMP/Makefile.bad"
cp "$P/Makefile" "$TMP/Makefile.good"
cp "$TMP/Makefile.bad" "$P/Makefile"
job bad; st=$?
cp "$TMP/Makefile.good" "$P/Makefile"
t_eq "a failing test fails the job with make's status (2)" "$st" 2
t_eq "its end record says so" \
	"$(records bad | jq -r 'select(.event == "end") | .exit' | tr '\n' ' ')" "0 2 "
ok "and the journal verifies" journalchain verify "$TMP/bad.art/runs.jnl"

# The build may write its project, nothing else.
mkdir -p "$TMP/outside"
job out BUILD_CMD="echo x >$TMP/outside/f"; st=$?
t_eq "a build writing outside the project fails" "$st" 2
# With the run's mount view what no rule names is not there (the shell
# says "Directory nonexistent"); without it Landlock refuses (EACCES).
if [ "$want" = strict ]; then why="Directory nonexistent"; else why="Permission denied"; fi
t_grep "refused by the boundary ($why)" "cannot create.*: $why" "$TMP/out.err"
ok "nothing was written there" test ! -e "$TMP/outside/f"
t_eq "the tests did not run after a failed build" \
	"$(records out | jq -r 'select(.event == "start")' | jq -s length)" 1

# The tools from an archive (a release tarball's shape: bin/...).
mkdir -p "$TMP/rel/bin"
cp "$BIN/planenc" "$BIN/confexec" "$BIN/journalchain" "$BIN/cgprobe" "$TMP/rel/bin/"
tar -czf "$TMP/rel.tar.gz" -C "$TMP/rel" bin
FROM=$TMP/rel.tar.gz job tar; st=$?
t_eq "the tools install from a .tar.gz" "$st" 0
[ "$st" -eq 0 ] || diag_file "$TMP/tar.err" 20
ok "and run the job" journalchain verify "$TMP/tar.art/runs.jnl"

# A step that runs confexec itself (nested, --degrade), given the grants
# the job's comments name in BORNE_PLAN_OPTS; without --unix it is
# refused, saying so.  (ASAN_OPTIONS: the asan build's inner confexec.)
NX=$TMP/nest.pfx/bin
NCMD="$NX/planenc --degrade --preset sys --rw $P -- /bin/sh -c 'echo nested >$P/nested.out' | $NX/confexec --no-image-cache"
NOPTS="--rox $NX --setenv ASAN_OPTIONS=detect_leaks=0:handle_segv=0"
job nest BUILD_CMD=true TEST_CMD="$NCMD" BORNE_PLAN_OPTS="--unix --ro /proc $NOPTS"
st=$?
t_eq "a step running a nested confexec, with --unix --ro /proc: exit 0" "$st" 0
[ "$st" -eq 0 ] || diag_file "$TMP/nest.err" 20
t_eq "its inner payload ran" "$(cat "$P/nested.out" 2>/dev/null)" nested
rm -f "$P/nested.out"
job nest BUILD_CMD=true TEST_CMD="$NCMD" BORNE_PLAN_OPTS="--ro /proc $NOPTS"
t_eq "without --unix: the step fails with the inner refusal (125)" "$?" 125
t_grep "naming the grant" \
	'^confexec: refusing: listener channel: .*outer plan to grant --unix' \
	"$TMP/nest.err"
ok "its inner payload did not run" test ! -e "$P/nested.out"

# The journal must be out of the build's reach.
t_exit 2 "artifacts inside the project are refused" \
	env ARTIFACTS="$P/art" BORNE_PREFIX="$TMP/x.pfx" sh "$JOB" "$BIN" "$P"
t_grep "saying why" "is inside WORKDIR" "$ERR"
ok "before anything ran" test ! -e "$P/art/runs.jnl"

done_testing
