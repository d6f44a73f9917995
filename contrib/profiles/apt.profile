# planenc --profile apt: apt-get update (and downloads into apt's cache)
# through the run's egress broker, which reaches only the servers this
# host's apt sources name (egress-for derives them):
#   planenc --profile apt $(/usr/local/share/borne/egress-for apt) -- \
#       apt-get -o APT::Sandbox::User=root update
# apt downloads as its sandbox user (_apt), which takes a capability the
# payload does not have (setgroups: Operation not permitted): tell apt
# to stay as it is, already confined, with -o APT::Sandbox::User=root.
# apt's partial directories belong to that sandbox user, and a payload
# without capabilities cannot write them even as root: make them root's
# once (apt run as root outside gives them back to its user):
#   chown root /var/lib/apt/lists/partial /var/cache/apt/archives/partial
# Where the servers resolve to addresses the broker refuses by default
# (loopback, private or documentation ranges), the run's end says so and
# names the address to list as an IP literal (--egress ADDRESS:PORT).
# Installing packages writes the whole system: not this profile.
--preset sys
--tmp
--rw /var/lib/apt/lists
--rw /var/cache/apt
--ro /var/lib/dpkg
--setenv LANG=C
--timeout 30m
