package session

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zeebo/xxh3"
)

// The log decoder. encoding/json spends most of a scan validating and
// unquoting MiB tool outputs through reflection; this decoder reads the
// event schema directly, one pass over the line.
//
// It is exact by construction: it decodes only lines it can decode exactly
// as encoding/json.Unmarshal would into a zero Event, and gives up on
// anything else — a syntax or type error, an unknown or repeated key, a
// key in another case or with escapes, invalid UTF-8, a lone surrogate, a
// number that is not a plain integer, deep nesting. decodeLine then hands
// the line to encoding/json, which decides (and words any error). Lines
// graft writes never take that path.

// decodeMode says which strings the decoder builds.
type decodeMode uint8

const (
	// decodeAll builds every field, like encoding/json.
	decodeAll decodeMode = iota
	// decodeFold validates a tool output but builds it only when the result
	// failed (tool.ok is false), and then only through its first line with
	// text: see ScanFold.
	decodeFold
)

// maxFastDepth bounds the nesting the decoder follows in a raw value (a
// tool input); deeper values go to encoding/json, whose own limit is 10000.
const maxFastDepth = 512

// lineDecoder decodes one line at a time. scratch is reused across lines
// to unescape strings.
type lineDecoder struct {
	data    []byte
	pos     int
	mode    decodeMode
	scratch []byte
	// interned holds the values of a few fields (see internField).
	interned map[string]string
	// long, when set, reads more of the line into data whenever a string
	// runs past its end (see longLine): data is then only what has been
	// read of the line, and the body of a skipped tool output may be cut
	// out of it as it is read.
	long *longLine
}

// decode fills ev from one log line: the fast path, else encoding/json.
func (d *lineDecoder) decode(line []byte, ev *Event) error {
	*ev = Event{}
	if !d.decodeFast(line, ev) {
		if len(bytes.TrimSpace(line)) == 0 {
			return errors.New("empty line") // never decoded fast
		}
		*ev = Event{}
		if err := json.Unmarshal(line, ev); err != nil {
			return err
		}
		if d.mode == decodeFold {
			ev.TS = ""
		}
		if d.mode == decodeFold && ev.Tool != nil {
			if ev.OKResult() {
				ev.Tool.Output = ""
			} else {
				ev.Tool.Output = throughFirstTextLine(ev.Tool.Output)
			}
		}
	}
	if cap(d.scratch) > maxKeptScratch {
		d.scratch = nil // one long string must not pin its size for the whole scan
	}
	if ev.Type == "" {
		return errors.New(`missing "type"`)
	}
	return nil
}

// maxKeptScratch is the largest unescape buffer a decoder keeps between
// lines.
const maxKeptScratch = 256 << 10

// decodeFast fills ev, which must be zero, from line. ok is false when the
// line needs encoding/json; ev is then left partly filled.
func (d *lineDecoder) decodeFast(line []byte, ev *Event) (ok bool) {
	d.data, d.pos = line, 0
	defer func() { d.data = nil }()
	d.ws()
	if !d.event(ev) {
		return false
	}
	d.ws()
	return d.pos == len(d.data)
}

// Field bits for repeated-key detection.
const (
	fSeq = 1 << iota
	fTS
	fType
	fSource
	fText
	fTool
	fTodos
	fAgent
	fTxn
	fParent
	fParentBoundary
	fGeneration
	fTapeHash
	fTapeEvents
	fTarget
	fReason
	fMeta
)

func (d *lineDecoder) event(ev *Event) bool {
	var seen uint32
	return d.object(func(key []byte) bool {
		var bit uint32
		var ok bool
		switch string(key) {
		case "seq":
			bit, ok = fSeq, d.int64Field(&ev.Seq)
		case "ts":
			if d.mode == decodeFold {
				// No fold reads it: validated, not built.
				bit, ok = fTS, d.null() || d.skipString()
			} else {
				bit, ok = fTS, d.stringField(&ev.TS)
			}
		case "type":
			bit, ok = fType, d.internField(&ev.Type)
		case "source":
			bit, ok = fSource, d.source(&ev.Source)
		case "text":
			bit, ok = fText, d.stringField(&ev.Text)
		case "tool":
			bit, ok = fTool, d.tool(&ev.Tool)
		case "todos":
			bit, ok = fTodos, d.todos(&ev.Todos)
		case "agent":
			bit, ok = fAgent, d.stringField(&ev.Agent)
		case "txn":
			bit, ok = fTxn, d.stringField(&ev.Txn)
		case "parent":
			bit, ok = fParent, d.stringField(&ev.Parent)
		case "parentBoundary":
			bit, ok = fParentBoundary, d.int64Field(&ev.ParentBoundary)
		case "generation":
			bit, ok = fGeneration, d.intField(&ev.Generation)
		case "tapeHash":
			bit, ok = fTapeHash, d.stringField(&ev.TapeHash)
		case "tapeEvents":
			bit, ok = fTapeEvents, d.intField(&ev.TapeEvents)
		case "target":
			bit, ok = fTarget, d.stringField(&ev.Target)
		case "reason":
			bit, ok = fReason, d.stringField(&ev.Reason)
		case "inherit":
			// Only a graft/origin carries it, once per session: encoding/json
			// decodes that line rather than a hand decoder of its own.
			return false
		case "meta":
			bit, ok = fMeta, d.meta(&ev.Meta)
		default:
			return false // unknown, or another case: encoding/json folds case
		}
		if seen&bit != 0 {
			return false // a repeated key merges in encoding/json
		}
		seen |= bit
		return ok
	})
}

