// Package nonnil gives an empty slice for a nil one, so that a JSON
// result says [] and not null where its schema promises an array.
package nonnil

// Slice is s, or an empty slice when s is nil.
func Slice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
