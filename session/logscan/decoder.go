package logscan

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// Decoder reads the JSON of one line at a time for a schema's fast path
// (session's event decoder): the schema walks the line with these
// primitives and fills its own type. Each primitive reads exactly what
// encoding/json.Unmarshal would read into the matching Go value, or
// reports false and leaves the line to the schema's fallback: a syntax or
// type error, a key with escapes or not plain ASCII, invalid UTF-8 in a
// built string, a lone surrogate, a number that is not a plain integer,
// nesting deeper than maxFastDepth. What a primitive cannot know — an
// unknown or repeated key, a key in another case — the schema checks.
//
// A Decoder keeps, across lines, a scratch buffer to unescape strings and
// the values of a few fields (Intern); it is not safe for concurrent use.
// While a Pipeline decodes a long line as it reads it, data is only what
// has been read of the line so far, and reads on as a string runs past
// its end (see longline.go).
type Decoder struct {
	data    []byte
	pos     int
	scratch []byte
	// interned holds the values of a few fields (see Intern).
	interned map[string]string
	// long, when set, reads more of the line into data whenever a string
	// runs past its end (see longLine): data is then only what has been
	// read of the line, and the body of a skipped string may be cut out of
	// it as it is read (SkipStringCut).
	long *longLine
}

// maxFastDepth bounds the nesting the decoder follows in a raw value (a
// tool input); deeper values go to encoding/json, whose own limit is 10000.
const maxFastDepth = 512

// maxKeptScratch is the largest unescape buffer a decoder keeps between
// lines.
const maxKeptScratch = 256 << 10

// Reset makes d read data from its first byte.
func (d *Decoder) Reset(data []byte) { d.data, d.pos = data, 0 }

// Release drops the line d read, and its scratch buffer if one long
// string grew it past maxKeptScratch (it must not pin its size for the
// whole scan).
func (d *Decoder) Release() {
	d.data = nil
	d.trimScratch()
}

func (d *Decoder) trimScratch() {
	if cap(d.scratch) > maxKeptScratch {
		d.scratch = nil
	}
}

// AtEnd reports whether d has read all of its data.
func (d *Decoder) AtEnd() bool { return d.pos == len(d.data) }

// Object reads {"key": value, ...}, calling field with d at each value;
// field reads the value, or reports false to give the line up. Keys must
// be plain ASCII without escapes (field names are).
func (d *Decoder) Object(field func(key []byte) bool) bool {
	if !d.Consume('{') {
		return false
	}
	d.WS()
	if d.Consume('}') {
		return true
	}
	for {
		key, ok := d.plainKey()
		if !ok {
			return false
		}
		d.WS()
		if !d.Consume(':') {
			return false
		}
		d.WS()
		if !field(key) {
			return false
		}
		d.WS()
		if d.Consume(',') {
			d.WS()
			continue
		}
		return d.Consume('}')
	}
}

// Array reads [v, ...], calling elem with d at each element.
func (d *Decoder) Array(elem func() bool) bool {
	if !d.Consume('[') {
		return false
	}
	d.WS()
	if d.Consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		d.WS()
		if d.Consume(',') {
			d.WS()
			continue
		}
		return d.Consume(']')
	}
}

