# planenc --profile npm: npm, npx and node tools in one project.  They are
# scripts (#!/usr/bin/env node): planenc makes node, found on the plan's
# PATH, the program.  Give the project on the command line, writable:
#   planenc --profile npm --rw "$PWD" -- npm ls
# npm --version and npm ls need nothing more.  What writes npm's cache
# (npm install, npm ci) needs it beneath a writable path (its default,
# the home directory's .npm, is the host's, read-only in the run), and
# the registry through the run's egress broker, read from npm's own
# configuration by egress-for:
#   planenc --profile npm --rw "$PWD" \
#       --setenv npm_config_cache="$PWD/.npm-cache" \
#       $(/usr/local/share/borne/egress-for npm) -- npm ci
# A registry behind a TLS-inspecting proxy also needs its CA:
#   --env NODE_EXTRA_CA_CERTS --ro "$NODE_EXTRA_CA_CERTS"
# Install scripts of packages run inside the same boundary.
--preset sys
--tmp
--setenv LANG=C.UTF-8
--setenv npm_config_update_notifier=false
--setenv npm_config_fund=false
--setenv npm_config_audit=false
--timeout 30m
