#!/bin/sh
# man pages: every EXAMPLES code block renders as a code block (never text
# that scdoc joins into one line) and runs, on a fixture tree, with the
# outcome the page promises.  Pages done so far: suidstrip(1).  The blocks
# are extracted from the scdoc sources (tests/man-examples.sh); an example
# that cannot run here is skipped by name, loudly, and its page says why.
# The whole file runs in a private mount namespace: --guard mounts vanish
# with it.
if [ -z "${MX_UNSHARED:-}" ] && [ "$(id -u)" -eq 0 ]; then
	MX_UNSHARED=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/man-examples.sh"
need_root
need_cmd scdoc
need_cmd man
need_cmd jq
need_cmd getcap
need_cmd setcap

# ---- the extractor itself, on a page written the old (wrong) way ----
cat >"$TMP/bad.1.scd" <<'PAGE'
bad(1)

# EXAMPLES

Indented text is one paragraph to scdoc:

	first command
	second command

A block with an escaped backslash and no name:

```
printf '%s\\n' a |
	cat
```

# SEE ALSO
PAGE
t_eq "extractor: one code block found" "$(man_examples "$TMP/bad.1.scd" "$TMP/bad")" "1"
t_eq "extractor: indented text outside a block is flagged" \
	"$(cat "$TMP/bad/unfenced")" "$(printf '\tfirst command\n\tsecond command')"
t_eq "extractor: scdoc escapes undone, unnamed block named by number" \
	"$(sh "$TMP/bad/1.sh") $(cat "$TMP/bad/1.name")" "a example 1"
man_rendered "$TMP/bad.1.scd" "$TMP/bad.txt"
t_grep "render: the indented lines were joined (what the check must catch)" \
	"^first command second command$" "$TMP/bad.txt"
printf 'first command\nsecond command\n' >"$TMP/bad/2.sh"
if man_example_rendered "$TMP/bad" 2 "$TMP/bad.txt" >/dev/null; then
	fail "render: joined lines are not a code block"
else
	pass "render: joined lines are not a code block"
fi

# ---- suidstrip(1) ----
PAGE=$T_TOP/man/suidstrip.1.scd
D=$TMP/ex-suidstrip
n=$(man_examples "$PAGE" "$D") || n=0
ok "suidstrip(1): has examples ($n)" test "$n" -ge 1
t_eq "suidstrip(1): no indented example outside a code block" "$(cat "$D/unfenced")" ""
man_rendered "$PAGE" "$TMP/suidstrip.txt"

# A fixture tree in place of /srv/sbx/docker, on a tmpfs of our own.
F=$TMP/fx
mkdir -p "$F"
mount -t tmpfs -o mode=755 tmpfs "$F" || skip_all "cannot mount tmpfs"
at_exit "umount -l '$F' 2>/dev/null"
R=$F/srv/sbx/docker
SED="s|/srv/sbx/docker|$R|g"
plant() {
	umount "$R" 2>/dev/null
	rm -rf "$F/srv" "$F/elsewhere"
	mkdir -p "$R/w/sub" "$F/elsewhere"
	: >"$R/w/su"; chmod 4755 "$R/w/su"
	: >"$R/w/sub/sg"; chmod 2755 "$R/w/sub/sg"
	: >"$R/w/cap"; setcap cap_net_raw+ep "$R/w/cap"
	: >"$R/w/plain"; chmod 644 "$R/w/plain"
	: >"$F/elsewhere/x"; chmod 4755 "$F/elsewhere/x"
}
# "docker inspect build1": a stand-in printing what Docker would, one bind
# mount under the root and one outside it.
mkdir -p "$TMP/shim"
cat >"$TMP/inspect.json" <<EOF
[{"Name":"/build1","Mounts":[
  {"Type":"bind","Source":"$R/w","Destination":"/w","RW":true},
  {"Type":"bind","Source":"$F/elsewhere","Destination":"/e","RW":true}]}]