func (d *Decoder) plainKey() ([]byte, bool) {
	if !d.Consume('"') {
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

// WS skips JSON whitespace.
func (d *Decoder) WS() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// Consume reads c if it is the next byte.
func (d *Decoder) Consume(c byte) bool {
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

// PeekNull reports whether a null literal is next, without reading it.
func (d *Decoder) PeekNull() bool {
	return len(d.data)-d.pos >= 4 && string(d.data[d.pos:d.pos+4]) == "null"
}

// Null reads a null literal if one is next; a null leaves a zero field
// zero, as in encoding/json.
func (d *Decoder) Null() bool {
	if d.PeekNull() {
		d.pos += 4
		return true
	}
	return false
}

// StringField reads a string or null into dst.
func (d *Decoder) StringField(dst *string) bool {
	if d.Null() {
		return true
	}
	s, ok := d.StringValue()
	*dst = s
	return ok
}

// BoolPtrField reads true, false or null into dst: a null leaves it nil.
func (d *Decoder) BoolPtrField(dst **bool) bool {
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

// Int64Field reads a plain integer or null into dst.
func (d *Decoder) Int64Field(dst *int64) bool {
	if d.Null() {
		return true
	}
	n, ok := d.integer(64)
	*dst = n
	return ok
}

// IntField reads a plain integer or null into dst.
func (d *Decoder) IntField(dst *int) bool {
	if d.Null() {
		return true
	}
	n, ok := d.integer(strconv.IntSize)
	*dst = int(n)
	return ok
}

// integer reads a JSON number that is a plain integer fitting in bitSize
// bits; a fraction or an exponent is left to encoding/json.
func (d *Decoder) integer(bitSize int) (int64, bool) {
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

// StringValue reads a JSON string and returns its value.
func (d *Decoder) StringValue() (string, bool) {
	b, ok := d.strBytes()
	return string(b), ok
}

// Interning: the values of a few fields (an event's type, a source's kind
// and name, a tool's name) come from a few words; a decoder builds each
// once.
const (
	maxInterned    = 256
	maxInternedLen = 64
)

// Intern is the string of b, the value of a string RawStringBytes read:
// built once per decoder for the first maxInterned short values, and
// neither built nor checked for UTF-8 again when met again (its bytes are
// those of a valid string). ok is false when b is not valid UTF-8.
func (d *Decoder) Intern(b []byte) (string, bool) {
	if v, ok := d.interned[string(b)]; ok {
		return v, true
	}
	if !utf8.Valid(b) {
		return "", false // encoding/json replaces invalid bytes
	}
	v := string(b)
	if len(v) <= maxInternedLen && len(d.interned) < maxInterned {
		if d.interned == nil {
			d.interned = make(map[string]string)
		}
		d.interned[v] = v
	}
	return v, true
}

// strBytes reads a JSON string and returns its value's bytes, in d.data
// or d.scratch: valid until the decoder reads on.
func (d *Decoder) strBytes() ([]byte, bool) {
	b, ok := d.RawStringBytes()
	if ok && !utf8.Valid(b) {
		return nil, false // encoding/json replaces invalid bytes
	}
	return b, ok
}

// RawStringBytes reads a JSON string and returns its value's bytes
// without checking that they are valid UTF-8 (see Intern): in d's line or
// its scratch buffer, valid until d reads on.
func (d *Decoder) RawStringBytes() ([]byte, bool) {
	if !d.Consume('"') {
		return nil, false
	}
	start := d.pos
	end, escaped, ok := d.stringEnd(start, CutNever)
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

// TextHead is the value of the JSON string d's line holds at [start, end)
// (quotes included, as SkipStringCut bounds it) through its first line
// holding a non-space rune, without the '\n' ending that line; all of it
// when no line holds one (ThroughFirstTextLine of the value).
func (d *Decoder) TextHead(start, end int) (string, bool) {
	buf, _, _ := textHeadOf(d.scratch[:0], d.data[start+1:end-1])
	d.scratch = buf
	if !utf8.Valid(buf) {
		return "", false // encoding/json replaces invalid bytes
	}
	return string(buf), true
}

// SkipString validates a JSON string without building it. JSON syntax
// does not ask for valid UTF-8, so neither does this.
func (d *Decoder) SkipString() bool {
	if !d.Consume('"') {
		return false
	}
	end, _, ok := d.stringEnd(d.pos, CutNever)
	if ok {
		d.pos = end + 1
	}
	return ok
}

// Cut says how much of a string's body a long line may drop once it has
// been validated (SkipStringCut).
type Cut uint8

const (
	CutNever     Cut = iota // the value is built or kept raw
	CutAll                  // none of it is read: a successful tool's output
	CutAfterHead            // only its head is read (TextHead): a failed tool's output, or one not known yet
)

// SkipStringCut is SkipString for a string of which at most the head is
// read afterwards, as cut says: while d reads a long line, the validated
// part of the body that cut lets go is dropped as it is read. start and
// end bound the string, quotes included, in d's line as it is after the
// cut (what TextHead takes).
func (d *Decoder) SkipStringCut(cut Cut) (start, end int, ok bool) {
	start = d.pos
	if ok = d.Consume('"'); ok {
		var e int
		if e, _, ok = d.stringEnd(d.pos, cut); ok {
			d.pos = e + 1
		}
	}
	return start, d.pos, ok
}

// stringEnd is stringEnd of d.data from i, reading more of a long line
// as it needs it; cut says whether a long line may drop what it has
// scanned of the body (see longLine.stringEnd).
func (d *Decoder) stringEnd(i int, cut Cut) (end int, escaped bool, ok bool) {
	if d.long != nil {
		return d.long.stringEnd(d, i, cut)
	}
	return stringEnd(d.data, i)
}

// RawValue validates one JSON value and returns its bytes, as
// encoding/json hands them to a json.RawMessage: valid until d reads on.
func (d *Decoder) RawValue() ([]byte, bool) {
	start := d.pos
	if !d.skipValue(0) {
		return nil, false
	}
	return d.data[start:d.pos], true
}

// SkipValue validates one JSON value without building it.
func (d *Decoder) SkipValue() bool { return d.skipValue(0) }

func (d *Decoder) skipValue(depth int) bool {
	if depth > maxFastDepth || d.pos >= len(d.data) {
		return false
	}
	switch c := d.data[d.pos]; {
	case c == '"':
		return d.SkipString()
	case c == '{':
		d.pos++
		d.WS()
		if d.Consume('}') {
			return true
		}
		for {
			if !d.SkipString() {
				return false
			}
			d.WS()
			if !d.Consume(':') {
				return false
			}
			d.WS()
			if !d.skipValue(depth + 1) {
				return false
			}
			d.WS()
			if d.Consume(',') {
				d.WS()
				continue
			}
			return d.Consume('}')
		}
	case c == '[':
		d.pos++
		d.WS()
		if d.Consume(']') {
			return true
		}
		for {
			if !d.skipValue(depth + 1) {
				return false
			}
			d.WS()
			if d.Consume(',') {
				d.WS()
				continue
			}
			return d.Consume(']')
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

func (d *Decoder) literal(word string) bool {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

// skipNumber validates a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *Decoder) skipNumber() bool {
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

// FieldSet tracks which keys of an object a fast path read (bit k for the
// k-th key it knows), to refuse a repeated key as encoding/json would not
// decode it the same way.
type FieldSet uint32

// First marks key k as read and reports whether it was not read before.
func (s *FieldSet) First(k uint) bool {
	if *s&(1<<k) != 0 {
		return false
	}
	*s |= 1 << k
	return true
}

// FoldsTo reports whether key matches one of keys only up to case, which
// encoding/json would decode into that field (a fast path then leaves the
// line to encoding/json).
func FoldsTo(key []byte, keys []string) bool {
	for _, k := range keys {
		if len(k) == len(key) && bytes.EqualFold(key, []byte(k)) {
			return true
		}
	}
	return false
}

// WholeString reads raw, a whole JSON text that is one string: its value,
// or false where encoding/json's answer may differ.
func (d *Decoder) WholeString(raw []byte) (string, bool) {
	d.Reset(raw)
	v, ok := d.StringValue()
	if !ok || !d.AtEnd() {
		return "", false
	}
	return v, true
}

// RawField reads a value into dst as its raw bytes (a slice of the text,
// as encoding/json's json.RawMessage holds it).
func (d *Decoder) RawField(dst *[]byte) bool {
	v, ok := d.RawValue()
	*dst = v
	return ok
}

// StringPtrField reads a string into *dst, or null as a nil *dst.
func (d *Decoder) StringPtrField(dst **string) bool {
	if d.Null() {
		*dst = nil
		return true
	}
	s, ok := d.StringValue()
	*dst = &s
	return ok
}

// BoolField reads true or false into *dst; null leaves it as it is, as
// encoding/json does.
func (d *Decoder) BoolField(dst *bool) bool {
	var p *bool
	if !d.BoolPtrField(&p) {
		return false
	}
	if p != nil {
		*dst = *p
	}
	return true
}

// WholeObject reads data, a whole JSON text that is one object, calling
// field for each key as Object does.
func (d *Decoder) WholeObject(data []byte, field func(key []byte) bool) bool {
	d.Reset(data)
	d.WS()
	ok := d.Object(field)
	d.WS()
	return ok && d.AtEnd()
}
