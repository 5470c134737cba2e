package tape

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graft-project/graft/anchors"
)

// prefixRunes is the first n runes of s, and whether that cut anything. It
// reads no further than the cut, so a long text costs only its prefix.
func prefixRunes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	k := 0
	for i := range s {
		if k == n {
			return s[:i], true
		}
		k++
	}
	return s, false
}

// clipRunes cuts s to at most n runes; a cut text ends with "… [cut: recall
// <what>]" so the reader knows where the rest is.
func clipRunes(s string, n int, recall string) string {
	head, cut := prefixRunes(s, n)
	if !cut {
		return s
	}
	return head + " … [cut: recall " + recall + "]"
}

// clipAtSeq is clipRunes whose recall is prefix and "seq=N" ("seq=12",
// "s1 seq=12"), built only when s is cut.
func clipAtSeq(s string, n int, prefix string, seq int64) string {
	head, cut := prefixRunes(s, n)
	if !cut {
		return s
	}
	return head + cutMark + prefix + "seq=" + strconv.FormatInt(seq, 10) + "]"
}

// cutMark opens the mark clipAtSeq and clipMark put where they cut.
const cutMark = " … [cut: recall "

// inSession is a quote clipped in session sess ("" for the tape's own)
// with its cut marks naming that session: a seq alone is the tape's
// source session's (TestAnInheritedFirstGoalsCutIsRecalledInItsSession).
func inSession(quote, sess string) string {
	if sess == "" {
		return quote
	}
	return strings.ReplaceAll(quote, cutMark+"seq=", cutMark+sessionLabel(sess)+" seq=")
}

// clippedAtSeq reports whether s ends with the mark clipAtSeq puts after
// a head it cut (without a prefix): " … [cut: recall seq=N]".
func clippedAtSeq(s string) bool {
	k := strings.LastIndex(s, cutMark+"seq=")
	if k < 0 || !strings.HasSuffix(s, "]") {
		return false
	}
	_, err := strconv.ParseInt(s[k+len(cutMark+"seq="):len(s)-1], 10, 64)
	return err == nil
}

// clipHeadTail cuts s to at most n runes keeping its head (two fifths), a
// cut mark and its end (the rest), for a human instruction: a long message is
// mostly pasted context, and what the person asks stands at its end.
func clipHeadTail(s string, n int, prefix string, seq int64) string {
	return clipAround(s, n, prefix, seq, nil)
}

// clipHumanText is clipHeadTail for what a person typed or pasted. A long
// message is mostly a pasted log, and a log is pasted to show where it
// failed: when the cut middle holds a whole line that names an error
// (errorIndex, as a failed call is told by its error line), the cut mark
// quotes the first, "… [cut: recall seq=N; the first error line cut: …] …".
func clipHumanText(s string, n int, seq int64) string {
	return clipAround(s, n, "", seq, func(mid []rune) string {
		if line := cutErrorLine(string(mid)); line != "" {
			return "; the first error line cut: " + line
		}
		return ""
	})
}

// clipAround is clipHeadTail whose mark holds the note that note (nil
// for none) gives of the middle the plain mark cuts; the end makes room
// for a longer mark (the middle only grows, so what note read is still
// cut).
func clipAround(s string, n int, prefix string, seq int64, note func(mid []rune) string) string {
	if _, cut := prefixRunes(s, n); !cut {
		return s
	}
	r := []rune(s)
	mark := clipMark(prefix, seq)
	head, tail := headTailRunes(n, mark)
	if note != nil {
		if x := note(r[head : len(r)-tail]); x != "" {
			mark = clipMarkNote(prefix, seq, x)
			head, tail = headTailRunes(n, mark)
		}
	}
	return string(r[:head]) + mark + string(r[len(r)-tail:])
}

// cutErrorLine is the first whole line of a cut middle (its first and
// last lines run on in the head and the end) that names an error, at most
// keyLineRunes; "" for none.
func cutErrorLine(mid string) string {
	lines := strings.Split(mid, "\n")
	if len(lines) < 3 {
		return ""
	}
	lines = lines[1 : len(lines)-1]
	for k, l := range lines {
		lines[k] = strings.TrimSpace(l)
	}
	if k := errorIndex(lines); k >= 0 {
		return firstLine(lines[k], keyLineRunes)
	}
	return ""
}

// clipMark is what clipHeadTail puts where it cut.
func clipMark(prefix string, seq int64) string { return clipMarkNote(prefix, seq, "") }

// clipMarkNote is clipMark with a note after the seq, inside the brackets.
func clipMarkNote(prefix string, seq int64, note string) string {
	return cutMark + prefix + "seq=" + strconv.FormatInt(seq, 10) + note + "] … "
}

// headTailRunes are the runes clipHeadTail keeps of a text's head and of
// its end to clip it to n runes with mark between them.
func headTailRunes(n int, mark string) (head, tail int) {
	head = n * 2 / 5
	tail = max(0, n-head-utf8.RuneCountInString(mark)) // the whole fits in n runes
	return head, tail
}

