// tlogcheck: journalchain's checkpoints, roots and proofs checked by Go's
// reference implementation of signed notes and transparency logs
// (golang.org/x/mod/sumdb/note and sumdb/tlog), for
// tests/t-journalchain-checkpoint.sh.  Built at test time, offline, in
// GOPATH mode against Debian's golang-golang-x-mod-dev.
//
//	tlogcheck open VKEYFILE NOTE          print the verified note's text
//	tlogcheck root JOURNAL N              the RFC 6962 root of N records
//	tlogcheck prove JOURNAL OLD           the consistency proof, as prove
//	tlogcheck consistent VKEYFILE OLDNOTE NEWNOTE PROOF
//	tlogcheck sign TEXTFILE SKEYFILE...   sign a text (a note on stdout)
//	tlogcheck keygen NAME PREFIX          PREFIX.key and PREFIX.pub
//
// Exit 0 on success, 1 when a check fails, 2 on misuse.
package main

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func die(code int, format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "tlogcheck: "+format+"\n", a...)
	os.Exit(code)
}

func readKey(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		die(2, "%v", err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

func open(vkeyFile, notePath string) *note.Note {
	v, err := note.NewVerifier(readKey(vkeyFile))
	if err != nil {
		die(1, "%s: %v", vkeyFile, err)
	}
	msg, err := os.ReadFile(notePath)
	if err != nil {
		die(2, "%v", err)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		die(1, "%s: %v", notePath, err)
	}
	return n
}

// The checkpoint in a note's text: origin, size, root.
func checkpoint(text string) (string, int64, tlog.Hash) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 {
		die(1, "not a checkpoint: %q", text)
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != lines[1] {
		die(1, "not a tree size: %q", lines[1])
	}
	h, err := tlog.ParseHash(lines[2])
	if err != nil {
		die(1, "not a root hash: %q", lines[2])
	}
	return lines[0], n, h
}

// The stored hashes of a journal's records, each leaf a line with its
// newline.
type store []tlog.Hash

func (s store) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = s[x]
	}
	return out, nil
}

func tree(path string, n int64) store {
	b, err := os.ReadFile(path)
	if err != nil {
		die(2, "%v", err)
	}
	var s store
	for i := int64(0); i < n; i++ {
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			die(1, "%s: fewer than %d records", path, n)
		}
		hs, err := tlog.StoredHashes(i, b[:j+1], s)
		if err != nil {
			die(1, "%v", err)
		}
		s = append(s, hs...)
		b = b[j+1:]
	}
	return s
}

func size(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		die(2, "not a size: %s", s)
	}
	return n
}

func main() {
	a := os.Args[1:]
	if len(a) == 0 {
		die(2, "no subcommand")
	}
	switch {
	case a[0] == "open" && len(a) == 3:
		fmt.Print(open(a[1], a[2]).Text)
	case a[0] == "root" && len(a) == 3:
		n := size(a[2])
		h, err := tlog.TreeHash(n, tree(a[1], n))
		if err != nil {
			die(1, "%v", err)
		}
		fmt.Println(h)
	case a[0] == "prove" && len(a) == 3:
		m := size(a[2])
		b, err := os.ReadFile(a[1])
		if err != nil {
			die(2, "%v", err)
		}
		n := int64(bytes.Count(b, []byte("\n")))
		p, err := tlog.ProveTree(n, m, tree(a[1], n))
		if err != nil {
			die(1, "%v", err)
		}
		fmt.Printf("old %d\n", m)
		for _, h := range p {
			fmt.Println(h)
		}
	case a[0] == "consistent" && len(a) == 5:
		o1, m, mh := checkpoint(open(a[1], a[2]).Text)
		o2, n, nh := checkpoint(open(a[1], a[3]).Text)
		if o1 != o2 {
			die(1, "origins differ: %q, %q", o1, o2)
		}
		b, err := os.ReadFile(a[4])
		if err != nil {
			die(2, "%v", err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if lines[0] != "old "+strconv.FormatInt(m, 10) {
			die(1, "proof is %q, the old checkpoint has %d", lines[0], m)
		}
		var p tlog.TreeProof
		for _, l := range lines[1:] {
			h, err := tlog.ParseHash(l)
			if err != nil {
				die(1, "not a hash: %q", l)
			}
			p = append(p, h)
		}
		if err := tlog.CheckTree(p, n, nh, m, mh); err != nil {
			die(1, "%d does not extend %d: %v", n, m, err)
		}
		fmt.Printf("consistent %d %d\n", m, n)
	case a[0] == "sign" && len(a) >= 3:
		var ss []note.Signer
		for _, k := range a[2:] {
			s, err := note.NewSigner(readKey(k))
			if err != nil {
				die(1, "%s: %v", k, err)
			}
			ss = append(ss, s)
		}
		text, err := os.ReadFile(a[1])
		if err != nil {
			die(2, "%v", err)
		}
		msg, err := note.Sign(&note.Note{Text: string(text)}, ss...)
		if err != nil {
			die(1, "%v", err)
		}
		os.Stdout.Write(msg)
	case a[0] == "keygen" && len(a) == 3:
		skey, vkey, err := note.GenerateKey(rand.Reader, a[1])
		if err != nil {
			die(1, "%v", err)
		}
		if os.WriteFile(a[2]+".key", []byte(skey+"\n"), 0600) != nil ||
			os.WriteFile(a[2]+".pub", []byte(vkey+"\n"), 0644) != nil {
			die(1, "cannot write the keys")
		}
	default:
		die(2, "usage: see the comment at the top of tlogcheck.go")
	}
}
