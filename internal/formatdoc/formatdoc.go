// Package formatdoc lets a package that owns an on-disk format check that
// its doc.go still names every JSON field its types write: a field added to
// a struct but not to the format doc fails that package's tests.
package formatdoc

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// Missing returns the JSON fields of the given values' types (structs,
// followed through pointers, slices, arrays and maps into nested structs)
// that doc does not name as a whole word, each as "Type.Field (name)".
// Types that encode themselves (json.Marshaler, encoding.TextMarshaler,
// such as time.Time) are leaves: their insides are not fields of the format.
func Missing(doc string, values ...any) []string {
	var missing []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || encodesItself(t) {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walk(f.Type) // embedded: its fields are this object's fields
				continue
			}
			if name == "" {
				name = f.Name
			}
			if !regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_])`).MatchString(doc) {
				missing = append(missing, fmt.Sprintf("%s.%s (%s)", t.Name(), f.Name, name))
			}
			walk(f.Type)
		}
	}
	for _, v := range values {
		walk(reflect.TypeOf(v))
	}
	return missing
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func encodesItself(t reflect.Type) bool {
	for _, tt := range []reflect.Type{t, reflect.PointerTo(t)} {
		if tt.Implements(jsonMarshaler) || tt.Implements(textMarshaler) {
			return true
		}
	}
	return false
}