// firstLine is the first non-blank line of s, trimmed, at most n runes.
func firstLine(s string, n int) string {
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = strings.TrimSpace(line); line != "" {
			if head, cut := prefixRunes(line, n-1); cut {
				if _, more := prefixRunes(line, n); more {
					return head + "…"
				}
			}
			return line
		}
	}
	return ""
}

// lastParagraph is the last non-empty paragraph of text (paragraphs are
// separated by blank lines), trimmed. It scans from the end, so a long
// message costs only its last paragraph.
func lastParagraph(text string) string {
	end := len(text) // just past the last non-blank line
	for {
		i := strings.LastIndexByte(text[:end], '\n')
		if strings.TrimSpace(text[i+1:end]) != "" {
			break
		}
		if i < 0 {
			return ""
		}
		end = i
	}
	start := strings.LastIndexByte(text[:end], '\n') + 1
	for start > 0 {
		// The line before the one at start is text[j+1 : start-1].
		j := strings.LastIndexByte(text[:start-1], '\n')
		if strings.TrimSpace(text[j+1:start-1]) == "" {
			break
		}
		start = j + 1
	}
	return strings.TrimSpace(text[start:end])
}

// quoteLines prefixes every line of s with "> ".
func quoteLines(s string) string {
	return "> " + strings.ReplaceAll(s, "\n", "\n> ")
}

// significantWords are the words of s that can name a task: words of at
// least four runes that are not stop words, and the bigrams of Han runs.
func significantWords(s string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, w := range strings.Fields(anchors.Normalize(s)) {
		if hasHan(w) {
			for _, bg := range hanBigrams(w) {
				add(bg)
			}
			continue
		}
		if utf8.RuneCountInString(w) >= 4 && !stopWords[w] {
			add(w)
		}
	}
	return out
}

// wordSet is every word and Han bigram of s, for membership tests.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(anchors.Normalize(s)) {
		set[w] = true
		if hasHan(w) {
			for _, bg := range hanBigrams(w) {
				set[bg] = true
			}
		}
	}
	return set
}

