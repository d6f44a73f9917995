#!/bin/sh
# journalchain's signed checkpoints: keygen, checkpoint, verify
# --checkpoint, prove, consistent.  The key files and their modes; a
# checkpoint verified; a journal truncated, extended, reordered or
# rewritten, caught against an older checkpoint, directly and through a
# consistency proof; and every note, root and proof checked by Go's
# reference packages (tests/tlogcheck, golang.org/x/mod/sumdb/note and
# sumdb/tlog), built here offline.
. "$(dirname "$0")/lib.sh"
need_cmd perl

cd "$TMP" || exit 1
J=$TMP/j
ZERO=$(printf '%064d' 0)

# events N M: the events {"i":N} to {"i":M}, one a line
events() { awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i <= b; i++) printf "{\"i\":%d}\n", i }'; }
# b64hex: base64 of the bytes whose hex is on stdin
b64hex() { perl -MMIME::Base64 -ne 'chomp; print encode_base64(pack("H*", $_))'; }
# line N FILE: line N of a note or journal
line() { sed -n "${1}p" "$2"; }

# ---- keygen ----
t_exit 0 "keygen" journalchain keygen example.org/host1/runs "$TMP/k"
t_eq "  nothing on stdout" "$(cat "$OUT")" ""
t_eq "  the signer key has mode 600" "$(stat -c %a "$TMP/k.key")" 600
t_eq "  the verifier key has mode 644" "$(stat -c %a "$TMP/k.pub")" 644
t_grep "  the signer key text: PRIVATE+KEY+NAME+HASH+KEY" \
    '^PRIVATE\+KEY\+example\.org/host1/runs\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$' "$TMP/k.key"
t_grep "  the verifier key text: NAME+HASH+KEY" \
    '^example\.org/host1/runs\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$' "$TMP/k.pub"
t_eq "  both name the same key hash" "$(cut -d+ -f4 "$TMP/k.key")" \
    "$(cut -d+ -f2 "$TMP/k.pub")"
t_eq "  the key bytes start with 0x01 (Ed25519)" \
    "$(cut -d+ -f3- "$TMP/k.pub" | base64 -d | head -c 1 | od -An -tx1 | tr -d ' ')" 01
# The key hash is SHA-256(name || "\n" || 0x01 || key), its first 4 bytes.
t_eq "  the key hash is SHA-256 of name, newline and key, cut to 4 bytes" \
    "$( { printf 'example.org/host1/runs\n'; cut -d+ -f3- "$TMP/k.pub" | base64 -d; } | sha256sum | cut -c1-8)" \
    "$(cut -d+ -f2 "$TMP/k.pub")"
cp "$TMP/k.key" "$TMP/k.key.orig"
t_exit 1 "keygen over an existing key refused" journalchain keygen other "$TMP/k"
ok "  the key is unchanged" cmp "$TMP/k.key" "$TMP/k.key.orig"
t_exit 2 "keygen of a name with a '+' refused" journalchain keygen a+b "$TMP/bad"
t_exit 2 "keygen of a name with a space refused" journalchain keygen "a b" "$TMP/bad"
ok "  nothing made" test ! -e "$TMP/bad.key" -a ! -e "$TMP/bad.pub"
journalchain keygen example.org/other "$TMP/o" || fail "second key"

# ---- a checkpoint ----
events 1 7 | journalchain append "$J" || fail "append"
t_exit 0 "checkpoint of a 7-record journal" journalchain checkpoint --key "$TMP/k.key" "$J"
cp "$OUT" "$TMP/c7"
t_eq "  origin line: the key's name" "$(line 1 "$TMP/c7")" example.org/host1/runs
t_eq "  tree size: the record count" "$(line 2 "$TMP/c7")" 7
t_grep "  root: base64 of 32 bytes" '^[A-Za-z0-9+/]{43}=$' "$TMP/c7"
t_eq "  then a blank line" "$(line 4 "$TMP/c7")" ""
t_grep "  then the signature line: em dash, the key's name, base64" \
    '^— example\.org/host1/runs [A-Za-z0-9+/]{91}=$' "$TMP/c7"
t_eq "  five lines in all" "$(wc -l <"$TMP/c7" | tr -d ' ')" 5
t_eq "  the signature starts with the key hash" \
    "$(line 5 "$TMP/c7" | cut -d' ' -f3 | base64 -d | head -c 4 | od -An -tx1 | tr -d ' ')" \
    "$(cut -d+ -f2 "$TMP/k.pub")"
