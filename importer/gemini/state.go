package gemini

import (
	"encoding/json"
	"slices"
	"strconv"
)

// appendState is json.Marshal(st), byte for byte, written into one buffer
// (issue 25): the state of a long session holds every message and tool call
// id, and encoding/json's reflection over its maps took a peak of memory
// several times its size at each cursor write. TestSaveStateIsMarshal
// checks it against json.Marshal.
func appendState(b []byte, st *mapState) ([]byte, error) {
	b = append(b, '{')
	first := true
	field := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
	}
	var err error
	if len(st.Msgs) > 0 {
		field("msgs")
		b = append(b, '{')
		for j, id := range sortedKeys(st.Msgs) {
			if j > 0 {
				b = append(b, ',')
			}
			if b, err = appendString(b, id); err != nil {
				return nil, err
			}
			b = append(b, ':')
			mk := st.Msgs[id]
			if mk == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, '{')
			if mk.Text != "" {
				b = append(b, `"t":`...)
				if b, err = appendString(b, mk.Text); err != nil {
					return nil, err
				}
			}
			if mk.Thoughts != 0 {
				if mk.Text != "" {
					b = append(b, ',')
				}
				b = append(b, `"th":`...)
				b = strconv.AppendInt(b, int64(mk.Thoughts), 10)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if len(st.List) > 0 {
		field("list")
		if b, err = appendStrings(b, st.List); err != nil {
			return nil, err
		}
	}
	if len(st.Calls) > 0 {
		field("calls")
		b = append(b, '{')
		for j, id := range sortedKeys(st.Calls) {
			if j > 0 {
				b = append(b, ',')
			}
			if b, err = appendString(b, id); err != nil {
				return nil, err
			}
			b = append(b, ':')
			c := st.Calls[id]
			if c == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, `{"n":`...)
			if b, err = appendString(b, c.Name); err != nil {
				return nil, err
			}
			if c.Done {
				b = append(b, `,"d":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if len(st.Told) > 0 {
		field("told")
		if b, err = appendStrings(b, st.Told); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func appendStrings(b []byte, ss []string) ([]byte, error) {
	b = append(b, '[')
	for j, s := range ss {
		if j > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendString(b, s); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendString is s as json.Marshal writes it: as it is when it is
// printable ASCII that needs no escape (ids, digests, tool names), else
// through json.Marshal.
func appendString(b []byte, s string) ([]byte, error) {
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			return append(b, q...), err
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// stateSize is about the size of st's JSON, to make its buffer once.
func stateSize(st *mapState) int {
	n := 64
	for id := range st.Msgs {
		n += len(id) + 32
	}
	for _, id := range st.List {
		n += len(id) + 3
	}
	for id, c := range st.Calls {
		n += len(id) + 24
		if c != nil {
			n += len(c.Name)
		}
	}
	for _, t := range st.Told {
		n += len(t) + 3
	}
	return n
}
