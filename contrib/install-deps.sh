#!/bin/sh
# install-deps.sh: install the Debian packages borne needs to build, test
# and benchmark.  Idempotent: only missing packages are installed, and each
# one is named before it is installed.  Needs root; as another user it only
# lists what is missing and exits 1 if anything is.
#
# usage: contrib/install-deps.sh [build|demo|check|static|vm|bench|all]
set -eu

set_build="gcc make pkgconf libseccomp-dev libcap-dev nettle-dev libjansson-dev \
	libmicrohttpd-dev scdoc"
# t-confexec-podman: rootless podman needs newuidmap (uidmap) and runs its
# pause process with catatonit, both only recommended by podman.
# t-jobs: the everyday jobs on loopback stand-ins: git, npm, tar, a
# self-signed certificate (openssl), an apt repository of a package built
# here (apt-ftparchive from apt-utils, dpkg-deb).
# t-journalchain-checkpoint: Go's reference implementation of signed
# notes and transparency logs (golang.org/x/mod/sumdb/note, sumdb/tlog)
# checks the checkpoints, roots and proofs, built offline in GOPATH mode.
set_check="$set_build clang libclang-rt-14-dev perl attr acl libcap2-bin jq strace util-linux socat curl python3 iproute2 e2fsprogs \
	bubblewrap docker.io busybox-static python3-pytest nodejs npm podman uidmap \
	catatonit golang-go golang-golang-x-mod-dev chromium git openssl apt-utils"
set_static="musl-tools musl-dev gperf m4 dpkg-dev autoconf automake libtool \
	linux-libc-dev file"
set_vm="qemu-system-x86 seabios busybox-static cpio gzip file binutils coreutils \
	jq strace util-linux"
# bench/confexec.sh: bwrap beside confexec, unshare for its scratch mount
# namespace, tar for its metadata group, chattr (e2fsprogs).
set_bench="hyperfine jq openssl coreutils findutils bubblewrap util-linux tar \
	e2fsprogs"

what=${1:-all}
case $what in
build)	pkgs=$set_build ;;
demo)	pkgs="$set_build libcap2-bin" ;;
check)	pkgs="$set_check $set_static $set_vm" ;;
static)	pkgs="$set_build $set_static" ;;
vm)	pkgs="$set_build $set_static $set_vm" ;;
bench)	pkgs="$set_check $set_bench" ;;
all)	pkgs="$set_check $set_static $set_vm $set_bench" ;;
*)	echo "install-deps.sh: unknown set: $what" >&2; exit 2 ;;
esac

# provided NAME: an installed package provides NAME (a nodejs built with
# npm provides npm, and conflicts with the npm package).
provided() {
	dpkg-query -W -f='${db:Status-Status} ${Provides}\n' 2>/dev/null |
	    awk -v p="$1" '$1 == "installed" { sub(/^installed /, "");
		n = split($0, v, /, */); for (i = 1; i <= n; i++) {
		sub(/ .*/, "", v[i]); if (v[i] == p) f = 1 } }
		END { exit !f }'
}

# Each package once (the sets overlap).
missing=
for p in $pkgs; do
	case " $missing " in *" $p "*) continue ;; esac
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$s" = installed ] || provided "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: missing Debian packages (run as root to install):$missing" >&2
	exit 1
fi
echo "install-deps.sh: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
# A fresh machine may have no package lists yet; refresh once if an install
# fails for want of them.
if ! apt_get install -y --no-install-recommends $missing >&2; then
	apt_get update >&2
	apt_get install -y --no-install-recommends $missing >&2
fi