t_exit 0 "verify --checkpoint" journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$J"
t_grep "  says what it verified" "^checkpoint 7 $(line 3 "$TMP/c7" | sed 's/[+/]/./g') verified: example\.org/host1/runs, 7 records$" "$OUT"
t_exit 0 "checkpoint --origin" journalchain checkpoint --key "$TMP/k.key" --origin "example.org/elsewhere" "$J"
cp "$OUT" "$TMP/c7o"
t_eq "  the origin line given" "$(line 1 "$TMP/c7o")" example.org/elsewhere
t_exit 0 "verify --origin the one in the checkpoint" journalchain verify \
    --checkpoint "$TMP/c7o" --pub "$TMP/k.pub" --origin example.org/elsewhere "$J"
t_exit 1 "verify --origin another one" journalchain verify \
    --checkpoint "$TMP/c7" --pub "$TMP/k.pub" --origin example.org/elsewhere "$J"
t_grep "  names both" 'origin is "example.org/host1/runs", not "example.org/elsewhere"' "$ERR"
t_exit 2 "an origin with a control character refused" journalchain checkpoint \
    --key "$TMP/k.key" --origin "$(printf 'a\tb')" "$J"

# A leaf is the record's line with its newline: the root of one record is
# SHA-256(0x00 || line || "\n").
head -n 1 "$J" >"$TMP/j1"
journalchain checkpoint --key "$TMP/k.key" "$TMP/j1" >"$TMP/c1" || fail "checkpoint j1"
t_eq "root of one record: SHA-256 of 0x00, the line and its newline" \
    "$(line 3 "$TMP/c1")" \
    "$( { printf '\000'; cat "$TMP/j1"; } | sha256sum | cut -d' ' -f1 | b64hex)"
# Two: SHA-256(0x01 || leaf1 || leaf2).
head -n 2 "$J" >"$TMP/j2"
l1=$( { printf '\000'; sed -n 1p "$J"; } | sha256sum | cut -d' ' -f1)
l2=$( { printf '\000'; sed -n 2p "$J"; } | sha256sum | cut -d' ' -f1)
journalchain checkpoint --key "$TMP/k.key" "$TMP/j2" >"$TMP/c2" || fail "checkpoint j2"
t_eq "root of two records: SHA-256 of 0x01 and the two leaf hashes" \
    "$(line 3 "$TMP/c2")" \
    "$(echo "01$l1$l2" | perl -ne 'chomp; print pack("H*", $_)' | sha256sum | cut -d' ' -f1 | b64hex)"
: >"$TMP/j0"
journalchain checkpoint --key "$TMP/k.key" "$TMP/j0" >"$TMP/c0" || fail "checkpoint j0"
t_eq "the empty journal: size 0, root SHA-256 of nothing" \
    "$(line 2 "$TMP/c0") $(line 3 "$TMP/c0")" \
    "0 $(printf '' | sha256sum | cut -d' ' -f1 | b64hex)"

# ---- the signer key's mode and owner ----
for m in 640 604 620 602 644 666; do
	chmod "$m" "$TMP/k.key"
	t_exit 2 "a signer key of mode $m refused" journalchain checkpoint --key "$TMP/k.key" "$J"
	t_grep "  says others may read it" "k\.key: signer key has mode 0$m, so others may read it: refused" "$ERR"
	t_eq "  nothing on stdout" "$(cat "$OUT")" ""
done
chmod 600 "$TMP/k.key"
if [ "$(id -u)" -eq 0 ]; then
	chown 65534 "$TMP/k.key"
	t_exit 2 "a signer key of another user refused" journalchain checkpoint --key "$TMP/k.key" "$J"
	t_grep "  names its owner" "signer key owned by uid 65534" "$ERR"
	chown 0 "$TMP/k.key"
else
	skip "a signer key of another user refused" "needs root (chown)"
fi
ln -s "$TMP/k.key" "$TMP/klink"
t_exit 1 "a signer key through a symlink refused" journalchain checkpoint --key "$TMP/klink" "$J"
sed 's/+\([0-9a-f]\)/+0/' "$TMP/k.key" >"$TMP/kbad.key"; chmod 600 "$TMP/kbad.key"
cmp -s "$TMP/kbad.key" "$TMP/k.key" && sed -i 's/+0/+1/' "$TMP/kbad.key"
t_exit 2 "a signer key whose hash does not match refused" journalchain checkpoint --key "$TMP/kbad.key" "$J"
t_grep "  says so" "does not match its name and key" "$ERR"
t_exit 2 "a verifier key as signer key refused" journalchain checkpoint --key "$TMP/k.pub" "$J"

