#!/bin/sh
# confexec --registry FILE: a program runs only if the SHA-256 of the
# bytes confexec sealed is listed (sha256sum format); a pinned script and
# its interpreter both.  A refusal (126) names the program, its hash and
# the line that would admit it, and the program does not run (a file it
# would make is not there).  The registry is refused when others may
# write it or its directory, or when a rw rule of the plan reaches it;
# malformed, it refuses every run; the start record names it and its
# SHA-256; --canary runs under it.
. "$(dirname "$0")/lib.sh"

needs root landlock=1 cgroup2 jq sha256sum

J=$TMP/run.jnl
IO=$TMP/io
RD=$TMP/reg
mkdir -p "$IO" "$RD"
chmod 755 "$TMP"
R=$RD/programs
sha256sum /bin/echo >"$R"
chmod 644 "$R"

# cx REGISTRY PLANENC-ARGS...: the plan run under REGISTRY, journaled.
cx() {
	reg=$1; shift
	"$PE" --preset sys "$@" >"$TMP/plan" || return 99
	"$CX" --journal "$J" --registry "$reg" <"$TMP/plan"
}
# start record of the last run
last_start() { grep '"event":"start"' "$J" | tail -n 1; }

# ---- admitted, refused ----
t_exit 0 "a listed program runs" cx "$R" -- /bin/echo listed
t_eq "  its output" "$(cat "$OUT")" "listed"
t_eq "  the start record names the registry (its real path)" \
    "$(last_start | jq -r .event.registry.path)" "$R"
t_eq "  and its SHA-256" "$(last_start | jq -r .event.registry.sha256)" \
    "$(sha256sum "$R" | cut -d' ' -f1)"
t_eq "  and its entries" "$(last_start | jq -r .event.registry.entries)" 1

TOUCH=$(command -v touch)
TH=$(sha256sum "$TOUCH" | cut -d' ' -f1)
t_exit 126 "a program not listed is refused: 126" cx "$R" --rw "$IO" -- "$TOUCH" "$IO/ran"
cp "$ERR" "$TMP/refusal"
t_grep "  names the program and its hash" \
    "^confexec: program $TOUCH is not admitted by the registry $R: its SHA-256 is $TH; " "$TMP/refusal"
t_grep "  and the line that would admit it" "the line that would admit it: $TH  $TOUCH\$" "$TMP/refusal"
ok "  it did not run (no file made)" test ! -e "$IO/ran"
t_eq "  the end record says it, exit 126" \
    "$(tail -n 1 "$J" | jq -r '.event.exit')" 126
sed -n 's/.*the line that would admit it: //p' "$TMP/refusal" >>"$R"
t_exit 0 "the line it named, appended, admits it" cx "$R" --rw "$IO" -- "$TOUCH" "$IO/ran"
ok "  it ran" test -e "$IO/ran"
t_eq "  as sha256sum -c reads it" "$(cd / && sha256sum -c "$R" | grep -c ': OK$')" 2

# the bytes sealed, not the name: a copy under another name is admitted,
# a changed program under the listed name is not
cp /bin/echo "$IO/echo-copy"
t_exit 0 "another file with listed bytes runs" cx "$R" --rox "$IO" -- "$IO/echo-copy" copy
cp /bin/true "$IO/echo"
sha256sum "$IO/echo" >/dev/null
printf '%s  %s\n' "$(sha256sum /bin/echo | cut -d' ' -f1)" "$IO/echo" >"$TMP/byname"
chmod 644 "$TMP/byname"
t_exit 126 "a listed name with other bytes is refused" cx "$TMP/byname" --rox "$IO" -- "$IO/echo"

# ---- a pinned script and its interpreter ----
printf '#!/bin/sh\necho script ran\n' >"$IO/s.sh"
chmod 755 "$IO/s.sh"
SH=$(sha256sum "$IO/s.sh" | cut -d' ' -f1)
IH=$(sha256sum /bin/sh | cut -d' ' -f1)
RS=$RD/scripts
: >"$RS"; chmod 644 "$RS"
t_exit 126 "a pinned script: neither listed, both named" cx "$RS" --rox "$IO" --sha256 "$SH" -- "$IO/s.sh"
t_grep "  the interpreter" "interpreter /bin/sh is not admitted by the registry $RS: its SHA-256 is $IH; the line that would admit it: $IH  /bin/sh" "$ERR"
t_grep "  the script" "script $IO/s\.sh is not admitted by the registry $RS: its SHA-256 is $SH; the line that would admit it: $SH  $IO/s\.sh" "$ERR"
sha256sum /bin/sh >>"$RS"
t_exit 126 "the interpreter listed, the script not: refused" cx "$RS" --rox "$IO" --sha256 "$SH" -- "$IO/s.sh"
t_nogrep "  only the script named" "interpreter" "$ERR"
t_grep "  the script named" "script $IO/s\.sh is not admitted" "$ERR"
: >"$RS"; sha256sum "$IO/s.sh" >>"$RS"
t_exit 126 "the script listed, the interpreter not: refused" cx "$RS" --rox "$IO" --sha256 "$SH" -- "$IO/s.sh"
t_grep "  the interpreter named" "interpreter /bin/sh is not admitted" "$ERR"
sha256sum /bin/sh >>"$RS"
t_exit 0 "both listed: it runs" cx "$RS" --rox "$IO" --sha256 "$SH" -- "$IO/s.sh"
t_eq "  its output" "$(cat "$OUT")" "script ran"

