# planenc --profile: git in one repository, no network.  Give the work
# tree on the command line, and an identity for commits (the host's
# ~/.gitconfig is not in the run):
#   planenc --profile git --rw "$PWD" --setenv HOME="$PWD" \
#       --setenv GIT_AUTHOR_NAME=ci --setenv GIT_AUTHOR_EMAIL=ci@example.org \
#       --setenv GIT_COMMITTER_NAME=ci \
#       --setenv GIT_COMMITTER_EMAIL=ci@example.org -- \
#       sh -c 'git init -q && git add -A && git commit -qm msg' | confexec
# A clone of a repository elsewhere on this host: that repository
# read-only, the clone made in the work tree:
#   planenc --profile git --rw "$PWD" --ro /srv/git/project.git \
#       --setenv HOME="$PWD" -- git clone -q /srv/git/project.git | confexec
# A script that runs git is the program: grant it too (--ro FILE), or
# keep it in the work tree.
--preset sys
--tmp
--setenv PATH=/usr/local/bin:/usr/bin:/bin
--setenv LANG=C
--setenv GIT_CONFIG_NOSYSTEM=1
--setenv GIT_TERMINAL_PROMPT=0
--timeout 10m