# ---- forged and foreign checkpoints ----
t_exit 1 "another key's verifier: refused" journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/o.pub" "$J"
t_grep "  no signature by it" "no signature by example\.org/other\+" "$ERR"
sed '2s/7/6/' "$TMP/c7" >"$TMP/c7forged"
t_exit 1 "a checkpoint whose size was changed: the signature fails" \
    journalchain verify --checkpoint "$TMP/c7forged" --pub "$TMP/k.pub" "$J"
t_grep "  says so" "signature by example\.org/host1/runs\+[0-9a-f]{8} does not verify" "$ERR"
head -n 3 "$TMP/c7" >"$TMP/c7bare"
t_exit 2 "a checkpoint without signature: malformed" \
    journalchain verify --checkpoint "$TMP/c7bare" --pub "$TMP/k.pub" "$J"

# ---- the journal changed after checkpoint c7 ----
cp "$J" "$TMP/j7"
events 8 13 | journalchain append "$J" || fail "append 8-13"
t_exit 0 "extended: still verifies against the older checkpoint" \
    journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$J"
t_grep "  its first 7 of 13 records" "^checkpoint 7 .* 13 records$" "$OUT"
head -n 5 "$J" >"$TMP/jcut"
t_exit 1 "truncated: refused" journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$TMP/jcut"
t_grep "  fewer records than the checkpoint" "jcut: 5 records, fewer than the 7 of the checkpoint" "$ERR"
# rewritten with a valid chain: record 3 has another event
{ events 1 2; echo '{"i":33}'; events 4 13; } | journalchain append "$TMP/jrw" || fail "jrw"
t_exit 0 "  (the rewritten journal's chain is valid)" journalchain verify "$TMP/jrw"
t_exit 1 "rewritten with a valid chain: refused" \
    journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$TMP/jrw"
t_grep "  its first 7 records do not have the root" "jrw: its first 7 records do not have the root of the checkpoint" "$ERR"
{ events 1 1; events 3 3; events 2 2; events 4 13; } | journalchain append "$TMP/jro" || fail "jro"
t_exit 1 "reordered with a valid chain: refused" \
    journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$TMP/jro"
t_grep "  the root differs" "jro: its first 7 records do not have the root" "$ERR"
# reordered in place: lines 2 and 3 swapped, the chain broken
awk 'NR == 2 { two = $0; next } { print } NR == 3 { print two }' "$J" >"$TMP/jsw"
t_exit 1 "reordered in place: refused, naming the record" \
    journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$TMP/jsw"
t_grep "  the first record out of place" "jsw: verification failed at record 2" "$ERR"
printf 'x' >>"$TMP/j7t"; cat "$TMP/j7" >"$TMP/j7t"; printf '{"seq":8,"pr' >>"$TMP/j7t"
t_exit 3 "a torn tail: exit 3, as verify" \
    journalchain verify --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$TMP/j7t"
t_exit 3 "  and no checkpoint of it" journalchain checkpoint --key "$TMP/k.key" "$TMP/j7t"
t_eq "  nothing on stdout" "$(cat "$OUT")" ""

# ---- consistency proofs: what a witness holding c7 is shown ----
journalchain checkpoint --key "$TMP/k.key" "$J" >"$TMP/c13" || fail "c13"
t_exit 0 "prove --from 7" journalchain prove --from 7 "$J"
cp "$OUT" "$TMP/p13"
t_eq "  starts with old 7" "$(line 1 "$TMP/p13")" "old 7"
t_eq "  then one base64 hash a line (5 from 7 to 13)" \
    "$(sed 1d "$TMP/p13" | grep -cE '^[A-Za-z0-9+/]{43}=$')" 5
t_exit 0 "consistent: 13 extends 7" journalchain consistent --pub "$TMP/k.pub" \
    --old "$TMP/c7" --proof "$TMP/p13" "$TMP/c13"
t_eq "  says so" "$(cat "$OUT")" "consistent: example.org/host1/runs 7 -> 13"
t_exit 0 "prove --from 7 --to 10" journalchain prove --from 7 --to 10 "$J"
cp "$OUT" "$TMP/p10"
head -n 10 "$J" >"$TMP/j10"
journalchain checkpoint --key "$TMP/k.key" "$TMP/j10" >"$TMP/c10" || fail "c10"
t_exit 0 "  consistent: 10 extends 7" journalchain consistent --pub "$TMP/k.pub" \
    --old "$TMP/c7" --proof "$TMP/p10" "$TMP/c10"