EOF
cat >"$TMP/shim/docker" <<EOF
#!/bin/sh
[ "\$*" = "inspect build1" ] || { echo "docker stand-in: only 'docker inspect build1'" >&2; exit 125; }
exec cat '$TMP/inspect.json'
EOF
chmod 755 "$TMP/shim/docker"
diag "suidstrip(1): 'docker inspect build1' is answered by a stand-in (saved JSON)"

mode() { stat -c %a "$R/w/$1"; }
ran=0
i=1
while [ "$i" -le "$n" ]; do
	name=$(cat "$D/$i.name")
	ok "suidstrip(1) '$name': rendered as a code block" \
		man_example_rendered "$D" "$i" "$TMP/suidstrip.txt"
	plant
	man_example_script "$D" "$i" "$SED" >"$TMP/ex.sh"
	run() { t_exit "$1" "suidstrip(1) '$name': runs, exit $1" \
		env PATH="$TMP/shim:$PATH" sh "$TMP/ex.sh"; ran=$((ran + 1)); }
	case $name in
	"teardown: strip a stopped container's mounts under the sandbox root")
		run 0
		t_eq "  the bind mount under the root is stripped" \
			"$(mode su) $(mode sub/sg) $(getcap -r "$R/w")" "755 755 "
		t_eq "  the one outside is left alone" "$(stat -c %a "$F/elsewhere/x")" "4755"
		t_grep "  and reported" "elsewhere: skipped: outside every --within root" "$ERR"
		;;
	"preview: what would change, changing nothing")
		run 0
		t_grep "  lists the setuid file" "^would strip: $R/w/su: mode 04755 -> 00755$" "$OUT"
		t_grep "  lists the capability" "^would strip: $R/w/cap: .*capability cap_net_raw=ep" "$OUT"
		t_eq "  changes nothing" "$(mode su) $(mode sub/sg) $(getcap "$R/w/cap" | wc -l)" \
			"4755 2755 1"
		;;
	"chown: give root-owned files back, strip, list what was chowned")
		run 0
		t_eq "  prints only chowned records, one per root-owned entry" \
			"$(jq -r .action "$OUT" | sort | uniq -c | tr -s ' ')" " 6 chowned"
		t_eq "  the files are the user's" "$(stat -c %u:%g "$R/w/su" "$R/w/sub/sg" | sort -u)" \
			"1000:1000"
		t_eq "  and stripped" "$(mode su) $(mode sub/sg) $(getcap -r "$R/w")" "755 755 "
		;;
	"guard and audit: nosuid,nodev on the root, then list what is privileged")
		run 1
		t_grep "  the guard is in place" "^guard: $R: in place \(nosuid,nodev\)$" "$OUT"
		t_grep "  the audit lists the setuid file" "^privileged: $R/w/su: mode 04755$" "$OUT"
		t_eq "  findmnt agrees: nosuid and nodev" \
			"$(findmnt -n -o OPTIONS "$R" | tr ',' '\n' | grep -c -E '^(nosuid|nodev)$')" "2"
		t_eq "  the audit changed nothing" "$(mode su) $(mode sub/sg)" "4755 2755"
		umount "$R"
		;;
	"teardown script: a target already removed is not a failure")
		run 0
		t_eq "  the existing target is stripped" "$(mode su) $(getcap -r "$R/w")" "755 "
		t_grep "  the removed one gets a one-line note" \
			"^suidstrip: $R/removed: skipped: missing \(not recreated\)$" "$ERR"
		;;
	"manual recipe: setuid/setgid bits with find, capabilities listed by getcap")
		run 0
		t_eq "  find stripped the bits" "$(mode su) $(mode sub/sg)" "755 755"
		t_grep "  getcap lists the capability left for setcap -r" "^$R/w/cap (= )?cap_net_raw[=+]ep" "$OUT"
		;;
	*)
		fail "suidstrip(1) '$name': no expected outcome in tests/t-man-examples.sh"
		;;
	esac
	i=$((i + 1))
done
t_eq "suidstrip(1): every example ran" "$ran" "$n"
diag "man page examples executed: $ran"

done_testing
