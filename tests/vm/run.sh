#!/bin/sh
# tests/vm/run.sh: boot one of Debian's kernels (fetched by
# tests/vm/kernels.sh) in qemu (TCG) on a busybox initramfs holding the
# static binaries, the static test helpers and tests/vm/guest-tests.sh, and
# turn what the guest prints into a TAP file for the host's prove.
#
# usage: tests/vm/run.sh DIR SERIES       (e.g. .build/vm 6.1)
#
# Reads DIR/linux-SERIES/vmlinuz and .build/static/{bin,helpers}; writes
# DIR/initramfs.cpio.gz (shared by all kernels, rebuilt when an input is
# newer), DIR/linux-SERIES/{console.log,tap.log} and DIR/SERIES.tap.  The
# TAP file holds the lines between the guest's begin and end markers; a
# missing end marker (timeout, panic, init died) or a non-zero guest status
# becomes a "Bail out!" / "not ok" line, so prove fails.  Exits non-zero
# only when the VM could not be started at all.
#
# Environment: VM_TIMEOUT (seconds, default 300), VM_SMP (default 2),
# VM_MEM (default 512M), QEMU (default qemu-system-x86_64).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: run.sh DIR SERIES" >&2; exit 2; }
dir=$1 series=$2
k=$dir/linux-$series
static=$top/.build/static
tap=$dir/$series.tap
timeout=${VM_TIMEOUT:-300}
say() { echo "vm-run[$series]: $*" >&2; }

[ -s "$k/vmlinuz" ] || { say "no kernel: $k/vmlinuz (tests/vm/kernels.sh)"; exit 1; }
[ -d "$static/bin" ] && [ -d "$static/helpers" ] ||
    { say "no static build in $static (make static)"; exit 1; }
busybox=$(command -v busybox || true)
if [ -z "$busybox" ] || ! file -L "$busybox" | grep -q 'statically linked'; then
	say "needs a statically linked busybox (busybox-static)"; exit 1
fi

# ---- initramfs (one for every kernel: nothing in it is kernel-specific) --
initrd=$dir/initramfs.cpio.gz
inputs="$top/tests/vm/init $top/tests/vm/guest-tests.sh $top/tests/lib.sh \
    $top/tests/vm/run.sh $static/bin/* $static/helpers/* $busybox"
fresh=yes
if [ -s "$initrd" ]; then
	for f in $inputs; do
		[ -d "$f" ] && continue
		[ "$f" -nt "$initrd" ] && { fresh=no; break; }
	done
else
	fresh=no
fi
if [ "$fresh" = no ]; then
	say "building $initrd"
	stage=$dir/initramfs.d
	rm -rf "$stage"
	mkdir -p "$stage/bin" "$stage/borne/bin" "$stage/borne/helpers" \
	    "$stage/borne/tests/vm" "$stage/dev" "$stage/proc" "$stage/sys" \
	    "$stage/tmp"
	cp "$busybox" "$stage/bin/busybox"
	install -m 0755 "$top/tests/vm/init" "$stage/init"
	install -m 0755 "$top/tests/vm/guest-tests.sh" "$stage/borne/tests/vm/"
	install -m 0644 "$top/tests/lib.sh" "$stage/borne/tests/lib.sh"
	for f in "$static"/bin/* "$static"/helpers/*; do
		case $f in *.d) continue ;; *) ;; esac
		[ -f "$f" ] && [ -x "$f" ] || continue
		file "$f" | grep -q 'statically linked' ||
		    { say "not static: $f"; exit 1; }
		d=bin
		case $f in "$static"/helpers/*) d=helpers ;; *) ;; esac
		strip --strip-debug -o "$stage/borne/$d/${f##*/}" "$f"
	done
	(cd "$stage" && find . | LC_ALL=C sort |
	    cpio -o -H newc --owner=0:0 --quiet) | gzip -1 >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$stage"
fi

# ---- boot ----------------------------------------------------------------
# Kernel command line: console on ttyS0 (the guest's TAP goes to ttyS1),
# panic/poweroff end qemu, x32 syscalls enabled (Debian builds them in but
# disabled) so the filter's x32 handling meets a kernel that runs them.
# No lsm=: both Debian kernels list landlock first in CONFIG_LSM (checked
# by kernels.sh, which prints it), and the guest asserts the ABI.
append="console=ttyS0 panic=-1 oops=panic loglevel=4 rdinit=/init \
syscall.x32=y borne.kernel=$series"
console=$k/console.log
raw=$k/tap.log
rm -f "$console" "$raw" "$tap"
say "booting $(cat "$k/version" 2>/dev/null || echo "$series") (timeout ${timeout}s)"
t0=$(date +%s)
rc=0
timeout "$timeout" "${QEMU:-qemu-system-x86_64}" -accel tcg -cpu max \
    -m "${VM_MEM:-512M}" -smp "${VM_SMP:-2}" -nodefaults -display none \
    -no-reboot -monitor none \
    -serial "file:$console" -serial "file:$raw" \
    -kernel "$k/vmlinuz" -initrd "$initrd" -append "$append" \
    </dev/null >"$k/qemu.log" 2>&1 || rc=$?
t1=$(date +%s)
say "qemu exited $rc after $((t1 - t0))s"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! [ -s "$raw" ]; then
	say "qemu failed:"; tail -n 20 "$k/qemu.log" >&2
	exit 1
fi

# ---- TAP for the host ----------------------------------------------------
tr -d '\r' <"$raw" | awk -v tap="$tap" -v secs=$((t1 - t0)) -v qrc="$rc" \
    -v console="$console" '
	/^BORNE-VM-BEGIN / { on = 1; print "# guest kernel " $2 > tap; next }
	/^BORNE-VM-END rc=/ {
		on = 0; end = 1; grc = substr($2, 4); next }
	on { print > tap; if ($0 ~ /^not ok/) bad = 1 }
	END {
		if (!end) {
			why = qrc == 124 ? "timeout" : "no end marker"
			print "Bail out! guest did not finish (" why ", qemu " \
			    qrc ", " secs "s); kernel log: " console > tap
		} else if (grc != 0 && !bad) {
			print "Bail out! guest tests exited " grc \
			    " without a failed test; see " console > tap
		} else {
			print "# guest status " grc ", " secs "s" > tap
		}
	}'
[ -s "$tap" ] || echo "Bail out! no output from the guest; kernel log: $console" >"$tap"
say "TAP in $tap"
