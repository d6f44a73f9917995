#!/bin/sh
# build-static-deps.sh: rebuild libseccomp, libcap, GMP, nettle (with
# hogweed) and jansson for
# musl, as static libraries only, from Debian's own source packages (with
# Debian's patches applied), so that `make static` can link fully static
# binaries.  Debian's *.a files are glibc builds and cannot be used.
#
# usage: contrib/build-static-deps.sh DIR
#
# Result: DIR/prefix/{include,lib,kinc} and DIR/prefix/.done.  Sources and
# build trees go to DIR/src, one log per step to DIR/log.  Nothing is redone
# when DIR/prefix/.done is newer than this script.  Needs root on a machine
# where the packages are missing or no deb-src entry is configured
# (contrib/install-deps.sh static, contrib/apt-sources.sh src).
#
# Choices:
#   gmp      libgmp.a only (no C++): hogweed's bignums.  GMP rather than
#            nettle's --enable-mini-gmp, which the nettle manual says is
#            slow and not side-channel silent: hogweed signs checkpoints
#            with an Ed25519 key (journalchain(1)).
#   nettle   libnettle.a and libhogweed.a (Ed25519 for signed notes).
#            --enable-fat: the x86_64 assembly is kept and the SHA-256
#            compression function is picked at run time (SHA-NI where the
#            CPU has it).
#   libcap   libcap.a only (no libpsx, no tools, no PAM module, no Go).
#   all      -O2, -isystem DIR/prefix/kinc for the kernel headers musl lacks.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
self=$top/contrib/build-static-deps.sh
[ $# -eq 1 ] || { echo "usage: build-static-deps.sh DIR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
prefix=$dir/prefix
src=$dir/src
logs=$dir/log
jobs=${JOBS:-2}

say() { echo "build-static-deps: $*" >&2; }

if [ -f "$prefix/.done" ] && [ "$prefix/.done" -nt "$self" ]; then
	say "up to date: $prefix"
	exit 0
fi

# run LOG CMD...: run CMD with its output in $logs/LOG; on failure show the
# tail of that log and stop.
run() {
	log=$logs/$1; shift
	say "  $* (log: $log)"
	if ! "$@" >>"$log" 2>&1; then
		say "FAILED: $*"
		tail -n 40 "$log" >&2
		exit 1
	fi
}

sh "$top/contrib/install-deps.sh" static
command -v musl-gcc >/dev/null || { say "musl-gcc missing"; exit 1; }
if [ "$(id -u)" -eq 0 ]; then
	sh "$top/contrib/apt-sources.sh" src
fi

rm -rf "$prefix" "$src" "$logs"
mkdir -p "$prefix/include" "$prefix/lib" "$prefix/kinc" "$src" "$logs"

# musl ships no kernel headers: point at the Debian ones (linux-libc-dev).
multi=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
say "kernel headers for musl-gcc: $prefix/kinc"
ln -s /usr/include/linux "$prefix/kinc/linux"
ln -s /usr/include/asm-generic "$prefix/kinc/asm-generic"
ln -s "/usr/include/$multi/asm" "$prefix/kinc/asm"
for h in linux asm-generic asm; do
	[ -e "$prefix/kinc/$h/" ] || { say "missing kernel headers: $prefix/kinc/$h"; exit 1; }
done

export CC=musl-gcc
export CFLAGS="-O2 -g -isystem $prefix/kinc"
export CPPFLAGS="-isystem $prefix/kinc -I$prefix/include"
export LDFLAGS="-L$prefix/lib"
export MAKEFLAGS=
unset MFLAGS MAKELEVEL 2>/dev/null || true

# Fetch and unpack the Debian source packages (Debian patches applied).
say "fetching Debian sources into $src"
cd "$src"
run fetch.log apt-get -o APT::Sandbox::User=root source --download-only \
    libseccomp libcap2 gmp nettle jansson
for d in *.dsc; do
	run unpack.log dpkg-source --no-check -x "$d"
done
srcdir() {
	for d in "$src/$1"-[0-9]*; do
		[ -d "$d" ] && { echo "$d"; return 0; }
	done
	say "no unpacked source for $1"; exit 1
}

# ---- libseccomp ----
d=$(srcdir libseccomp)
say "libseccomp: $(basename "$d")"
cd "$d"
# Debian's patch touches generated tables only; keep autotools asleep.
find . -name 'Makefile.in' -exec touch {} + ; touch configure
run libseccomp.log ./configure --prefix="$prefix" --disable-shared \
    --enable-static --disable-python
run libseccomp.log make -j"$jobs" -C src libseccomp.la
run libseccomp.log make -C src install-libLTLIBRARIES
run libseccomp.log make -C include install
cp libseccomp.pc "$prefix/lib/" 2>/dev/null || true

# ---- libcap ----
d=$(srcdir libcap2)
say "libcap: $(basename "$d")"
cd "$d"
capmk="CC=musl-gcc BUILD_CC=gcc lib=lib prefix=$prefix SHARED=no
    PTHREADS=no GOLANG=no PAM_CAP=no USE_GPERF=no"
run libcap.log make -j"$jobs" -C libcap $capmk COPTS="$CFLAGS" libcap.a
run libcap.log make -C libcap $capmk COPTS="$CFLAGS" install-static-cap

# ---- gmp ----
d=$(srcdir gmp)
say "gmp: $(basename "$d")"
cd "$d"
# Debian's source has no doc/ and patches configure.ac and Makefile.am to
# leave it out: regenerate, as Debian's own build does.
run gmp.log autoreconf -fi
run gmp.log ./configure --prefix="$prefix" --libdir="$prefix/lib" \
    --disable-shared --enable-static --disable-cxx
run gmp.log make -j"$jobs"
run gmp.log make install

# ---- nettle ----
d=$(srcdir nettle)
say "nettle: $(basename "$d")"
cd "$d"
# Debian's patch edits configure.ac: mark the generated files as newer so
# that make does not try to rerun autoconf/autoheader.
touch aclocal.m4; sleep 1; touch configure config.h.in; sleep 1; touch stamp-h.in
run nettle.log ./configure --prefix="$prefix" --libdir="$prefix/lib" \
    --disable-shared --enable-public-key --enable-fat \
    --disable-documentation --disable-openssl
run nettle.log make -j"$jobs" libnettle.a libhogweed.a
run nettle.log make install-headers
install -m 0644 libnettle.a "$prefix/lib/libnettle.a"
install -m 0644 libhogweed.a "$prefix/lib/libhogweed.a"
# Ed25519 must be there: hogweed built against the GMP above.
if ! nm "$prefix/lib/libhogweed.a" 2>/dev/null | grep -q ' T nettle_ed25519_sha512_sign'; then
	say "libhogweed.a has no Ed25519"; exit 1
fi
# SHA-NI must survive: the fat build selects it at run time.
if ! nm "$prefix/lib/libnettle.a" 2>/dev/null | grep -q 'sha256_compress.*sha_ni'; then
	say "libnettle.a has no SHA-NI sha256_compress variant"; exit 1
fi

# ---- jansson ----
d=$(srcdir jansson)
say "jansson: $(basename "$d")"
cd "$d"
run jansson.log autoreconf -fi
run jansson.log ./configure --prefix="$prefix" --libdir="$prefix/lib" \
    --disable-shared --enable-static
run jansson.log make -j"$jobs" -C src libjansson.la
run jansson.log make -C src install-libLTLIBRARIES install-includeHEADERS \
    install-nodist_includeHEADERS

# Only static archives: no libtool .la, no shared objects.
rm -f "$prefix"/lib/*.la "$prefix"/lib/*.so*
for l in seccomp cap gmp nettle hogweed jansson; do
	[ -f "$prefix/lib/lib$l.a" ] || { say "missing lib$l.a"; exit 1; }
done
for h in seccomp.h sys/capability.h gmp.h nettle/sha2.h nettle/eddsa.h \
    jansson.h jansson_config.h; do
	[ -f "$prefix/include/$h" ] || { say "missing $h"; exit 1; }
done
touch "$prefix/.done"
say "done: $(cd "$prefix/lib" && echo lib*.a)"