t_exit 0 "prove --from 13 (the same size): an empty proof" journalchain prove --from 13 "$J"
t_eq "  old 13 alone" "$(cat "$OUT")" "old 13"
t_exit 1 "prove --from more than the journal has: truncated" journalchain prove --from 14 "$J"
t_grep "  says so" "13 records, fewer than --from 14: the journal was truncated" "$ERR"

# the rewritten and the reordered journals, as their host would present them
for x in rw ro; do
	journalchain checkpoint --key "$TMP/k.key" "$TMP/j$x" >"$TMP/c$x" || fail "c$x"
	journalchain prove --from 7 "$TMP/j$x" >"$TMP/p$x" || fail "p$x"
	t_exit 1 "consistent: the $x journal does not extend c7" journalchain consistent \
	    --pub "$TMP/k.pub" --old "$TMP/c7" --proof "$TMP/p$x" "$TMP/c$x"
	t_grep "  the proof fails" "c$x does not extend .*c7: the proof .*p$x fails" "$ERR"
	t_exit 1 "  nor with the honest journal's proof" journalchain consistent \
	    --pub "$TMP/k.pub" --old "$TMP/c7" --proof "$TMP/p13" "$TMP/c$x"
done
journalchain checkpoint --key "$TMP/k.key" "$TMP/jcut" >"$TMP/c5" || fail "c5"
printf 'old 7\n' >"$TMP/pcut"
t_exit 1 "consistent: a truncated journal's checkpoint (5 < 7)" journalchain consistent \
    --pub "$TMP/k.pub" --old "$TMP/c7" --proof "$TMP/pcut" "$TMP/c5"
t_grep "  fewer records" "c5 has 5 records, fewer than the 7 of .*c7: the journal was truncated" "$ERR"
t_exit 1 "consistent: a proof from another size" journalchain consistent \
    --pub "$TMP/k.pub" --old "$TMP/c7" --proof "$TMP/p10" "$TMP/c13"
# every hash of the proof matters
i=2
while [ $i -le 6 ]; do
	awk -v n=$i 'NR == n { $0 = (substr($0, 1, 1) == "A" ? "B" : "A") substr($0, 2) } 1' \
	    "$TMP/p13" >"$TMP/pbad"
	t_exit 1 "consistent: proof hash $((i - 1)) changed fails" journalchain consistent \
	    --pub "$TMP/k.pub" --old "$TMP/c7" --proof "$TMP/pbad" "$TMP/c13"
	i=$((i + 1))
done
sed '$d' "$TMP/p13" >"$TMP/pbad"
t_exit 1 "consistent: a proof one hash short fails" journalchain consistent \
    --pub "$TMP/k.pub" --old "$TMP/c7" --proof "$TMP/pbad" "$TMP/c13"
t_exit 1 "consistent: checkpoints of other origins" journalchain consistent \
    --pub "$TMP/k.pub" --old "$TMP/c7o" --proof "$TMP/p13" "$TMP/c13"

# ---- checkpoint --state: only the records since the last checkpoint ----
S=$TMP/state
cp "$TMP/j7" "$TMP/js"
t_exit 0 "checkpoint --state, no state yet" journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/js"
cp "$OUT" "$TMP/cs7"
ok "  the same checkpoint as without" cmp "$TMP/cs7" "$TMP/c7"
t_eq "  the state has mode 600" "$(stat -c %a "$S")" 600
t_eq "  it starts with its magic line" "$(line 1 "$S")" "borne-checkpoint-state 1"
t_eq "  and keeps the checkpoint" "$(sed -n '5,$p' "$S")" "$(cat "$TMP/c7")"
events 8 10 | journalchain append "$TMP/js" || fail "append js"
t_exit 0 "three records later" journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/js"
cp "$OUT" "$TMP/cs10"
journalchain checkpoint --key "$TMP/k.key" "$TMP/js" >"$TMP/cf10" || fail "cf10"
ok "  the same checkpoint as a full pass" cmp "$TMP/cs10" "$TMP/cf10"
t_eq "  the state follows it" "$(sed -n '5,$p' "$S")" "$(cat "$TMP/cs10")"
t_exit 0 "nothing new: the same checkpoint" journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/js"
cp "$OUT" "$TMP/cs10b"
ok "  byte for byte" cmp "$TMP/cs10b" "$TMP/cs10"
# Only the new records are read: a byte changed inside record 2 (the
# chain broken there) is not seen by checkpoint --state, but verify
# --checkpoint of what it signed catches it: the root signed is that of
# the records as they were.
cp "$TMP/js" "$TMP/js.orig"
cp "$S" "$TMP/state.orig"
sed -i '2s/"i":2/"i":9/' "$TMP/js"
echo '{"i":11}' | journalchain append "$TMP/js" || fail "append js 11"
t_exit 0 "an old record changed: checkpoint --state reads only the new one" \
    journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/js"