func (d *lineDecoder) source(s *Source) bool {
	if d.null() {
		return true
	}
	var seen uint8
	return d.object(func(key []byte) bool {
		var bit uint8
		var ok bool
		switch string(key) {
		case "kind":
			bit, ok = 1, d.internField(&s.Kind)
		case "name":
			bit, ok = 2, d.internField(&s.Name)
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
}

func (d *lineDecoder) tool(dst **Tool) bool {
	if d.null() {
		return true
	}
	t := &Tool{}
	*dst = t
	var seen uint8
	outStart, outEnd := -1, -1
	ok := d.object(func(key []byte) bool {
		var bit uint8
		var ok bool
		switch string(key) {
		case "name":
			bit, ok = 1, d.internField(&t.Name)
		case "callId":
			bit, ok = 2, d.stringField(&t.CallID)
		case "input":
			bit = 4
			var raw []byte
			if raw, ok = d.rawValue(); ok {
				t.Input = append(json.RawMessage(nil), raw...)
			}
		case "ok":
			bit, ok = 8, d.boolPtr(&t.OK)
		case "output":
			bit = 16
			if d.mode == decodeFold && !d.null() {
				// Validated now, built below only if the result failed:
				// then only its head is read, so a long line may drop the
				// body as it reads it, all of it once the result is known
				// to be a success, the part past the head otherwise.
				cut := cutAfterHead
				if t.OK != nil && *t.OK {
					cut = cutAll
				}
				outStart = d.pos
				if ok = d.consume('"'); ok {
					var end int
					if end, _, ok = d.stringEnd(d.pos, cut); ok {
						d.pos = end + 1
					}
				}
				outEnd = d.pos
			} else {
				ok = d.stringField(&t.Output)
			}
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
	if !ok {
		return false
	}
	if outStart >= 0 && t.OK != nil && !*t.OK {
		t.Output, ok = d.textHead(outStart, outEnd)
	}
	return ok
}

func (d *lineDecoder) todos(dst *[]Todo) bool {
	if d.null() {
		return true
	}
	out := []Todo{}
	ok := d.array(func() bool {
		var td Todo
		if !d.todo(&td) {
			return false
		}
		out = append(out, td)
		return true
	})
	*dst = out
	return ok
}

func (d *lineDecoder) todo(td *Todo) bool {
	if d.null() {
		return true
	}
	var seen uint8
	return d.object(func(key []byte) bool {
		var bit uint8
		var ok bool
		switch string(key) {
		case "id":
			bit, ok = 1, d.stringField(&td.ID)
		case "content":
			bit, ok = 2, d.stringField(&td.Content)
		case "status":
			bit, ok = 4, d.stringField(&td.Status)
		default:
			return false
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return ok
	})
}

func (d *lineDecoder) meta(dst *map[string]string) bool {
	if d.null() {
		return true
	}
	m := map[string]string{}
	*dst = m
	if !d.consume('{') {
		return false
	}
	d.ws()
	if d.consume('}') {
		return true
	}
	for {
		k, ok := d.str()
		if !ok {
			return false
		}
		d.ws()
		if !d.consume(':') {
			return false
		}
		d.ws()
		if d.peekNull() {
			return false // encoding/json stores "" for a null element
		}
		v, ok := d.str()
		if !ok {
			return false
		}
		m[k] = v // a repeated key: the last one wins, as in encoding/json
		d.ws()
		if d.consume(',') {
			d.ws()
			continue
		}
		return d.consume('}')
	}
}

// object reads {"key": value, ...}, calling field with d.pos at each value.
// Keys must be plain ASCII without escapes (field names are).
func (d *lineDecoder) object(field func(key []byte) bool) bool {
	if !d.consume('{') {
		return false
	}
	d.ws()
	if d.consume('}') {
		return true
	}
	for {
		key, ok := d.plainKey()
		if !ok {
			return false
		}
		d.ws()
		if !d.consume(':') {
			return false
		}
		d.ws()
		if !field(key) {
			return false
		}
		d.ws()
		if d.consume(',') {
			d.ws()
			continue
		}
		return d.consume('}')
	}
}

// array reads [v, ...], calling elem with d.pos at each element.
func (d *lineDecoder) array(elem func() bool) bool {
	if !d.consume('[') {
		return false
	}
	d.ws()
	if d.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		d.ws()
		if d.consume(',') {
			d.ws()
			continue
		}
		return d.consume(']')
	}
}

func (d *lineDecoder) plainKey() ([]byte, bool) {
	if !d.consume('"') {
		return nil, false
	}
	start := d.pos
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			d.pos = i + 1
			return d.data[start:i], true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, false
		}
	}
	return nil, false
}

func (d *lineDecoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *lineDecoder) consume(c byte) bool {
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *lineDecoder) peekNull() bool {
	return len(d.data)-d.pos >= 4 && string(d.data[d.pos:d.pos+4]) == "null"
}

// null consumes a null literal; a null leaves a zero field zero.
func (d *lineDecoder) null() bool {
	if d.peekNull() {
		d.pos += 4
		return true
	}
	return false
}

func (d *lineDecoder) stringField(dst *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.str()
	*dst = s
	return ok
}

func (d *lineDecoder) boolPtr(dst **bool) bool {
	rest := d.data[d.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		v := true
		*dst = &v
		d.pos += 4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		v := false
		*dst = &v
		d.pos += 5
	case len(rest) >= 4 && string(rest[:4]) == "null":
		d.pos += 4
	default:
		return false
	}
	return true
}

func (d *lineDecoder) int64Field(dst *int64) bool {
	if d.null() {
		return true
	}
	n, ok := d.integer(64)
	*dst = n
	return ok
}

func (d *lineDecoder) intField(dst *int) bool {
	if d.null() {
		return true
	}
	n, ok := d.integer(strconv.IntSize)
	*dst = int(n)
	return ok
}

// integer reads a JSON number that is a plain integer fitting in bitSize
// bits; a fraction or an exponent is left to encoding/json.
func (d *lineDecoder) integer(bitSize int) (int64, bool) {
	start := d.pos
	i := start
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
		i++
	}
	if i == digits || (d.data[digits] == '0' && i-digits > 1) {
		return 0, false
	}
	if i < len(d.data) {
		switch d.data[i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	n, err := strconv.ParseInt(string(d.data[start:i]), 10, bitSize)
	if err != nil {
		return 0, false
	}
	d.pos = i
	return n, true
}

// Word masks for scanning eight string bytes at a time.
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// simpleEscape marks the characters that may follow '\\' alone.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// stops has the high bit set in the first byte of w that is '"', '\\' or
// a control character (and maybe in later bytes, never in earlier ones):
// the bytes a string scan must look at.
func stops(w uint64) uint64 {
	q := w ^ (lows * '"')
	b := w ^ (lows * '\\')
	return (((q - lows) &^ q) | ((b - lows) &^ b) | ((w - lows*0x20) &^ w)) & highs
}

// stringEnd validates the body of a JSON string that starts at data[i]
// (just past its opening quote) and returns the index of its closing quote
// and whether it holds escapes; ok is false when the string is malformed,
// unterminated, or has an unpaired surrogate escape.
func stringEnd(data []byte, i int) (end int, escaped bool, ok bool) {
	end, escaped, st := scanString(data, i)
	return end, escaped, st == strDone
}

// What scanString found.
type strStatus uint8

const (
	strDone  strStatus = iota // the closing quote
	strBad                    // a control byte, a malformed escape or surrogate
	strShort                  // data ends first (or cuts an escape short)
)

// scanString is stringEnd telling a string that data cuts short (then end
// is where to go on once data holds more: len(data), or the backslash of
// an escape that may be cut) from a malformed one. It jumps from one
// quote, backslash or control character to the next: 64 bytes at a time
// with AVX2 (scanStringAVX2, which also steps over two-byte escapes), else
// eight at a time.
func scanString(data []byte, i int) (end int, escaped bool, st strStatus) {
	for {
		if haveStopsAVX2 {
			n, esc := scanStringAVX2(data[i:])
			i += n
			escaped = escaped || esc
		}
		for ; i+8 <= len(data); i += 8 {
			if t := stops(binary.LittleEndian.Uint64(data[i:])); t != 0 {
				i += bits.TrailingZeros64(t) >> 3
				goto stop
			}
		}
		for ; i < len(data); i++ {
			if c := data[i]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
		}
		if i >= len(data) {
			return len(data), escaped, strShort
		}
	stop:
		switch c := data[i]; {
		case c == '"':
			return i, escaped, strDone
		case c < 0x20:
			return 0, false, strBad
		}
		n := escapeLen(data, i)
		if n == 0 {
			if len(data)-i < maxEscapeLen {
				return i, escaped, strShort
			}
			return 0, false, strBad
		}
		escaped = true
		i += n
	}
}

// maxEscapeLen is the longest escape: a surrogate pair, \uXXXX\uYYYY.
const maxEscapeLen = 12

// escapeLen is how many bytes the escape at data[i] ('\\') spans, 0 when it
// is malformed or an unpaired surrogate.
func escapeLen(data []byte, i int) int {
	if i+1 >= len(data) {
		return 0
	}
	if simpleEscape[data[i+1]] {
		return 2
	}
	_, n := unicodeEscape(data[i:])
	return n
}

// str reads a JSON string at d.pos and returns its value.
func (d *lineDecoder) str() (string, bool) {
	b, ok := d.strBytes()
	return string(b), ok
}

// Interning: the values of an event's type, a source's kind and name and
// a tool's name come from a few words; a decoder builds each once.
const (
	maxInterned    = 256
	maxInternedLen = 64
)

// internField is stringField for those fields. A value met before (or
// one of the event types and source kinds) is neither built nor checked
// for UTF-8 again: its bytes are those of a valid string.
func (d *lineDecoder) internField(dst *string) bool {
	if d.null() {
		return true
	}
	b, ok := d.strBytesUnchecked()
	if !ok {
		return false
	}
	if v := knownWord(b); v != "" {
		*dst = v
		return true
	}
	if v, ok := d.interned[string(b)]; ok {
		*dst = v
		return true
	}
	if !utf8.Valid(b) {
		return false // encoding/json replaces invalid bytes
	}
	v := string(b)
	if len(v) <= maxInternedLen && len(d.interned) < maxInterned {
		if d.interned == nil {
			d.interned = make(map[string]string)
		}
		d.interned[v] = v
	}
	*dst = v
	return true
}

// knownWord is b as one of the event types and source kinds, without
// building it; "" for any other value.
func knownWord(b []byte) string {
	switch string(b) {
	case TypeUserMessage:
		return TypeUserMessage
	case TypeAssistantMessage:
		return TypeAssistantMessage
	case TypeToolCall:
		return TypeToolCall
	case TypeToolResult:
		return TypeToolResult
	case TypeTodoWrite:
		return TypeTodoWrite
	case TypeSubagentReport:
		return TypeSubagentReport
	case KindUser:
		return KindUser
	case KindAssistant:
		return KindAssistant
	case KindTool:
		return KindTool
	case KindSubagent:
		return KindSubagent
	}
	return ""
}

// strBytes reads a JSON string at d.pos and returns its value's bytes, in
// d.data or d.scratch: valid until the decoder reads on.
func (d *lineDecoder) strBytes() ([]byte, bool) {
	b, ok := d.strBytesUnchecked()
	if ok && !utf8.Valid(b) {
		return nil, false // encoding/json replaces invalid bytes
	}
	return b, ok
}

// strBytesUnchecked is strBytes without the UTF-8 check of the value.
func (d *lineDecoder) strBytesUnchecked() ([]byte, bool) {
	if !d.consume('"') {
		return nil, false
	}
	start := d.pos
	end, escaped, ok := d.stringEnd(start, cutNever)
	if !ok {
		return nil, false
	}
	data := d.data // read more by a long line's stringEnd
	d.pos = end + 1
	if !escaped {
		return data[start:end], true
	}
	// Unescape; stringEnd has checked every escape already.
	buf := d.scratch[:0]
	i, seg := start, start
	for {
		k := bytes.IndexByte(data[i:end], '\\')
		if k < 0 {
			break
		}
		k += i
		buf = append(buf, data[seg:k]...)
		buf, _, i = appendEscape(buf, data[:end], k)
		seg = i
	}
	buf = append(buf, data[seg:end]...)
	d.scratch = buf
	return buf, true
}

// appendEscape appends the character of the escape at s[k] ('\\'), which
// stringEnd has validated, and returns it and the index just past it.
func appendEscape(buf, s []byte, k int) ([]byte, rune, int) {
	switch c := s[k+1]; c {
	case 'b':
		return append(buf, '\b'), '\b', k + 2
	case 'f':
		return append(buf, '\f'), '\f', k + 2
	case 'n':
		return append(buf, '\n'), '\n', k + 2
	case 'r':
		return append(buf, '\r'), '\r', k + 2
	case 't':
		return append(buf, '\t'), '\t', k + 2
	case 'u':
		r, n := unicodeEscape(s[k:])
		return utf8.AppendRune(buf, r), r, k + n
	default: // '"', '\\', '/'
		return append(buf, c), rune(c), k + 2
	}
}

// textHead is the value of the JSON string data[start:end] (quotes
// included; stringEnd has validated it) through its first line holding a
// non-space rune, without the '\n' ending that line; all of it when no
// line holds one.
func (d *lineDecoder) textHead(start, end int) (string, bool) {
	buf, _, _ := textHeadOf(d.scratch[:0], d.data[start+1:end-1])
	d.scratch = buf
	if !utf8.Valid(buf) {
		return "", false // encoding/json replaces invalid bytes
	}
	return string(buf), true
}

// textHeadOf appends to buf the head textHead takes of a string body
// (escapes whole, as stringEnd validated them), and says whether the body
// holds the '\n' that ends it (whole: a longer body gives the same head)
// and where in body that escape ends. A line ends only at an escape (\n
// or \u000a), so the raw bytes between escapes are appended whole.
func textHeadOf(buf, body []byte) (head []byte, end int, whole bool) {
	text := false // the line being built holds a non-space rune
	for i := 0; ; {
		k := bytes.IndexByte(body[i:], '\\')
		seg := body[i:]
		if k >= 0 {
			seg = seg[:k]
		}
		buf = append(buf, seg...)
		if !text {
			text = hasText(seg)
		}
		if k < 0 {
			return buf, len(body), false
		}
		var r rune
		n := len(buf)
		buf, r, i = appendEscape(buf, body, i+k)
		if r == '\n' {
			if text {
				return buf[:n], i, true
			}
			continue
		}
		if !text && !unicode.IsSpace(r) {
			text = true
		}
	}
}

// hasText reports whether b holds a rune that is not a space (as
// unicode.IsSpace, which strings.TrimSpace trims); invalid UTF-8 counts as
// text, as the U+FFFD encoding/json would make of it.
func hasText(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			return true
		}
		i += n
	}
	return false
}

// throughFirstTextLine is what ScanFold keeps of a failed tool's output:
// s up to the '\n' ending its first line holding a non-space rune, or s
// when no line does. textHead builds the same from the raw JSON.
func throughFirstTextLine(s string) string {
	at := 0
	for {
		line, _, more := strings.Cut(s[at:], "\n")
		if strings.TrimSpace(line) != "" {
			return s[:at+len(line)]
		}
		if !more {
			return s
		}
		at += len(line) + 1
	}
}

// unicodeEscape reads \uXXXX (and its low surrogate \uYYYY if XXXX is a high
// one) at the start of s: the rune and the bytes used, 0 when the escape is
// malformed or a surrogate is unpaired.
func unicodeEscape(s []byte) (rune, int) {
	r := hex4(s)
	if r < 0 {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	r2 := hex4(s[6:])
	if r2 < 0 {
		return 0, 0
	}
	dec := utf16.DecodeRune(r, r2)
	if dec == utf8.RuneError {
		return 0, 0
	}
	return dec, 12
}

// hex4 is the value of \uXXXX at the start of s, or -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// skipString validates a JSON string at d.pos without building it. JSON
// syntax does not ask for valid UTF-8, so neither does this.
func (d *lineDecoder) skipString() bool {
	if !d.consume('"') {
		return false
	}
	end, _, ok := d.stringEnd(d.pos, cutNever)
	if ok {
		d.pos = end + 1
	}
	return ok
}

// stringEnd is stringEnd of d.data from i, reading more of a long line
// as it needs it; cut says whether a long line may drop what it has
// scanned of the body (see longLine.stringEnd).
func (d *lineDecoder) stringEnd(i int, cut cutMode) (end int, escaped bool, ok bool) {
	if d.long != nil {
		return d.long.stringEnd(d, i, cut)
	}
	return stringEnd(d.data, i)
}

// rawValue validates one JSON value at d.pos and returns its bytes, as
// encoding/json hands them to a json.RawMessage.
func (d *lineDecoder) rawValue() ([]byte, bool) {
	start := d.pos
	if !d.skipValue(0) {
		return nil, false
	}
	return d.data[start:d.pos], true
}

func (d *lineDecoder) skipValue(depth int) bool {
	if depth > maxFastDepth || d.pos >= len(d.data) {
		return false
	}
	switch c := d.data[d.pos]; {
	case c == '"':
		return d.skipString()
	case c == '{':
		d.pos++
		d.ws()
		if d.consume('}') {
			return true
		}
		for {
			if !d.skipString() {
				return false
			}
			d.ws()
			if !d.consume(':') {
				return false
			}
			d.ws()
			if !d.skipValue(depth + 1) {
				return false
			}
			d.ws()
			if d.consume(',') {
				d.ws()
				continue
			}
			return d.consume('}')
		}
	case c == '[':
		d.pos++
		d.ws()
		if d.consume(']') {
			return true
		}
		for {
			if !d.skipValue(depth + 1) {
				return false
			}
			d.ws()
			if d.consume(',') {
				d.ws()
				continue
			}
			return d.consume(']')
		}
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.skipNumber()
	}
	return false
}

func (d *lineDecoder) literal(word string) bool {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

// skipNumber validates a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *lineDecoder) skipNumber() bool {
	data, i := d.data, d.pos
	digits := func() int {
		j := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	d.pos = i
	return true
}

// ScanFold is Scan for folds that never read the output of a successful
// tool call, and of a failed one only its first line with text, such as
// the tape builder (which quotes that line) and the state fold (Info.Add):
// every output is validated exactly as Scan validates it, but the output
// of a tool event whose "ok" is not false is left empty in ev.Tool.Output,
// and a failed one ("ok": false) is cut after its first line holding a
// non-space rune (strings.TrimSpace(line) != ""), without that line's
// '\n'; a MiB stack trace is not built to quote its first line. The
// timestamp ("ts"), which no fold reads, is validated and left empty.
// Everything else, the seq chain, errors and torn tails included, is as in
// Scan.
//
// Lines are decoded by runtime.GOMAXPROCS(0) goroutines while fn runs: fn
// is called in order, on the caller's goroutine, and at most
// foldAheadBytes of lines are read ahead of it.
func ScanFold(r io.Reader, path string, from ScanFrom, fn func(ev *Event, raw []byte, off int64) error) (ScanResult, error) {
	var fold func(*Event, []byte, int, LineSum, int64) error
	if fn != nil {
		fold = func(ev *Event, raw []byte, _ int, _ LineSum, off int64) error { return fn(ev, raw, off) }
	}
	return scanFold(r, path, from, false, fold)
}

// LineSum is the XXH3-128 of one raw log line (without its '\n'), 16
// bytes big-endian, high half first: what the tape's prefix hash
// (graft-prefix-v2) reads of each event.
type LineSum [16]byte

// SumLine is the LineSum of raw.
func SumLine(raw []byte) LineSum { return xxh3.Hash128(raw).Bytes() }

// ScanFoldSums is ScanFold for folds that read of a line only its length
// (without the '\n') and its LineSum, not its bytes, such as the tape's
// prefix hash. The sum is computed by the decoder goroutines right after
// they decode the line, while it is in their cache: the caller's
// goroutine, which runs the fold, does not read the bytes again. When r
// is also an io.ReaderAt and an io.Seeker (an *os.File, an
// io.SectionReader), a line longer than a batch is decoded as it is read
// and never held whole (see longline.go); it is read again through
// ReadAt, from r's position when the scan starts, only if it cannot be
// decoded that way.
func ScanFoldSums(r io.Reader, path string, from ScanFrom, fn func(ev *Event, size int, sum LineSum, off int64) error) (ScanResult, error) {
	var fold func(*Event, []byte, int, LineSum, int64) error
	if fn != nil {
		fold = func(ev *Event, _ []byte, size int, sum LineSum, off int64) error { return fn(ev, size, sum, off) }
	}
	return scanFold(r, path, from, true, fold)
}

// scanFold calls fn with each line's event, bytes (nil for a long line
// of ScanFoldSums), length, sum (when sums) and offset.
func scanFold(r io.Reader, path string, from ScanFrom, sums bool, fn func(ev *Event, raw []byte, size int, sum LineSum, off int64) error) (ScanResult, error) {
	if from.Line == 0 {
		from.Line = 1
	}
	if from.NextSeq == 0 {
		from.NextSeq = 1
	}
	res := ScanResult{End: from.Offset, LastSeq: from.NextSeq - 1}
	want := from.NextSeq
	p := startFoldPipeline(r, from, max(1, runtime.GOMAXPROCS(0)), sums)
	defer p.stop()
	for b := p.next(); b != nil; b = p.next() {
		for k := range b.lines {
			ln := &b.lines[k]
			if ln.err != nil {
				return res, &CorruptError{Path: path, Line: ln.num, Offset: ln.off, Err: ln.err}
			}
			if ln.ev.Seq != want {
				return res, &SeqError{Path: path, Line: ln.num, Offset: ln.off, Want: want, Got: ln.ev.Seq}
			}
			var raw []byte
			if b.buf != nil {
				raw = b.buf[ln.start:ln.end]
			}
			want++
			res.Events++
			res.LastSeq = ln.ev.Seq
			res.End = ln.off + int64(ln.size) + 1
			if fn != nil {
				if err := fn(&ln.ev, raw, ln.size, ln.sum, ln.off); err != nil {
					return res, err
				}
			}
		}
		p.release(b)
	}
	// The reader stopped: at the end, at a torn tail, or on a read error.
	if p.torn != nil {
		res.Torn = p.torn
		return res, nil
	}
	if p.readErr != nil {
		return res, fmt.Errorf("session: reading %s at byte offset %d: %w", path, p.readErrOff, p.readErr)
	}
	return res, nil
}

// Read-ahead of ScanFold: lines travel in batches, so that a channel
// operation is paid per batch rather than per line.
const (
	foldBatchBytes = 256 << 10
	foldBatchLines = 512
	foldAheadBytes = 4 << 20  // two long lines in flight; more costs RSS (issue 9: ≤ 64 MiB)
	foldTokenBytes = 64 << 10 // the unit of the read-ahead budget
	foldReadBytes  = 64 << 10 // the least a read asks for
	// foldBufBytes holds a full batch and one more read, so that filling
	// a batch never reallocates it; only a line longer than that grows it.
	foldBufBytes = foldBatchBytes + 2*foldReadBytes
	// keptLongs long-line buffers of at most maxKeptLong bytes each are
	// recycled: enough for the lines in flight between the reader, the
	// decoders and the caller.
	keptLongs   = 2
	maxKeptLong = 16 << 20
)

type foldLine struct {
	start, end int // the line is buf[start:end], unless read as a long line
	size       int // the line's length, without its '\n'
	off        int64
	num        int
	ev         Event
	sum        LineSum // when the pipeline sums lines
	err        error
}

type foldBatch struct {
	buf    []byte
	lines  []foldLine
	tokens int
	done   chan struct{} // closed once the lines are decoded
	decode bool          // for the decoders; else decoded by the reader
}

// foldPipeline is one reader goroutine, decoder goroutines, and the
// caller taking decoded batches in order.
type foldPipeline struct {
	ordered chan *foldBatch // every batch, in order, for the caller
	work    chan *foldBatch // the same batches, for the decoders
	budget  chan struct{}   // tokens of read-ahead
	free    chan *foldBatch
	longMu  sync.Mutex
	longs   [][]byte // long-line buffers, recycled (see newLong)
	quit    chan struct{}
	wg      sync.WaitGroup
	// Long lines decoded as they are read (see longline.go), when the
	// pipeline sums lines and can read a line again: ra.ReadAt(p, raAt+off)
	// reads the log at offset off.
	ra      io.ReaderAt
	raAt    int64
	long    longLine
	longDec lineDecoder
	// How the reader stopped; written before it closes ordered.
	torn       *Torn
	readErr    error
	readErrOff int64
}

func startFoldPipeline(r io.Reader, from ScanFrom, decoders int, sums bool) *foldPipeline {
	batches := foldAheadBytes / foldTokenBytes
	p := &foldPipeline{
		ordered: make(chan *foldBatch, batches),
		work:    make(chan *foldBatch, batches),
		budget:  make(chan struct{}, batches),
		// Room for every batch the read-ahead lets live at once: a batch
		// dropped here is a batch buffer allocated and zeroed again.
		free: make(chan *foldBatch, batches+4*decoders),
		quit: make(chan struct{}),
	}
	p.longDec.mode = decodeFold
	if ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok && sums {
		if at, err := ra.Seek(0, io.SeekCurrent); err == nil {
			p.ra, p.raAt = ra, at-from.Offset
		}
	}
	p.wg.Add(1 + decoders)
	go p.read(r, from.Offset, from.Line)
	for range decoders {
		go p.decode(sums)
	}
	return p
}

func (p *foldPipeline) newBatch() *foldBatch {
	var b *foldBatch
	select {
	case b = <-p.free:
	default:
		b = &foldBatch{}
	}
	if b.buf == nil {
		b.buf = p.newBuf()
	}
	b.buf, b.lines, b.tokens, b.done, b.decode = b.buf[:0], b.lines[:0], 0, make(chan struct{}), true
	return b
}

// newBuf is an empty batch buffer: room for a full batch and one more
// read, so that filling a batch never reallocates it.
func (p *foldPipeline) newBuf() []byte {
	return make([]byte, 0, foldBufBytes)
}

// read cuts the log into batches of whole lines, reading straight into
// the batch buffers, until it ends or the caller quits. The bytes after a
// batch's last newline start the next batch. A line longer than a batch
// buffer is decoded as it is read when the pipeline can (readLong); else
// it moves to a long-line buffer (recycled, see newLong) and the rest of
// it is read straight into that, so a MiB line is neither copied nor
// zeroed again once the buffers have grown to the log's longest lines.
func (p *foldPipeline) read(r io.Reader, off int64, num int) {
	defer p.wg.Done()
	defer close(p.work)
	defer close(p.ordered)
	send := func(b *foldBatch) bool {
		b.tokens = min(cap(p.budget), (len(b.buf)+foldTokenBytes-1)/foldTokenBytes)
		for range b.tokens {
			select {
			case p.budget <- struct{}{}:
			case <-p.quit:
				return false
			}
		}
		for _, ch := range []chan *foldBatch{p.ordered, p.work} {
			if ch == p.work && !b.decode {
				break
			}
			select {
			case ch <- b:
			case <-p.quit:
				return false
			}
		}
		return true
	}
	b := p.newBatch()
	lineStart := 0  // in b.buf: the start of the line being read
	var long []byte // a long line read so far, when one is read
	for {
		var n int
		var err error
		// Only the start of one line fills b (a batch with a complete line
		// is sent before it fills): it is a long line.
		isLong := long == nil && cap(b.buf)-len(b.buf) < foldReadBytes
		switch {
		case isLong && p.ra != nil:
			// Decoded as it is read (longline.go).
			lb, next, size, rerr := p.readLong(r, b.buf, off, num)
			b.buf = b.buf[:0]
			if lb == nil {
				if rerr == io.EOF {
					p.torn = &Torn{Offset: off, Bytes: size}
				} else {
					p.readErr, p.readErrOff = rerr, off
				}
				return
			}
			off += size + 1
			num++
			if !send(lb) {
				return
			}
			b.buf = append(b.buf, next...)
			lineStart = 0
			err = p.cutLines(b, &lineStart, 0, &off, &num, rerr)
		case isLong || long != nil:
			if long == nil {
				long = append(p.newLong(2*len(b.buf)), b.buf...)
				b.buf = b.buf[:0]
			}
			if cap(long)-len(long) < foldReadBytes {
				long = p.growLong(long)
			}
			// At most a batch's worth past the line's end can be read, so
			// the rest always fits the batch buffer.
			n, err = r.Read(long[len(long):min(cap(long), len(long)+foldBatchBytes)])
			scanned := len(long)
			long = long[:scanned+n]
			i := bytes.IndexByte(long[scanned:], '\n')
			if i < 0 && err == nil {
				continue
			}
			if i >= 0 {
				end := scanned + i
				lb := &foldBatch{buf: long[:end], lines: []foldLine{{start: 0, end: end, size: end, off: off, num: num}}, done: make(chan struct{}), decode: true}
				off += int64(end + 1)
				num++
				b.buf = append(b.buf[:0], long[end+1:]...)
				long = nil
				if !send(lb) {
					return
				}
				lineStart = 0
				err = p.cutLines(b, &lineStart, 0, &off, &num, err)
			}
		default:
			n, err = r.Read(b.buf[len(b.buf):cap(b.buf)])
			scanned := len(b.buf)
			b.buf = b.buf[:scanned+n]
			err = p.cutLines(b, &lineStart, scanned, &off, &num, err)
		}
		if err == nil && len(b.lines) > 0 && (len(b.buf) >= foldBatchBytes || len(b.lines) >= foldBatchLines) {
			next := p.newBatch()
			next.buf = append(next.buf, b.buf[lineStart:]...)
			b.buf = b.buf[:lineStart]
			if !send(b) {
				return
			}
			b, lineStart = next, 0
		}
		if err == nil {
			continue
		}
		// The end, a torn tail, or a read error: the complete lines go first.
		rest := int64(len(long) + len(b.buf) - lineStart)
		b.buf = b.buf[:lineStart]
		if len(b.lines) > 0 && !send(b) {
			return
		}
		switch {
		case err != io.EOF:
			p.readErr, p.readErrOff = err, off
		case rest > 0:
			p.torn = &Torn{Offset: off, Bytes: rest}
		}
		return
	}
}

// cutLines adds to b the complete lines of b.buf from scanned on, and
// returns err.
func (p *foldPipeline) cutLines(b *foldBatch, lineStart *int, scanned int, off *int64, num *int, err error) error {
	for {
		i := bytes.IndexByte(b.buf[scanned:], '\n')
		if i < 0 {
			return err
		}
		end := scanned + i
		b.lines = append(b.lines, foldLine{start: *lineStart, end: end, size: end - *lineStart, off: *off, num: *num})
		*off += int64(end + 1 - *lineStart)
		*num++
		*lineStart, scanned = end+1, end+1
	}
}

// newLong is an empty long-line buffer of at least n bytes: the largest
// recycled one when there is one, so that lines of mixed lengths do not
// grow small buffers again and again.
func (p *foldPipeline) newLong(n int) []byte {
	p.longMu.Lock()
	defer p.longMu.Unlock()
	best := -1
	for k, buf := range p.longs {
		if best < 0 || cap(buf) > cap(p.longs[best]) {
			best = k
		}
	}
	if best >= 0 && cap(p.longs[best]) >= n {
		buf := p.longs[best]
		p.longs = slices.Delete(p.longs, best, best+1)
		return buf[:0]
	}
	return make([]byte, 0, n)
}

// growLong grows a long-line buffer by half.
func (p *foldPipeline) growLong(buf []byte) []byte {
	return append(make([]byte, 0, cap(buf)+cap(buf)/2), buf...)
}

// putLong recycles a long-line buffer: keptLongs are kept, the largest
// ones, each at most maxKeptLong bytes (one giant line must not pin its
// size for the whole scan).
func (p *foldPipeline) putLong(buf []byte) {
	if cap(buf) > maxKeptLong {
		return
	}
	p.longMu.Lock()
	defer p.longMu.Unlock()
	if len(p.longs) < keptLongs {
		p.longs = append(p.longs, buf[:0])
		return
	}
	small := 0
	for k := range p.longs {
		if cap(p.longs[k]) < cap(p.longs[small]) {
			small = k
		}
	}
	if cap(buf) > cap(p.longs[small]) {
		p.longs[small] = buf[:0]
	}
}

// decode decodes batches until the reader closes work. A batch stops at
// its first bad line: the caller stops there too.
func (p *foldPipeline) decode(sums bool) {
	defer p.wg.Done()
	d := lineDecoder{mode: decodeFold}
	for b := range p.work {
		select {
		case <-p.quit:
		default:
			for k := range b.lines {
				ln := &b.lines[k]
				line := b.buf[ln.start:ln.end]
				if ln.err = d.decode(line, &ln.ev); ln.err != nil {
					break
				}
				if sums {
					ln.sum = SumLine(line)
				}
			}
		}
		close(b.done)
	}
}

// next returns the next batch once decoded; nil when the reader is done.
func (p *foldPipeline) next() *foldBatch {
	b, ok := <-p.ordered
	if !ok {
		return nil
	}
	<-b.done
	return b
}

// release gives a batch's read-ahead back and recycles it; the buffer of
// a long line goes to the garbage collector.
func (p *foldPipeline) release(b *foldBatch) {
	for range b.tokens {
		<-p.budget
	}
	if cap(b.buf) != foldBufBytes {
		// A long line's batch: its buffer is recycled as a long one, and
		// the batch is not (it has no batch buffer to give).
		if b.buf != nil {
			p.putLong(b.buf)
		}
		return
	}
	select {
	case p.free <- b:
	default:
	}
}

// stop ends the reader and the decoders and waits for them, so nothing
// reads the caller's reader after ScanFold returns. It must not wait for
// batches still queued: after quit, the reader's send of a batch may put
// it in ordered and, choosing quit over work, never hand it to a decoder.
// Every send selects on quit, so the reader returns (closing work, which
// ends the decoders) without anyone draining ordered.
func (p *foldPipeline) stop() {
	close(p.quit)
	p.wg.Wait()
}

// decoders recycle the scratch buffers of decodeLine, which has no scan to
// hang one on.
var decoders = sync.Pool{New: func() any { return &lineDecoder{mode: decodeAll} }}
