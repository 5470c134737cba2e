package hookinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The settings files are edited as ordered lists of raw JSON spans: a value
// graft does not change is written back as the very bytes it was read as
// (only re-indented), and every object keeps its key order. Nothing goes
// through map[string]any.

// member is one key of an object: the key as written (quotes and escapes
// included), the key decoded, and the value's bytes.
type member struct {
	rawKey []byte
	key    string
	val    []byte
	off    int // byte offset of val in the file, for error messages
}

// object is a JSON object's members in file order.
type object []member

// index returns the position of key, or -1.
func (o object) index(key string) int {
	for i, m := range o {
		if m.key == key {
			return i
		}
	}
	return -1
}

// element is one value of an array and its offset in the file.
type element struct {
	val []byte
	off int
}

// parseError is a settings file refused: its message names the place in the
// file, and nothing is written.
type parseError struct {
	off int
	msg string
}

func (e *parseError) Error() string { return e.msg }

// scanner walks JSON that json.Valid has already accepted, so it only has
// to find where values begin and end.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// str skips the string starting at s.pos.
func (s *scanner) str() {
	s.pos++ // opening quote
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			s.pos += 2
		case '"':
			s.pos++
			return
		default:
			s.pos++
		}
	}
}

// value skips one value starting at s.pos (after ws).
func (s *scanner) value() {
	switch s.data[s.pos] {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.pos++
			if depth == 0 {
				return
			}
		}
	default: // number, true, false, null
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return
			}
			s.pos++
		}
	}
}

// kind names the JSON type of a raw value by its first byte.
func kind(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// parseObject splits the object v (valid JSON, at file offset off) into its
// members. A key that appears twice is refused: hosts keep only one of them,
// and graft could not tell which.
func parseObject(v []byte, off int, what string) (object, error) {
	s := &scanner{data: v}
	s.ws()
	if s.pos >= len(v) || v[s.pos] != '{' {
		return nil, &parseError{off + s.pos, fmt.Sprintf("%s is %s, not an object", what, kind(v))}
	}
	s.pos++
	var o object
	for {
		s.ws()
		if v[s.pos] == '}' {
			return o, nil
		}
		if v[s.pos] == ',' {
			s.pos++
			s.ws()
		}
		kstart := s.pos
		s.str()
		rawKey := v[kstart:s.pos]
		var key string
		if err := json.Unmarshal(rawKey, &key); err != nil {
			return nil, &parseError{off + kstart, fmt.Sprintf("%s: key %s: %v", what, rawKey, err)}
		}
		if o.index(key) >= 0 {
			return nil, &parseError{off + kstart, fmt.Sprintf("%s has the key %q twice", what, key)}
		}
		s.ws()
		s.pos++ // ':'
		s.ws()
		vstart := s.pos
		s.value()
		o = append(o, member{rawKey: rawKey, key: key, val: v[vstart:s.pos], off: off + vstart})
	}
}

// parseArray splits the array v (valid JSON, at file offset off) into its
// elements.
func parseArray(v []byte, off int, what string) ([]element, error) {
	s := &scanner{data: v}
	s.ws()
	if s.pos >= len(v) || v[s.pos] != '[' {
		return nil, &parseError{off + s.pos, fmt.Sprintf("%s is %s, not an array", what, kind(v))}
	}
	s.pos++
	var a []element
	for {
		s.ws()
		if v[s.pos] == ']' {
			return a, nil
		}
		if v[s.pos] == ',' {
			s.pos++
			s.ws()
		}
		start := s.pos
		s.value()
		a = append(a, element{val: v[start:s.pos], off: off + start})
	}
}

// encodeObject writes o compactly: raw keys and values as they were.
func encodeObject(o object) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.rawKey)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// encodeArray writes a compactly: raw elements as they were.
func encodeArray(a []element) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e.val)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// set replaces key's value, or appends key at the end.
func (o object) set(key string, val []byte) object {
	if i := o.index(key); i >= 0 {
		o[i].val = val
		return o
	}
	return append(o, member{rawKey: marshal(key), key: key, val: val})
}

// remove drops key.
func (o object) remove(key string) object {
	if i := o.index(key); i >= 0 {
		return append(o[:i:i], o[i+1:]...)
	}
	return o
}

// marshal encodes v without HTML escaping (a command's "&&" stays "&&").
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only graft's own plain structs and strings are marshaled
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// indentOf guesses the indent unit of a file: the leading blanks of its
// second line, else two spaces (what Claude Code and Codex write).
func indentOf(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		rest := data[i+1:]
		n := 0
		for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
			n++
		}
		if n > 0 && n < len(rest) && rest[n] != '\n' && rest[n] != '\r' {
			return string(rest[:n])
		}
	}
	return "  "
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