cp "$OUT" "$TMP/cs11"
t_exit 1 "  whose checkpoint the changed journal fails" \
    journalchain verify --checkpoint "$TMP/cs11" --pub "$TMP/k.pub" "$TMP/js"
t_grep "  at record 2" "verification failed at record 3" "$ERR"
sed -i '2s/"i":9/"i":2/' "$TMP/js"
t_exit 0 "  and the journal put back verifies against it" \
    journalchain verify --checkpoint "$TMP/cs11" --pub "$TMP/k.pub" "$TMP/js"
cp "$S" "$TMP/state11"
# what the state refuses to extend
head -n 10 "$TMP/js" >"$TMP/jt"
cp "$TMP/state11" "$S"
t_exit 1 "the journal truncated since the state: not signed" \
    journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/jt"
t_grep "  says so" "jt: the journal is shorter \(truncated\) since the checkpoint in .*state: not signed" "$ERR"
ok "  the state unchanged" cmp "$S" "$TMP/state11"
{ events 1 10; echo '{"i":111}'; events 12 12; } | journalchain append "$TMP/jr11" || fail "jr11"
t_exit 1 "the last record checkpointed rewritten: not signed" \
    journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/jr11"
t_grep "  says so" "record 11(, ending at byte [0-9]+, is not the one checkpointed| does not end at byte [0-9]+): the journal was (truncated or )?rewritten" "$ERR"
cp "$TMP/js" "$TMP/jtorn"; printf '{"seq":12,"pr' >>"$TMP/jtorn"
t_exit 3 "a torn tail after the state: exit 3" \
    journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/jtorn"
cp "$TMP/js" "$TMP/jbad"; echo '{"seq":12,"prev":"x"}' >>"$TMP/jbad"
t_exit 1 "a bad record after the state: exit 1" \
    journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/jbad"
t_grep "  names it" "verification failed at record 12" "$ERR"
ok "  the state unchanged by every refusal" cmp "$S" "$TMP/state11"
awk 'NR == 4 { $3 = ($3 == "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" ? "BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" : "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=") } 1' \
    "$TMP/state11" >"$S"
t_exit 1 "a state whose tree was changed: refused" \
    journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/js"
t_grep "  its tree is not the one signed" "its tree is not the one its checkpoint signed" "$ERR"
cp "$TMP/state11" "$S"
t_exit 1 "another key's state: refused" \
    journalchain checkpoint --key "$TMP/o.key" --state "$S" "$TMP/js"
t_grep "  says so" "no signature by example\.org/other" "$ERR"
chmod 644 "$S"
t_exit 0 "a state others may read is fine" journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/js"
chmod 664 "$S"
t_exit 2 "a state others may write: refused" journalchain checkpoint --key "$TMP/k.key" --state "$S" "$TMP/js"
chmod 600 "$S"

# ---- usage ----
t_exit 2 "checkpoint without --key" journalchain checkpoint "$J"
t_exit 2 "prove without --from" journalchain prove "$J"
t_exit 2 "verify --checkpoint without --pub" journalchain verify --checkpoint "$TMP/c7" "$J"
t_exit 2 "--key for verify" journalchain verify --key "$TMP/k.key" "$J"
t_exit 2 "verify --checkpoint with --deep" journalchain verify --deep \
    --checkpoint "$TMP/c7" --pub "$TMP/k.pub" "$J"
t_exit 2 "keygen with one operand" journalchain keygen only

# ---- Go's reference implementation ----
GOSRC=/usr/share/gocode/src/golang.org/x/mod/sumdb
if ! command -v go >/dev/null 2>&1 || [ ! -d "$GOSRC/note" ]; then
	skip_all "needs go and golang.org/x/mod (golang-go, golang-golang-x-mod-dev)"
