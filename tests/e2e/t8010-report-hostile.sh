#!/bin/sh
# report, of experiments whose stored labels, kernels, hosts and command
# lines hold anything (another machine's store): the HTML escapes them
# everywhere (text, attributes, titles, SVG), so a label's <script>, quotes
# and & stay text; and the "To reproduce" block of every format (HTML,
# mail, Markdown) is shell that runs exactly the stored command: each
# command is one line (a mail may continue it with a backslash) that sh -n
# accepts and that gives the label back byte for byte, newlines, escapes,
# quotes, $(...) and backquotes included, without running any of them.
. "$(dirname "$0")/lib.sh"

SYNTH="$(dirname "$WAKEBENCH")/tests/t-store"
[ -x "$SYNTH" ] || skip_all "test helper $SYNTH not built"
command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed"
db="$TMP/r.db"
W="$TMP/w"
mkdir "$W"

# A: a newline that would start a command, an escape, quotes, substitutions,
# markup; B: the same ending in a newline (which $(...) would drop).
A=$(printf 'A!\033]0;x\007\ntouch pwned-1 #\n$(touch pwned-2)`touch pwned-3`"q'"'"'<script>alert(1)</script>&" onmouseover="x\302\233_')
A=${A%_}
B=$(printf 'B it'"'"'s;touch pwned-4\n\n_')
B=${B%_}
# C: printable, quoted, wider than a mail's line
C="C it's a label of printable ASCII, longer than a mail's line: \$(touch pwned-5) \\ 'q' \"q\" ;"
hex() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
# label and stored command line (quoted as wakebench stores it) of experiments WHERE
set_label() {
	q=$(printf '%s_' "$2" | sed "s/'/'\\\\''/g")
	q=${q%_}
	sqlite3 "$db" "UPDATE experiments SET label = CAST(X'$(hex "$2")' AS TEXT),
		cmdline = CAST(X'$(hex "/usr/bin/wakebench run pipe -j 1 --db /x.db --label '$q'")' AS TEXT)
		WHERE $1"
}
"$SYNTH" --synth "$db" 2 6 6.6 base host 1000 >/dev/null 2>&1
"$SYNTH" --synth "$db" 2 6 6.12 a host 900 >/dev/null 2>&1
"$SYNTH" --synth "$db" 2 6 6.12 b host 950 >/dev/null 2>&1
"$SYNTH" --synth "$db" 2 6 6.12 c host 980 >/dev/null 2>&1
set_label "id IN (3, 4)" "$A"
set_label "id IN (5, 6)" "$B"
set_label "id IN (7, 8)" "$C"
sqlite3 "$db" "UPDATE experiments SET host = host || '<b>&\"' || char(27) WHERE id >= 3"
is "$(sqlite3 "$db" "SELECT count(*) FROM experiments WHERE label = CAST(X'$(hex "$A")' AS TEXT)")" 2 \
	"two experiments carry label A"

# The reproducer block of FILE, as sh (FORMAT: html, email, markdown).
block() {
	case $1 in
	html) sed -n '/<section id="reproduce">/,/<\/pre>/p' "$2" | sed -e '1d' -e 's/^<pre>//' \
		-e '/<\/pre>/d' -e 's/<[^>]*>//g' -e 's/&lt;/</g' -e 's/&gt;/>/g' \
		-e 's/&quot;/"/g' -e "s/&#39;/'/g" -e 's/&amp;/\&/g' ;;
	email) sed -n '/^To reproduce/,/^-- $/p' "$2" | sed -n '/^  [^ ]/,$p' | sed '/^$/,$d' ;;
	markdown) sed -n '/^````sh$/,/^````$/p' "$2" | sed '1d;$d' ;;
	esac
}
# Run a reproducer block with wakebench a function that checks its labels.
replay() {
	(
		cd "$W" || exit 1
		WA=$A WB=$B WC=$C
		wakebench() {
			while [ $# -gt 0 ]; do
				if [ "$1" = --label ]; then
					if [ "$2" = "$WA" ]; then echo A; elif [ "$2" = "$WB" ]; then echo B
					elif [ "$2" = "$WC" ]; then echo C; else echo "other label"; fi
				fi
				shift
			done
		}
		. "$1"
	)
}

for fmt in html email markdown; do
	run_cmd wb report --db "$db" --by label --format "$fmt" -o "$TMP/r.$fmt"
	is "$RC" 0 "$fmt: report exits 0"
	block "$fmt" "$TMP/r.$fmt" >"$TMP/sh.$fmt"
	ok "sh -n '$TMP/sh.$fmt'" "$fmt: the reproducer block is valid sh"
	is "$(grep -c '^ *wakebench \|^ *wb_arg' "$TMP/sh.$fmt")" 5 \
		"$fmt: five commands: four command lines and the report's own"
	is "$(LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177-\377]')" "$TMP/sh.$fmt")" 0 \
		"$fmt: printable ASCII only"
	if [ "$fmt" != email ]; then
		is "$(grep -c '^wakebench .*--label' "$TMP/sh.$fmt")" 2 \
			"$fmt: label A's and C's commands are one line each"
		is "$(grep -c '^wb_arg1=.*; wakebench .*--label' "$TMP/sh.$fmt")" 1 \
			"$fmt: label B's command is one line (its trailing newline through a variable)"
	fi
	is "$(replay "$TMP/sh.$fmt" | sort | tr '\n' ' ')" "A B C " \
		"$fmt: running it gives labels A, B and C back byte for byte"
	is "$(ls "$W")" "" "$fmt: and runs nothing that a label holds"
done

html="$TMP/r.html"
is "$(grep -c '<script' "$html")" 0 "HTML: no <script> element"
is "$(grep -c 'onmouseover="' "$html")" 0 "HTML: no attribute a label added"
is "$(grep -c '<b>&' "$html")" 0 "HTML: no element a host name added"
like "$(grep -c '&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot; onmouseover=&quot;x' "$html")" \
	'^[1-9]' "HTML: the label is there, escaped"
like "$(grep -c '<title>[^<]*&lt;script&gt;alert(1)' "$html")" '^[1-9]' \
	"HTML: escaped in the plots' titles too"
like "$(grep -c 'title="[^"]*&lt;script&gt;alert(1)' "$html")" '^[1-9]' \
	"HTML: and in title attributes"
like "$(grep -c '<text[^>]*><title>[^<]*&lt;script&gt;alert(1)[^<]*</title>[^<]*&quot;' "$html")" \
	'^[1-9]' "HTML: and in SVG text (elided, the whole label its title)"
if command -v xmllint >/dev/null; then
	ok "xmllint --noout '$html'" "HTML: well-formed XML"
else
	skip "xmllint is not installed"
fi
done_testing
