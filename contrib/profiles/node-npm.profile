# planenc --profile: node and npm.  npm, npx and most node tools are
# scripts (#!/usr/bin/env node): planenc makes node, found on the plan's
# PATH, the program.  Give the project on the command line, writable:
#   planenc --profile node-npm.profile --rw "$PWD" -- npm ls
# npm --version and npm ls need nothing more.  What writes npm's cache
# (npm install, npm ci) needs it beneath a writable path (its default,
# the home directory's .npm, is the host's, read-only in the run), and
# the registry through the egress broker:
#   --setenv npm_config_cache="$PWD/.npm-cache" --egress registry.npmjs.org:443
--preset sys
--tmp
--setenv npm_config_update_notifier=false
--setenv npm_config_fund=false
--timeout 30m
