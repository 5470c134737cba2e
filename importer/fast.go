package importer

import "github.com/graft-project/graft/session/logscan"

// List reads a JSON array with elem, one element each, into *dst as
// json.Unmarshal does into a nil slice: [] is an empty, non-nil slice.
// null is the caller's to read first. It is a part of the importers' fast
// paths (issue 25): false where elem says false, and *dst then holds the
// elements read so far.
func List[T any](d *logscan.Decoder, dst *[]T, elem func(*T) bool) bool {
	out := []T{}
	ok := d.Array(func() bool {
		var zero T
		out = append(out, zero) // read in place: a local passed to elem would escape
		if !elem(&out[len(out)-1]) {
			out = out[:len(out)-1]
			return false
		}
		return true
	})
	*dst = out
	return ok
}

// Nullable reads null as a nil *dst, as json.Unmarshal does into a
// pointer, or else a new T, which *dst points to, with elem.
func Nullable[T any](d *logscan.Decoder, dst **T, elem func(*T) bool) bool {
	if d.Null() {
		*dst = nil
		return true
	}
	v := new(T)
	*dst = v
	return elem(v)
}
