# planenc --profile npm: npm in one project, its registry reached
# through the run's egress broker only (egress-for reads it from npm's
# own configuration).  Give the project, and a HOME for npm's cache:
#   planenc --profile npm --rw "$PWD" --setenv HOME="$PWD/.home" \
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
