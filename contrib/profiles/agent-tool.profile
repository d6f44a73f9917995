# planenc --profile: one tool call of an agent (a shell command, its
# background jobs included), no network.  Give the workspace on the
# command line (--rwx if the tool builds and runs programs there):
#   planenc --profile agent-tool --rw "$PWD" -- \
#       bash -lc 'ls > listing.txt & wait' | confexec
# A tool that is a script (#!/usr/bin/env python3) runs as its
# interpreter, found on the PATH below, reading the script by its path:
# a script outside the workspace is granted read-only, by its absolute
# path (its directory instead when it imports modules beside it):
#   planenc --profile agent-tool --rw "$PWD" \
#       --ro /opt/tools/count.py -- /opt/tools/count.py src | confexec
--preset sys
--tmp
--setenv PATH=/usr/local/bin:/usr/bin:/bin
--setenv LANG=C.UTF-8
--setenv TERM=dumb
--timeout 5m
