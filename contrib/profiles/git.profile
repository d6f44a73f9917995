# planenc --profile: git in one repository, no network.  Give the work
# tree on the command line, and an identity for commits:
#   planenc --profile git --rw "$PWD" --setenv HOME="$PWD" \
#       --setenv GIT_AUTHOR_NAME=ci --setenv GIT_AUTHOR_EMAIL=ci@example.org \
#       --setenv GIT_COMMITTER_NAME=ci \
#       --setenv GIT_COMMITTER_EMAIL=ci@example.org -- git commit -m msg
--preset sys
--tmp
--setenv PATH=/usr/local/bin:/usr/bin:/bin
--setenv LANG=C
--setenv GIT_CONFIG_NOSYSTEM=1
--setenv GIT_TERMINAL_PROMPT=0
--timeout 10m
