#!/bin/sh
# tests/vm/run.sh: boot one of Debian's kernels (fetched by
# tests/vm/kernels.sh) in qemu (TCG) on a busybox initramfs holding the
# static binaries, the static test helpers, tests/vm/guest-tests.sh and the
# host suites and tools listed in tests/vm/guest.list, and turn what the
# guest prints into one TAP file per suite for the host's prove.
#
# usage: tests/vm/run.sh DIR SERIES       (e.g. .build/vm 6.1)
#
# Reads DIR/linux-SERIES/vmlinuz and .build/static/{bin,helpers}; writes
# DIR/initramfs.cpio.gz (shared by all kernels, rebuilt when an input is
# newer), DIR/linux-SERIES/{console.log,tap.log,summary} and
# DIR/linux-SERIES/tap/SUITE.tap, one per suite the guest runs on SERIES.
#
# Two kinds of failure are told apart:
# - infrastructure: the guest died before its first TAP line (qemu could
#   not start, the kernel panicked at boot, init died).  The boot is
#   retried once, and said so; a second one is reported as an
#   infrastructure failure in every suite's TAP ("Bail out!").
#   Single-threaded TCG (-accel tcg,thread=single) avoids the boot panic
#   seen under multi-threaded TCG on a loaded machine.
# - test: any TAP line came out.  Never retried: a suite that did not
#   finish, or exited non-zero without a failed test, gets a "Bail out!"
#   line, so prove fails.
# Exits non-zero only on a usage or setup error (no kernel, no static
# build, a listed tool missing on the host).
#
# Environment: VM_TIMEOUT (seconds, default 1800), VM_SMP (default 2),
# VM_MEM (default 768M), QEMU (default qemu-system-x86_64).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: run.sh DIR SERIES" >&2; exit 2; }
dir=$1 series=$2
k=$dir/linux-$series
static=$top/.build/static
list=$top/tests/vm/guest.list
tapdir=$k/tap
timeout=${VM_TIMEOUT:-1800}
say() { echo "vm-run[$series]: $*" >&2; }

[ -s "$k/vmlinuz" ] || { say "no kernel: $k/vmlinuz (tests/vm/kernels.sh)"; exit 1; }
[ -d "$static/bin" ] && [ -d "$static/helpers" ] ||
    { say "no static build in $static (make static)"; exit 1; }
busybox=$(command -v busybox || true)
if [ -z "$busybox" ] || ! file -L "$busybox" | grep -q 'statically linked'; then
	say "needs a statically linked busybox (busybox-static)"; exit 1
fi

# ---- what the guest runs (tests/vm/guest.list) ---------------------------
all_suites=$(awk '$1 == "suite" { print $2 }' "$list")
suites=$(awk -v s="$series" '$1 == "suite" {
	for (i = 3; i <= NF; i++) if ($i == s) print $2 }' "$list")
tools=
for t in $(awk '$1 == "tool" || $1 == "shell" { print $2 }' "$list"); do
	p=$(command -v "$t") ||
	    { say "tool $t (tests/vm/guest.list) not found on the host"; exit 1; }
	tools="$tools $(readlink -f "$p")"
