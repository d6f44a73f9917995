# tests/man-examples.sh: run the EXAMPLES of a man page's scdoc source.
# Sourced by tests/t-man-examples.sh after tests/lib.sh.
#
#   man_examples PAGE DIR [SECTION]
#                           write each code block (``` fences) of PAGE's
#                           EXAMPLES section (or SECTION: a sample a page
#                           shows elsewhere) to DIR/N.sh (N = 1, 2 ...),
#                           scdoc's escapes undone (\X is X, a \ ending a
#                           line is dropped, as scdoc does), its name to
#                           DIR/N.name (the block's first line when it is
#                           a "# " comment, else "example N"), and every
#                           indented line outside a block (text scdoc would
#                           join into one paragraph) to DIR/unfenced; print
#                           the number of blocks
#   man_example_script DIR N SED
#                           print example N with the sed script SED
#                           applied (fixture paths for the page's paths)
#   man_rendered PAGE OUT   PAGE through scdoc and man -l, as plain text
#                           with blanks squeezed, one line each, in OUT
#   man_example_rendered DIR N RENDERED
#                           succeed when every line of example N is a line
#                           of RENDERED of its own (a code block, not
#                           lines that scdoc joined into a paragraph)
#   man_example_skip NAME REASON
#                           a loud skip of the example NAME (the page must
#                           say why it cannot run on the test host)

man_examples() {
	rm -rf "$2" && mkdir -p "$2" && : >"$2/unfenced" || return 1
	awk -v dir="$2" -v want="${3:-EXAMPLES}" '
	function unescape(s,    o, i, c) {
		o = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "\\") {	# as scdoc: \X is X, a last \ is lost
				i++
				c = substr(s, i, 1)
			}
			o = o c
		}
		return o
	}
	infence && $0 ~ /^[ \t]*```[ \t]*$/ {
		infence = 0; close(file)
		if (name == "") name = "example " n
		print name > (dir "/" n ".name"); close(dir "/" n ".name")
		next
	}
	infence {
		line = $0
		if (substr(line, 1, length(indent)) == indent)
			line = substr(line, length(indent) + 1)
		line = unescape(line)
		if (first && line ~ /^# /) name = substr(line, 3)
		first = 0
		print line > file
		next
	}
	section == want && $0 ~ /^[ \t]*```[ \t]*$/ {
		infence = 1; first = 1; name = ""; n++
		file = dir "/" n ".sh"
		indent = $0; sub(/```.*/, "", indent)
		printf "" > file
		next
	}
	/^# / { section = substr($0, 3) }
	section == want && /^(\t|    )/ { print > (dir "/unfenced") }
	END {
		if (infence) { print "unterminated code block" > "/dev/stderr"; exit 1 }
		print n + 0
	}' "$1"
}

man_example_script() {
	sed "$3" "$1/$2.sh"
}

man_rendered() {
	scdoc <"$1" >"$2.roff" || return 1
	MANWIDTH=300 man -l "$2.roff" 2>/dev/null |
	    awk '{ gsub(/.\b/, ""); gsub(/[ \t]+/, " "); sub(/^ /, "");
		sub(/ $/, ""); print }' >"$2"
}

man_example_rendered() {
	awk '{ gsub(/[ \t]+/, " "); sub(/^ /, ""); sub(/ $/, "") }
	    $0 != "" { print }' "$1/$2.sh" | {
		while IFS= read -r l; do
			grep -Fqx -- "$l" "$3" || { diag "not rendered alone: $l"; return 1; }
		done
		return 0
	}
}

man_example_skip() {
	skip "example '$1'" "$2"
}
