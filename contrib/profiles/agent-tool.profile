# planenc --profile: one tool call of an agent (a shell command, its
# background jobs included), no network.  Give the workspace on the
# command line (--rwx if the tool builds and runs programs there):
#   planenc --profile agent-tool --rw "$PWD" -- \
#       bash -lc 'cmd > /dev/null &'
--preset sys
--tmp
--setenv PATH=/usr/local/bin:/usr/bin:/bin
--setenv LANG=C.UTF-8
--setenv TERM=dumb
--timeout 5m
