#!/bin/sh
# egress-for: the --egress lines planenc needs for a package manager, read
# from that package manager's own configuration on this host, so that a
# profile names no server and a plan names exactly the ones configured.
#
#   egress-for apt    every http(s) URI of the enabled deb and deb-src
#                     entries in /etc/apt/sources.list{,.d/*.list} and
#                     /etc/apt/sources.list.d/*.sources
#   egress-for npm    the registry of `npm config get registry`
#
# Prints one "--egress HOST:PORT" a line, each once, for
#   planenc --profile apt $(egress-for apt) -- apt-get ... update
# Exit 1 when nothing is configured, 2 on a usage error.  APT_ETC names
# another apt configuration directory than /etc/apt.
set -eu
A=${APT_ETC:-/etc/apt}

# host_port URL: HOST:PORT of an http or https URL (the scheme's port
# unless one is given), nothing for any other scheme.
host_port() {
	case $1 in
	http://*) rest=${1#http://}; port=80 ;;
	https://*) rest=${1#https://}; port=443 ;;
	*) return 0 ;;
	esac
	hp=${rest%%/*}
	hp=${hp##*@}	# user:password@ is not part of the destination
	case $hp in
	\[*\]:*) printf '%s\n' "$hp" ;;
	\[*\]) printf '%s:%s\n' "$hp" "$port" ;;
	*:*) printf '%s\n' "$hp" ;;
	*) printf '%s:%s\n' "$hp" "$port" ;;
	esac
}

apt_uris() {
	for f in "$A/sources.list" "$A"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [options] URI suite [component...]
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
		    awk '$1 == "deb" || $1 == "deb-src" { print $2 }'
	done
	for f in "$A"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# deb822 stanzas: Types, URIs (several), Enabled.
		awk '
		function flush() {
			if (deb && enabled) for (i = 1; i <= n; i++) print u[i]
			deb = 0; enabled = 1; n = 0
		}
		BEGIN { enabled = 1 }
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		tolower($1) == "types:" { for (i = 2; i <= NF; i++)
			if ($i == "deb" || $i == "deb-src") deb = 1 }
		tolower($1) == "uris:" { for (i = 2; i <= NF; i++) u[++n] = $i }
		tolower($1) == "enabled:" { enabled = tolower($2) != "no" }
		END { flush() }' "$f"
	done
}

case ${1:-} in
apt) urls=$(apt_uris) ;;
npm)
	command -v npm >/dev/null 2>&1 ||
	    { echo "egress-for: npm: not installed" >&2; exit 1; }
	urls=$(npm config get registry) ;;
*) echo "usage: egress-for apt|npm" >&2; exit 2 ;;
esac
out=$(for u in $urls; do host_port "$u"; done | awk '!seen[$0]++')
[ -n "$out" ] || { echo "egress-for: $1: no http or https server configured" >&2; exit 1; }
printf '%s\n' "$out" | sed 's/^/--egress /'