fi
# GOPATH mode, offline, against Debian's packaged sources.
if ! GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOPROXY=off \
    GOCACHE="$TMP/gocache" go build -o "$TMP/tlogcheck" \
    "$T_TOP/tests/tlogcheck/tlogcheck.go" 2>"$TMP/gobuild"; then
	fail "tests/tlogcheck builds"; diag_file "$TMP/gobuild"
	done_testing
fi
G=$TMP/tlogcheck
t_exit 0 "Go's note.Open verifies our checkpoint" "$G" open "$TMP/k.pub" "$TMP/c7"
t_eq "  its text is the checkpoint" "$(cat "$OUT")" "$(head -n 3 "$TMP/c7")"
t_exit 1 "Go's note.Open refuses the forged one" "$G" open "$TMP/k.pub" "$TMP/c7forged"
t_exit 0 "Go's tlog.TreeHash: the root of 7" "$G" root "$TMP/j7" 7
t_eq "  the checkpoint's" "$(cat "$OUT")" "$(line 3 "$TMP/c7")"
t_exit 0 "Go's tlog.TreeHash: the root checkpoint --state signed, 11 records" "$G" root "$TMP/js" 11
t_eq "  the incremental checkpoint's" "$(cat "$OUT")" "$(line 3 "$TMP/cs11")"
t_exit 0 "Go's tlog.CheckTree: 13 extends 7" "$G" consistent "$TMP/k.pub" "$TMP/c7" "$TMP/c13" "$TMP/p13"
for x in rw ro; do
	t_exit 1 "Go's tlog.CheckTree: the $x journal does not" "$G" consistent \
	    "$TMP/k.pub" "$TMP/c7" "$TMP/c$x" "$TMP/p$x"
done
# Ed25519 is deterministic: Go signing our text with our key gives our note.
head -n 3 "$TMP/c7" >"$TMP/c7text"
t_exit 0 "Go's note.Sign with our signer key" "$G" sign "$TMP/c7text" "$TMP/k.key"
t_eq "  gives our checkpoint, byte for byte" "$(cat "$OUT")" "$(cat "$TMP/c7")"
# A cosignature (a witness's) beside ours is left alone.
"$G" sign "$TMP/c7text" "$TMP/k.key" "$TMP/o.key" >"$TMP/c7co" || fail "cosign"
t_eq "  (two signature lines)" "$(grep -c '^— ' "$TMP/c7co")" 2
t_exit 0 "a cosigned checkpoint verifies" journalchain verify --checkpoint "$TMP/c7co" --pub "$TMP/k.pub" "$J"
t_exit 0 "  by either key" journalchain verify --checkpoint "$TMP/c7co" --pub "$TMP/o.pub" "$J"
# Go's keys in our tools.
"$G" keygen example.org/go-made "$TMP/g" || fail "Go keygen"
chmod 600 "$TMP/g.key"
t_exit 0 "a checkpoint signed with Go's signer key" journalchain checkpoint --key "$TMP/g.key" "$J"
cp "$OUT" "$TMP/cg"
t_exit 0 "  verified by Go's note.Open" "$G" open "$TMP/g.pub" "$TMP/cg"
t_exit 0 "  and by verify with Go's verifier key" journalchain verify --checkpoint "$TMP/cg" --pub "$TMP/g.pub" "$J"
# Every root and proof of small trees, against Go's.
events 1 24 | journalchain append "$TMP/big" || fail "big"
bad=
n=1
while [ $n -le 24 ]; do
	head -n $n "$TMP/big" >"$TMP/bn"
	journalchain checkpoint --key "$TMP/k.key" "$TMP/bn" >"$TMP/cn" || bad="$bad c$n"
	[ "$("$G" root "$TMP/bn" $n)" = "$(line 3 "$TMP/cn")" ] || bad="$bad root$n"
	m=0
	while [ $m -le $n ]; do
		if [ $m -gt 0 ]; then
			journalchain prove --from $m "$TMP/bn" >"$TMP/ours" || bad="$bad p$m,$n"
			"$G" prove "$TMP/bn" $m >"$TMP/theirs" || bad="$bad g$m,$n"
			cmp -s "$TMP/ours" "$TMP/theirs" || bad="$bad $m->$n"
		fi
		m=$((m + 1))
	done
	n=$((n + 1))
done
t_eq "roots of 1 to 24 records and proofs between every two sizes: Go's" "$bad" ""
done_testing
