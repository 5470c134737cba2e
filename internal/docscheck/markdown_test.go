package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// mdDoc is a Markdown document, by lines (line n is lines[n-1]).
type mdDoc struct {
	name  string // path from the module root, as a mismatch names it
	lines []string
	// code[i]: line i+1 is inside a fenced code block (fences included).
	code []bool
}

func readDoc(root, name string) (*mdDoc, error) {
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		return nil, err
	}
	return parseDoc(name, string(b)), nil
}

func parseDoc(name, text string) *mdDoc {
	d := &mdDoc{name: name, lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	d.code = make([]bool, len(d.lines))
	in := false
	for i, l := range d.lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			d.code[i] = true
			in = !in
			continue
		}
		d.code[i] = in
	}
	return d
}

// line returns line n (1-based).
func (d *mdDoc) line(n int) string { return d.lines[n-1] }

func (d *mdDoc) text() string { return strings.Join(d.lines, "\n") + "\n" }

// heading is one Markdown heading.
type heading struct {
	line  int
	level int
	title string
}

var headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*$`)

func (d *mdDoc) headings() []heading {
	var out []heading
	for i, l := range d.lines {
		if d.code[i] {
			continue
		}
		if m := headingRE.FindStringSubmatch(l); m != nil {
			out = append(out, heading{line: i + 1, level: len(m[1]), title: m[2]})
		}
	}
	return out
}

// span is a range of lines [from, to] (1-based, inclusive).
type span struct{ from, to int }

// section returns the lines under the first heading whose title starts with
// title, up to the next heading of the same or a higher level.
func (d *mdDoc) section(title string) (span, bool) {
	hs := d.headings()
	for i, h := range hs {
		if !strings.HasPrefix(h.title, title) {
			continue
		}
		end := len(d.lines)
		for _, n := range hs[i+1:] {
			if n.level <= h.level {
				end = n.line - 1
				break
			}
		}
		return span{h.line + 1, end}, true
	}
	return span{}, false
}

// anchors are the GitHub anchors of the document's headings.
func (d *mdDoc) anchors() map[string]bool {
	out := map[string]bool{}
	for _, h := range d.headings() {
		out[slug(h.title)] = true
	}
	return out
}

// slug is GitHub's heading anchor: lower case, punctuation dropped, spaces
// to hyphens.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdTable is a Markdown table: its header cells and rows.
type mdTable struct {
	line   int // the header row's line
	header []string
	rows   []mdRow
}

type mdRow struct {
	line  int
	cells []string
}

// cell returns the row's cell under the column named col ("" if none).
func (t mdTable) cell(r mdRow, col string) string {
	for i, h := range t.header {
		if h == col && i < len(r.cells) {
			return r.cells[i]
		}
	}
	return ""
}

var tableSep = regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)

// tables returns every table of the document within s.
func (d *mdDoc) tables(s span) []mdTable {
	var out []mdTable
	for i := s.from; i < s.to; i++ {
		if d.code[i-1] || !strings.HasPrefix(d.line(i), "|") || !tableSep.MatchString(d.line(i+1)) {
			continue
		}
		t := mdTable{line: i, header: splitRow(d.line(i))}
		j := i + 2
		for ; j <= s.to && strings.HasPrefix(d.line(j), "|"); j++ {
			t.rows = append(t.rows, mdRow{line: j, cells: splitRow(d.line(j))})
		}
		out = append(out, t)
		i = j - 1
	}
	return out
}

// table returns the first table within s whose header is exactly header.
func (d *mdDoc) table(s span, header ...string) (mdTable, bool) {
	for _, t := range d.tables(s) {
		if strings.Join(t.header, "|") == strings.Join(header, "|") {
			return t, true
		}
	}
	return mdTable{}, false
}

func (d *mdDoc) all() span { return span{1, len(d.lines)} }

// splitRow splits a table row into cells on unescaped pipes; "\|" in a
// cell is a pipe.
func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	l = strings.TrimSuffix(l, "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			b.WriteByte('|')
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(l[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// codeBlock is a fenced code block: the lines between its fences.
type codeBlock struct {
	line  int // the opening fence
	info  string
	lines []string
}

func (d *mdDoc) codeBlocks(s span) []codeBlock {
	var out []codeBlock
	for i := s.from; i <= s.to; i++ {
		l := strings.TrimSpace(d.line(i))
		if !strings.HasPrefix(l, "```") {
			continue
		}
		b := codeBlock{line: i, info: strings.TrimPrefix(l, "```")}
		j := i + 1
		for ; j <= len(d.lines) && !strings.HasPrefix(strings.TrimSpace(d.line(j)), "```"); j++ {
			b.lines = append(b.lines, d.line(j))
		}
		out = append(out, b)
		i = j
	}
	return out
}

var codeSpanRE = regexp.MustCompile("`([^`]+)`")

// codeSpans returns the inline code spans of text.
func codeSpans(text string) []string {
	var out []string
	for _, m := range codeSpanRE.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// spansOf returns each inline code span of the prose lines within s, with
// its line.
func (d *mdDoc) spansOf(s span) []located {
	var out []located
	for i := s.from; i <= s.to; i++ {
		if d.code[i-1] {
			continue
		}
		for _, c := range codeSpans(d.line(i)) {
			if strings.HasPrefix(d.line(i), "|") {
				c = strings.ReplaceAll(c, `\|`, "|") // an escaped pipe of a table cell
			}
			out = append(out, located{i, c})
		}
	}
	return out
}

// located is a piece of text and the line it is on.
type located struct {
	line int
	text string
}

// findLine returns the first line within s matching re, and the match.
func (d *mdDoc) findLine(s span, re *regexp.Regexp) (int, []string) {
	for i := s.from; i <= s.to; i++ {
		if m := re.FindStringSubmatch(d.line(i)); m != nil {
			return i, m
		}
	}
	return 0, nil
}

// paragraph joins the lines of the prose paragraph holding line n, with
// the line it starts on.
func (d *mdDoc) paragraph(n int) (int, string) {
	from, to := n, n
	for from > 1 && strings.TrimSpace(d.line(from-1)) != "" && !d.code[from-2] {
		from--
	}
	for to < len(d.lines) && strings.TrimSpace(d.line(to+1)) != "" && !d.code[to] {
		to++
	}
	return from, strings.Join(d.lines[from-1:to], " ")
}

// mdLink is a Markdown link.
type mdLink struct {
	line   int
	text   string
	target string // path part
	anchor string // after '#'
}

var linkRE = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)

func (d *mdDoc) links(s span) []mdLink {
	var out []mdLink
	for i := s.from; i <= s.to; i++ {
		if d.code[i-1] {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(d.line(i), -1) {
			target, anchor, _ := strings.Cut(m[2], "#")
			out = append(out, mdLink{line: i, text: m[1], target: target, anchor: anchor})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