func hasHan(w string) bool {
	for _, r := range w {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// hanBigrams are the two-rune windows of the Han runs of w.
func hanBigrams(w string) []string {
	var out []string
	var run []rune
	flush := func() {
		for i := 0; i+1 < len(run); i++ {
			out = append(out, string(run[i:i+2]))
		}
		if len(run) == 1 {
			out = append(out, string(run))
		}
		run = run[:0]
	}
	for _, r := range w {
		if unicode.Is(unicode.Han, r) {
			run = append(run, r)
			continue
		}
		flush()
	}
	flush()
	return out
}

var stopWords = map[string]bool{
	"with": true, "from": true, "that": true, "this": true, "then": true, "than": true,
	"into": true, "onto": true, "when": true, "will": true, "have": true, "been": true,
	"were": true, "what": true, "which": true, "there": true, "their": true, "them": true,
	"they": true, "your": true, "each": true, "also": true, "only": true, "some": true,
	"more": true, "make": true, "sure": true, "after": true, "before": true, "again": true,
	"todo": true, "task": true, "item": true, "step": true, "done": true, "just": true,
	"для": true, "чтобы": true, "если": true, "после": true, "перед": true, "этот": true,
}

// mentions reports whether the carryover names a todo: at least two thirds
// (rounded up) of the todo's significant words are words of the carryover,
// and the todo has at least one.
func mentions(carry map[string]bool, todo string) bool {
	ws := significantWords(todo)
	if len(ws) == 0 {
		return false
	}
	hit := 0
	for _, w := range ws {
		if carry[w] {
			hit++
		}
	}
	return 3*hit >= 2*len(ws)
}

// reportKeywords open a sub-agent report; one must stand within its first
// ReportKeywordRunes runes.
var reportKeywords = map[string]bool{
	"summary": true, "result": true, "results": true, "findings": true, "done": true,
	"report": true, "conclusion": true, "conclusions": true,
}

// ReportKeywordRunes is how far into a sub-agent report its keyword must be.
const ReportKeywordRunes = 200

// reportVerdict says why a sub-agent report is kept or left out: "" keeps it.
func reportVerdict(text string) string {
	head, _ := prefixRunes(text, ReportKeywordRunes)
	if !hasReportKeyword(head) {
		return "no report keyword in the first 200 characters"
	}
	if isDump(text) {
		return "a file or log dump"
	}
	return ""
}

func hasReportKeyword(head string) bool {
	if strings.Contains(head, "结论") || strings.Contains(head, "总结") {
		return true
	}
	// The words of anchors.Normalize(head) (runs of letters and digits,
	// lower-cased), built one at a time in buf.
	var arr [64]byte
	buf := arr[:0]
	for i := 0; i <= len(head); {
		n, word := 1, false
		switch {
		case i == len(head): // the end closes the last word
		case head[i] < utf8.RuneSelf:
			// ASCII, most of a report: its letters and digits are those
			// of unicode.IsLetter and IsDigit, lowered as unicode.ToLower
			// lowers them.
			c := head[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if word = 'a' <= c && c <= 'z' || '0' <= c && c <= '9'; word {
				buf = append(buf, c)
			}
		default:
			var r rune
			r, n = utf8.DecodeRuneInString(head[i:])
			if word = unicode.IsLetter(r) || unicode.IsDigit(r); word {
				buf = utf8.AppendRune(buf, unicode.ToLower(r))
			}
		}
		if !word && len(buf) > 0 {
			if reportKeywords[string(buf)] || bytes.HasPrefix(buf, []byte("итог")) {
				return true
			}
			buf = buf[:0]
		}
		i += n
	}
	return false
}

// dumpScanLines is how many non-empty lines isDump looks at.
const dumpScanLines = 40

// isDump: the first non-empty line opens a code fence, or at least 4 and at
// least half of the first 40 non-empty lines are file or log lines
// (dumpLine).
func isDump(text string) bool {
	seen, dump := 0, 0
	rest := text
	for len(rest) > 0 && seen < dumpScanLines {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		seen++
		trimmed := strings.TrimSpace(line)
		if seen == 1 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			return true
		}
		if dumpLine(line) {
			dump++
		}
	}
	return dump >= 4 && 2*dump >= seen
}

// dumpLine: a numbered source line ("  12→", "12:", "12|", "12\t"), a
// timestamped or levelled log line, a stack frame, or a diff header.
func dumpLine(line string) bool {
	t := strings.TrimLeft(line, " \t")
	indented := len(t) < len(line)
	// Numbered line.
	d := 0
	for d < len(t) && t[d] >= '0' && t[d] <= '9' {
		d++
	}
	if d > 0 && d < len(t) {
		rest := t[d:]
		if strings.HasPrefix(rest, "→") || rest[0] == ':' || rest[0] == '|' || rest[0] == '\t' {
			return true
		}
	}
	u := strings.TrimPrefix(t, "[")
	if isDigits(u, 4) && len(u) >= 10 && u[4] == '-' && isDigits(u[5:], 2) && u[7] == '-' && isDigits(u[8:], 2) {
		return true // 2025-03-03…
	}
	if isDigits(u, 2) && len(u) >= 8 && u[2] == ':' && isDigits(u[3:], 2) && u[5] == ':' && isDigits(u[6:], 2) {
		return true // 09:00:01…
	}
	for _, lvl := range []string{"DEBUG", "INFO", "WARNING", "WARN", "ERROR", "TRACE", "FATAL"} {
		if rest, ok := strings.CutPrefix(u, lvl); ok && (rest == "" || !unicode.IsLetter(rune(rest[0]))) {
			return true
		}
	}
	if indented && strings.HasPrefix(t, "at ") {
		return true
	}
	for _, p := range []string{"File \"", "goroutine ", "+++ ", "--- ", "@@ "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func isDigits(s string, n int) bool {
	if len(s) < n {
		return false
	}
	for i := 0; i < n; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// seqRange names a run of seqs that were cut, for a "[cut: …]" line.
type seqRange struct {
	N    int   `json:"n,omitempty"`
	From int64 `json:"from,omitempty"`
	To   int64 `json:"to,omitempty"`
}

func (r *seqRange) add(from, to int64) {
	if r.N == 0 || from < r.From {
		r.From = from
	}
	if r.N == 0 || to > r.To {
		r.To = to
	}
	r.N++
}

// merge adds the seqs and the count of o to r.
func (r *seqRange) merge(o seqRange) {
	if o.N == 0 {
		return
	}
	if r.N == 0 || o.From < r.From {
		r.From = o.From
	}
	if r.N == 0 || o.To > r.To {
		r.To = o.To
	}
	r.N += o.N
}

func seqSpan(from, to int64) string {
	if from == to {
		return fmt.Sprintf("seq=%d", from)
	}
	return fmt.Sprintf("seq=%d..%d", from, to)
}

// stripANSI is s without a terminal's control sequences: CSI ("\x1b[" then
// parameters and one final byte: colours, cursor moves), OSC ("\x1b]" up
// to BEL or "\x1b\\": hyperlinks, titles) and the other escapes (ESC,
// intermediate bytes 0x20–0x2f, a final byte 0x30–0x7e: "\x1bM",
// "\x1b(B"); an ESC before any other byte goes alone.
// A string with no ESC is returned as it is.
func stripANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0x1b || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
				j++ // parameter and intermediate bytes
			}
			if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
				j++ // the final byte
			}
			i = j
		case ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x07 {
				j++
			} else if j < len(s) {
				j += 2
			}
			i = j
		default:
			// ESC, intermediate bytes, a final byte ("\x1bM", "\x1b(B"):
			// all ASCII. An ESC before anything else goes alone, so that
			// a rune after it stays whole.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
				j++
			}
			i = j
		}
	}
	return b.String()
}
