#!/bin/sh
# tests/vm/kernels.sh: fetch Debian's own kernels for the VM tier, without
# installing them on the host: `apt-get download` of the newest
# linux-image-amd64 dependency of each wanted series, unpacked with
# `dpkg-deb -x`.  The 6.12 series comes from CODENAME-backports, whose apt
# entry is derived from the configured one (contrib/apt-sources.sh).
#
# usage: tests/vm/kernels.sh DIR SERIES...     (e.g. .build/vm 6.1 6.12)
#
# Result per series: DIR/linux-SERIES/{vmlinuz,config,version}.  Cached: a
# series whose vmlinuz exists is not fetched again.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: kernels.sh DIR SERIES..." >&2; exit 2; }
dir=$1; shift
mkdir -p "$dir"
say() { echo "vm-kernels: $*" >&2; }

need_fetch=
for s in "$@"; do
	[ -s "$dir/linux-$s/vmlinuz" ] || need_fetch="$need_fetch $s"
done
[ -n "$need_fetch" ] || { say "cached: $*"; exit 0; }

if [ "$(id -u)" -eq 0 ]; then
	sh "$top/contrib/apt-sources.sh" backports
fi

for s in $need_fetch; do
	# Newest metapackage version whose image is of series $s.
	pkg=$(apt-cache show linux-image-amd64 2>/dev/null | awk -v s="$s" '
		/^Version:/ { v = $2 }
		/^Depends:/ {
			n = split($0, w, /[ ,]+/)
			for (i = 2; i <= n; i++)
				if (index(w[i], "linux-image-" s ".") == 1 ||
				    index(w[i], "linux-image-" s "+") == 1) {
					sub(/^\(= */, "", w[i + 2]); sub(/\)$/, "", w[i + 2])
					print v, w[i], w[i + 2]
				}
		}' | sort -V | tail -n 1)
	[ -n "$pkg" ] || { say "no linux-image-amd64 version depends on a $s kernel"; exit 1; }
	set -- $pkg
	name=$2; ver=$3
	k=$dir/linux-$s
	say "$s: $name=$ver"
	rm -rf "$k" "$dir/deb-$s"
	mkdir -p "$dir/deb-$s"
	(cd "$dir/deb-$s" && apt-get -o APT::Sandbox::User=root download "$name=$ver" >&2)
	deb=$(ls "$dir/deb-$s"/*.deb)
	mkdir -p "$k/root"
	dpkg-deb -x "$deb" "$k/root"
	vmlinuz=$(ls "$k"/root/boot/vmlinuz-*)
	cp "$vmlinuz" "$k/vmlinuz.tmp"
	cp "$k"/root/boot/config-* "$k/config"
	basename "$vmlinuz" | sed 's/^vmlinuz-//' >"$k/version"
	rm -rf "$k/root" "$dir/deb-$s"
	mv "$k/vmlinuz.tmp" "$k/vmlinuz"
	say "$s: $(cat "$k/version"), $(grep -E '^CONFIG_LSM=' "$k/config")"
done
