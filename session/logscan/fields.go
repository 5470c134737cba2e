package logscan

import "bytes"

// StringFields reads the string fields named keys of a JSON object, such as
// a tool call's input, without building the other values (a Write call's
// input holds a whole file): vals[i] is the value of keys[i], "" when
// absent or null. It answers exactly as encoding/json.Unmarshal into a
// struct with one string field per key would, or says ok false and leaves
// the input to encoding/json: when input is not a valid object, a key is
// escaped, not ASCII or matches a wanted key only up to case, a wanted key
// repeats, or a wanted value is not a string or null.
func StringFields(input []byte, keys ...string) (vals []string, ok bool) {
	d := Decoder{data: input}
	vals = make([]string, len(keys))
	seen := make([]bool, len(keys))
	d.WS()
	ok = d.Object(func(key []byte) bool {
		for i, k := range keys {
			if string(key) == k {
				if seen[i] {
					return false
				}
				seen[i] = true
				return d.StringField(&vals[i])
			}
		}
		for _, k := range keys {
			if bytes.EqualFold(key, []byte(k)) {
				return false // encoding/json matches keys up to case
			}
		}
		return d.skipValue(0)
	})
	d.WS()
	if !ok || d.pos != len(d.data) {
		return nil, false
	}
	return vals, true
}