done
# The TAP files the host expects: guest-tests first, then the suites.
expected="guest-tests"
for s in $suites; do n=${s##*/}; expected="$expected ${n%.sh}"; done

# ---- initramfs (one for every kernel: nothing in it is kernel-specific) --
initrd=$dir/initramfs.cpio.gz
inputs="$top/tests/vm/init $top/tests/vm/guest-tests.sh $top/tests/lib.sh \
    $top/tests/vm/run.sh $list $top/man/*.scd $top/contrib/profiles/* \
    $static/bin/* $static/helpers/* \
    $busybox $tools"
for s in $all_suites; do inputs="$inputs $top/$s"; done
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
	    "$stage/borne/tests/vm" "$stage/borne/man" "$stage/borne/tools" \
	    "$stage/borne/contrib/profiles" \
	    "$stage/dev" "$stage/proc" "$stage/sys" "$stage/tmp" "$stage/etc" \
	    "$stage/root"
	cp "$busybox" "$stage/bin/busybox"
	install -m 0755 "$top/tests/vm/init" "$stage/init"
	install -m 0755 "$top/tests/vm/guest-tests.sh" "$stage/borne/tests/vm/"
	install -m 0644 "$list" "$stage/borne/tests/vm/guest.list"
	install -m 0644 "$top/tests/lib.sh" "$stage/borne/tests/lib.sh"
	for s in $all_suites; do
		install -m 0755 "$top/$s" "$stage/borne/$s"
	done
	cp "$top"/man/*.scd "$stage/borne/man/"
	cp "$top"/contrib/profiles/* "$stage/borne/contrib/profiles/"
	# The build tree's share, beside bin as make fills it (planenc
	# --profile NAME from the build tree).
	mkdir -p "$stage/borne/share/borne/profiles"
	cp "$top"/contrib/profiles/* "$stage/borne/share/borne/profiles/"
	# Users and groups the suites name (id -un, setpriv --reuid 65534),
	# and empty subordinate id files (edited by the suites under a lock).
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
	    >"$stage/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
	: >"$stage/etc/subuid"
	: >"$stage/etc/subgid"
	for f in "$static"/bin/* "$static"/helpers/*; do
		case $f in *.d) continue ;; *) ;; esac
		[ -f "$f" ] && [ -x "$f" ] || continue
		file "$f" | grep -q 'statically linked' ||
		    { say "not static: $f"; exit 1; }
		d=bin
		case $f in "$static"/helpers/*) d=helpers ;; *) ;; esac
		strip --strip-debug -o "$stage/borne/$d/${f##*/}" "$f"
	done
	# Host tools with their shared libraries, at the paths ldd gives.
	for p in $tools; do
		cp "$p" "$stage/borne/tools/${p##*/}"
		for l in $(ldd "$p" | awk '{ for (i = 1; i <= NF; i++)
		    if ($i ~ /^\//) print $i }'); do
			[ -e "$stage$l" ] && continue
			mkdir -p "$stage${l%/*}"
			cp -L "$l" "$stage$l"
		done
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
rc=0 secs=0
boot() {
	rm -f "$console" "$raw"
	say "booting $(cat "$k/version" 2>/dev/null || echo "$series") (timeout ${timeout}s)"
	t0=$(date +%s)
	rc=0
	timeout "$timeout" "${QEMU:-qemu-system-x86_64}" \
	    -accel tcg,thread=single -cpu max \
	    -m "${VM_MEM:-768M}" -smp "${VM_SMP:-2}" -nodefaults -display none \
	    -no-reboot -monitor none \
	    -serial "file:$console" -serial "file:$raw" \
	    -kernel "$k/vmlinuz" -initrd "$initrd" -append "$append" \
	    </dev/null >"$k/qemu.log" 2>&1 || rc=$?
	secs=$(($(date +%s) - t0))
	touch "$raw"
	say "qemu exited $rc after ${secs}s"
}
# The guest printed a TAP line: from here on, a failure is the tests'.
started() { tr -d '\r' <"$raw" | grep -Eq '^(ok|not ok|1\.\.)'; }
why() {
	if [ "$rc" -eq 124 ]; then echo "timeout after ${secs}s"
	else echo "qemu exited $rc after ${secs}s"; fi
}

infra= retried=
boot
if ! started; then
	say "INFRASTRUCTURE FAILURE: the guest died before its first TAP line ($(why)); retrying once"
	tail -n 20 "$k/qemu.log" "$console" >&2 2>/dev/null || :
	mv "$console" "$k/console.1.log" 2>/dev/null || :
	boot
	if ! started; then
		infra="infrastructure failure twice: the guest died before its first TAP line ($(why)); kernel logs: $k/console.1.log, $console"
		say "INFRASTRUCTURE FAILURE again; not retried further"
		tail -n 20 "$k/qemu.log" "$console" >&2 2>/dev/null || :
	else
		retried="infrastructure failure on the first boot, retried once (kernel log $k/console.1.log)"
		say "the retry booted: the first failure was the infrastructure's"
	fi
fi

# ---- TAP for the host, one file per suite ---------------------------------
rm -rf "$tapdir"
mkdir -p "$tapdir"
tr -d '\r' <"$raw" | awk -v dir="$tapdir" -v why="$(why)" \
    -v console="$console" '
	/^BORNE-VM-BEGIN / { kernel = $2; next }
	/^BORNE-VM-SUITE-BEGIN / {
		name = $2; f = dir "/" name ".tap"; on = 1; bad = 0
		print "# guest kernel " kernel ", suite " name > f
		next
	}
	/^BORNE-VM-SUITE-END / {
		grc = substr($3, 4)
		if (grc != 0 && !bad)
			print "Bail out! " name " exited " grc \
			    " without a failed test; see " console > f
		else
			print "# " name " status " grc > f
		close(f); on = 0; next
	}
	/^BORNE-VM-END / { next }
	on { print > f; if ($0 ~ /^not ok/) bad = 1 }
	END {
		if (on)
			print "Bail out! guest died during " name " (" why \
			    "); kernel log: " console > f
	}'
for n in $expected; do
	f=$tapdir/$n.tap
	[ -s "$f" ] && continue
	if [ -n "$infra" ]; then
		echo "Bail out! $infra" >"$f"
	else
		echo "Bail out! $n never started in the guest ($(why)); kernel log: $console" >"$f"
	fi
done

# ---- counts per suite ------------------------------------------------------
: >"$k/summary"
[ -z "$retried" ] || echo "vm $series: $retried" >>"$k/summary"
[ -z "$infra" ] || echo "vm $series: $infra" >>"$k/summary"
for n in $expected; do
	awk -v s="$series" -v n="$n" '
		/^ok / { ok++; if ($0 ~ /# SKIP/) skip++ }
		/^not ok / { nok++ }
		/^1\.\./ { plan = $1 }
		/^Bail out!/ { bail = 1 }
		END {
			printf "vm %-5s %-18s %4d ok (%d skipped), %d not ok, plan %s%s\n",
			    s, n, ok, skip, nok, plan == "" ? "none" : plan,
			    bail ? ", BAIL OUT" : ""
		}' "$tapdir/$n.tap" >>"$k/summary"
done
cat "$k/summary" >&2
say "TAP in $tapdir"