# ---- who may write the registry ----
for m in 664 646 666; do
	chmod "$m" "$R"
	t_exit 125 "a registry of mode $m refused" cx "$R" -- /bin/echo x
	t_grep "  others may write it" "registry $R: file $R has mode 0$m: others may write it: refused" "$ERR"
	t_eq "  nothing ran" "$(cat "$OUT")" ""
done
chmod 644 "$R"
chown 65534 "$R"
t_exit 125 "a registry owned by another user refused" cx "$R" -- /bin/echo x
t_grep "  names the owner" "file $R is owned by uid 65534, who may change it" "$ERR"
chown 0 "$R"
chmod 775 "$RD"
t_exit 125 "a registry in a directory others may write refused" cx "$R" -- /bin/echo x
t_grep "  names the directory" "directory $RD has mode 0775: others may replace what is in it" "$ERR"
chmod 1777 "$RD"
t_exit 0 "  a sticky one (as /tmp) is not" cx "$R" -- /bin/echo x
chmod 755 "$RD"
ln -s "$R" "$TMP/reglink"
t_exit 0 "a registry through a symbolic link: the file it names" cx "$TMP/reglink" -- /bin/echo x
t_eq "  the start record names the file read" "$(last_start | jq -r .event.registry.path)" "$R"
chmod 666 "$R"
t_exit 125 "  whose mode is checked" cx "$TMP/reglink" -- /bin/echo x
chmod 644 "$R"

ln "$R" "$IO/programs-link"
t_exit 125 "a registry with a second name (a hard link) refused" cx "$R" --rw "$IO" -- /bin/echo x
t_grep "  says so" "file $R has 2 links: another name of it could be written: refused" "$ERR"
rm "$IO/programs-link"

# ---- a rw rule that reaches it ----
t_exit 125 "a rw rule over its directory refused" cx "$R" --rw "$RD" -- /bin/echo x
t_grep "  names the rule" "registry $R: the payload may write a directory it is in \(rule rw $RD\) and could admit programs of its own" "$ERR"
t_exit 125 "a rw rule over a directory above refused" cx "$R" --rw "$TMP" -- /bin/echo x
t_grep "  names the rule" "\(rule rw $TMP\)" "$ERR"
t_exit 125 "a rw rule naming the file refused" cx "$R" --rw "$R" -- /bin/echo x
t_grep "  names it" "the payload may write it \(rule rw $R\)" "$ERR"
t_exit 125 "a rwx rule over it refused" cx "$R" --rwx "$RD" -- /bin/echo x
t_exit 0 "a rw rule beside it is not" cx "$R" --rw "$IO" -- /bin/echo x
t_exit 0 "nor a ro rule over it" cx "$R" --ro "$RD" -- /bin/echo x

# ---- malformed ----
M=$RD/bad
{ sha256sum /bin/echo; echo "abc  /bin/x"; } >"$M"; chmod 644 "$M"
t_exit 125 "a malformed line refuses the run" cx "$M" -- /bin/echo x
t_grep "  names it" "registry $M: line 2: not 64 hexadecimal digits first" "$ERR"
{ sha256sum /bin/echo | sed 's/  / /'; } >"$M"
t_exit 125 "one space (not sha256sum's two) refused" cx "$M" -- /bin/echo x
printf '%s' "$(sha256sum /bin/echo)" >"$M"
t_exit 125 "no newline at its end refused" cx "$M" -- /bin/echo x
: >"$M"
t_exit 126 "an empty registry admits nothing" cx "$M" -- /bin/echo x
{ sha256sum -b /bin/echo | tr a-f A-F | sed 's/ \*.*/ *\/bin\/echo/'; echo; } >"$M"
t_exit 0 "upper-case hex and binary mode (sha256sum -b) admit" cx "$M" -- /bin/echo x
head -c 1048577 /dev/zero | tr '\0' '\n' >"$M"
t_exit 125 "a registry over 1 MiB refused" cx "$M" -- /bin/echo x
t_exit 125 "a missing registry refused" cx "$RD/none" -- /bin/echo x
t_exit 125 "a directory as registry refused" cx "$RD" -- /bin/echo x

# ---- usage ----
t_exit 125 "--registry with --dry-run" "$CX" --registry "$R" --dry-run </dev/null
t_exit 125 "--registry with --reap" "$CX" --registry "$R" --reap </dev/null

# ---- --canary under the registry ----
# The probe program is confexec's own (as it is free of a pin): the run's
# boundary is what the canary tests, under the same registry checks.
"$PE" --preset sys -- /bin/true >"$TMP/cplan"
"$CX" --journal "$J" --registry "$R" --canary <"$TMP/cplan" >"$OUT" 2>"$ERR"
rc=$?
case $rc in
0|1) pass "--canary with --registry runs its probes (exit $rc)" ;;
*) fail "--canary with --registry runs its probes (exit $rc)"; diag_file "$ERR" ;;
esac
t_eq "  its start record names the registry" \
    "$(last_start | jq -r .event.registry.sha256)" "$(sha256sum "$R" | cut -d' ' -f1)"
t_grep "  and its canary record follows" '"event":"canary"' "$J"
"$PE" --preset sys --rw "$RD" -- /bin/true >"$TMP/cplan"
t_exit 125 "--canary: a rw rule over the registry is refused as in a run" \
    "$CX" --registry "$R" --canary <"$TMP/cplan"
t_grep "  names the rule" "could admit programs of its own" "$ERR"
done_testing
