#!/bin/sh
# apt-sources.sh: add the extra apt entries that the static and VM builds
# need, derived at run time from the Debian entries this machine already
# has (no archive host is written anywhere: the new entries copy the URIs of
# the existing ones).  Idempotent; runs `apt-get update` only when it added
# an entry.  Needs root.
#
# usage: contrib/apt-sources.sh src        deb-src twins of the deb entries
#                                          (for apt-get source), unless some
#                                          deb-src entry exists already
#        contrib/apt-sources.sh backports  a CODENAME-backports entry (binary
#                                          packages) beside CODENAME's
set -eu

dir=/etc/apt/sources.list.d
say() { echo "apt-sources.sh: $*" >&2; }
apt_update() { apt-get -o DPkg::Lock::Timeout=600 update >&2; }

# The apt entry files apt reads (deb822 .sources and one-line .list).
sources_files() {
	for f in /etc/apt/sources.list "$dir"/*.list "$dir"/*.sources; do
		[ -f "$f" ] && echo "$f"
	done
	return 0
}

codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || { say "no VERSION_CODENAME in /etc/os-release"; exit 1; }

# deb822 stanzas of FILE whose Types include "deb", rewritten by the awk
# program given as $2 (which sees the stanza in `s`, one field a line).
stanzas() {
	awk -v RS= -v ORS='\n\n' -v code="$codename" "$2" "$1"
}

case ${1:-} in
src)
	if sources_files | xargs grep -Eqs '^[[:space:]]*(deb-src([[:space:]]|$)|Types:.*deb-src)'; then
		say "a deb-src entry exists already"
		exit 0
	fi
	out=$dir/borne-deb-src.sources
	outl=$dir/borne-deb-src.list
	tmp=$(mktemp)
	for f in $(sources_files); do
		case $f in
		*.sources)
			stanzas "$f" '/(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ {
				n = split($0, l, "\n"); s = ""
				for (i = 1; i <= n; i++) {
					if (l[i] ~ /^Types:/) l[i] = "Types: deb-src"
					s = s l[i] "\n"
				}
				printf "%s\n", s
			}' >>"$tmp" ;;
		*) ;;
		esac
	done
	tmpl=$(mktemp)
	for f in $(sources_files); do
		case $f in
		*.list) sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$tmpl" ;;
		*) ;;
		esac
	done
	[ -s "$tmp" ] || [ -s "$tmpl" ] || {
		say "no deb entry to derive a deb-src entry from"
		rm -f "$tmp" "$tmpl"; exit 1; }
	if [ -s "$tmp" ]; then
		say "writing $out (deb-src twins of the deb stanzas)"
		{ echo "# Written by borne's contrib/apt-sources.sh: deb-src twins of the"
		  echo "# deb entries configured here, for apt-get source."
		  cat "$tmp"; } >"$out"
	fi
	if [ -s "$tmpl" ]; then
		say "writing $outl (deb-src twins of the deb lines)"
		{ echo "# Written by borne's contrib/apt-sources.sh."; cat "$tmpl"; } >"$outl"
	fi
	rm -f "$tmp" "$tmpl"
	apt_update
	;;
backports)
	if sources_files | xargs grep -Eqs "(^|[[:space:]])$codename-backports([[:space:]]|\$)"; then
		say "a $codename-backports entry exists already"
		exit 0
	fi
	out=$dir/borne-backports.sources
	tmp=$(mktemp)
	for f in $(sources_files); do
		case $f in
		*.sources)
			# The stanza that carries the plain release suite.
			stanzas "$f" '{
				n = split($0, l, "\n"); s = ""; hit = 0; deb = 0
				for (i = 1; i <= n; i++) {
					if (l[i] ~ /^Types:/ && l[i] ~ /[ \t]deb([ \t]|$)/) deb = 1
					if (l[i] ~ /^Suites:/) {
						m = split(l[i], w, /[ \t]+/)
						for (j = 2; j <= m; j++) if (w[j] == code) hit = 1
						l[i] = "Suites: " code "-backports"
					}
					if (l[i] ~ /^Types:/) l[i] = "Types: deb"
					s = s l[i] "\n"
				}
				if (hit && deb && !done) { printf "%s\n", s; done = 1 }
			}' >>"$tmp" ;;
		*)
			awk -v code="$codename" '$1 == "deb" && $3 == code && !done {
				print "deb " $2 " " code "-backports main"; done = 1 }' "$f" |
			    sed 's/^/# one-line: /' >>"$tmp" ;;
		esac
	done
	if grep -q '^# one-line: ' "$tmp" && ! grep -q '^Types:' "$tmp"; then
		out=$dir/borne-backports.list
		sed -n 's/^# one-line: //p' "$tmp" | head -n 1 >"$tmp.l"
		mv "$tmp.l" "$tmp"
	else
		sed -i '/^# one-line: /d' "$tmp"
		# Keep only the first stanza.
		awk -v RS= -v ORS='\n\n' 'NR == 1' "$tmp" >"$tmp.s"
		mv "$tmp.s" "$tmp"
	fi
	[ -s "$tmp" ] || { say "no $codename entry to derive $codename-backports from"
		rm -f "$tmp"; exit 1; }
	say "writing $out ($codename-backports, from the $codename entry)"
	{ echo "# Written by borne's contrib/apt-sources.sh: $codename-backports,"
	  echo "# derived from the $codename entry configured here."
	  cat "$tmp"; } >"$out"
	rm -f "$tmp"
	apt_update
	;;
*)
	echo "usage: apt-sources.sh src|backports" >&2
	exit 2 ;;
esac
