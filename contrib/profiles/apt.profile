# planenc --profile apt: apt-get update, and apt-get download, through the
# run's egress broker, which reaches only the servers this host's apt
# sources name (egress-for derives them).
# apt fetches as its sandbox user (_apt), which takes a capability no
# payload has: -o APT::Sandbox::User=root keeps apt as it is, already
# confined.  apt's partial directories and its auxfiles belong to _apt
# (mode 0700): a payload without capabilities cannot write them even as
# root.  Make them root's first, once, and again after apt has run
# outside (it gives them back to _apt):
#   mkdir -p /var/lib/apt/lists/auxfiles
#   chown root /var/lib/apt/lists/partial /var/lib/apt/lists/auxfiles \
#       /var/cache/apt/archives/partial
#   planenc --profile apt $(/usr/local/share/borne/egress-for apt) -- \
#       apt-get -o APT::Sandbox::User=root update | confexec
# apt-get download writes the package into the current directory:
#   planenc --profile apt --rw "$PWD" \
#       $(/usr/local/share/borne/egress-for apt) -- \
#       apt-get -o APT::Sandbox::User=root download hello | confexec
# Where the servers resolve to addresses the broker refuses by default
# (loopback, private or documentation ranges), the run says so and names
# the address to list as an IP literal (--egress ADDRESS:PORT).
# Installing packages writes the whole system: not this profile.
--preset sys
--tmp
--ro /var/lib/apt
--rw /var/lib/apt/lists
--rw /var/cache/apt
--ro /var/lib/dpkg
--setenv LANG=C
--timeout 30m
