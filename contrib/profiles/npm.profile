# planenc --profile npm: npm, npx and node tools in one project.  They are
# scripts (#!/usr/bin/env node): planenc makes node, found on the plan's
# PATH, the program.  Give the project on the command line, writable:
#   planenc --profile npm --rw "$PWD" -- npm ls | confexec
# npm --version and npm ls need nothing more.  What writes npm's cache
# (npm install, npm ci) needs it beneath a writable path (its default,
# the home directory's .npm, is the host's, not in the run), and the
# registry through the run's egress broker, read from npm's own
# configuration (the project's .npmrc included) by egress-for:
#   planenc --profile npm --rw "$PWD" \
#       --setenv npm_config_cache="$PWD/.npm-cache" \
#       $(/usr/local/share/borne/egress-for npm) -- npm install | confexec
# A registry behind a TLS-intercepting proxy also needs the proxy's CA
# (without it npm fails SELF_SIGNED_CERT_IN_CHAIN, and the run's broker
# says "TLS: the payload closed after the server's certificates"):
#   --ro /etc/ssl/proxy-ca.pem --setenv NODE_EXTRA_CA_CERTS=/etc/ssl/proxy-ca.pem
# Install scripts of packages run inside the same boundary.
--preset sys
--tmp
--setenv LANG=C.UTF-8
--setenv npm_config_update_notifier=false
--setenv npm_config_fund=false
--setenv npm_config_audit=false
--timeout 30m
