package session_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// filler sets every field of a value to something non-zero, by
// reflection, so that a field added to Event (or to a type it holds) is
// set without this test being told of it. Strings name their field and
// carry characters that need escapes; numbers count up from 1, with a
// negative one and the extremes of int64 in turn.
type filler struct {
	t *testing.T
	n int64
}

func (f *filler) fill(v reflect.Value, path string) {
	f.t.Helper()
	f.n++
	switch v.Kind() {
	case reflect.Struct:
		typ := v.Type()
		for i := range typ.NumField() {
			sf := typ.Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue
			}
			f.fill(v.Field(i), path+"."+sf.Name)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), path)
	case reflect.String:
		v.SetString(fmt.Sprintf("%s <%d> \"q\" \\ é 🎉\n\tend", path, f.n))
	case reflect.Int, reflect.Int64:
		n := []int64{f.n, -f.n, 1<<31 - 1}[f.n%3]
		if v.Kind() == reflect.Int64 && f.n%4 == 0 {
			n = -1 << 63
		}
		v.SetInt(n)
	case reflect.Bool:
		v.SetBool(true) // false is zero: *bool gets false below
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(fmt.Sprintf(`{"path":%q,"n":[1,-2.5e3,true,null,{"k":"v"}]}`, path)))
			return
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			f.t.Fatalf("%s: a []byte field: encoding/json writes it as base64; teach the decoder and this test", path)
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for k := range 2 {
			f.fill(s.Index(k), fmt.Sprintf("%s[%d]", path, k))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for k := range 2 {
			key := reflect.New(v.Type().Key()).Elem()
			f.fill(key, fmt.Sprintf("%s key %d", path, k))
			val := reflect.New(v.Type().Elem()).Elem()
			f.fill(val, fmt.Sprintf("%s[%d]", path, k))
			m.SetMapIndex(key, val)
		}
		v.Set(m)
	default:
		f.t.Fatalf("%s: a field of kind %s, which this test cannot fill: teach it (and the decoder)", path, v.Kind())
	}
}

// checkNonZero fails for any field of v, at any depth, that is zero: the
// event must carry every field, or its line would not show one.
func checkNonZero(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	if v.IsZero() {
		t.Fatalf("%s is zero: the filler missed it", path)
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if sf := v.Type().Field(i); sf.IsExported() && sf.Tag.Get("json") != "-" {
				checkNonZero(t, v.Field(i), path+"."+sf.Name)
			}
		}
	case reflect.Pointer:
		if v.Elem().Kind() != reflect.Bool {
			checkNonZero(t, v.Elem(), path)
		}
	case reflect.Slice:
		if v.Type() != reflect.TypeFor[json.RawMessage]() {
			for k := range v.Len() {
				checkNonZero(t, v.Index(k), fmt.Sprintf("%s[%d]", path, k))
			}
		}
	}
}

// jsonKeys lists the JSON names of every field of typ and of the types
// it holds, as "Type.key".
func jsonKeys(typ reflect.Type, seen map[reflect.Type]bool, out *[]string) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		if typ == reflect.TypeFor[json.RawMessage]() {
			return
		}
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || seen[typ] {
		return
	}
	seen[typ] = true
	for i := range typ.NumField() {
		sf := typ.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		*out = append(*out, typ.Name()+"."+name)
		jsonKeys(sf.Type, seen, out)
	}
}

// TestFastPathDecodesEveryEventField: an event with every field of Event
// and of the types it holds set (by reflection, so a new field is set
// too), as the store's Encode writes it, is decoded by the fast path —
// not handed to encoding/json — in both modes, and the result is
// encoding/json's. A field the fast decoder has no case for sends the
// line to encoding/json and fails this test by name.
func TestFastPathDecodesEveryEventField(t *testing.T) {
	var keys []string
	jsonKeys(reflect.TypeFor[session.Event](), map[reflect.Type]bool{}, &keys)
	t.Logf("%d JSON fields: %s", len(keys), strings.Join(keys, " "))
	for _, ok := range []bool{true, false} {
		t.Run(fmt.Sprintf("tool ok %v", ok), func(t *testing.T) {
			var ev session.Event
			f := &filler{t: t}
			f.fill(reflect.ValueOf(&ev).Elem(), "Event")
			ev.Tool.OK = &ok
			checkNonZero(t, reflect.ValueOf(ev), "Event")
			line, err := session.Encode(&ev)
			if err != nil {
				t.Fatal(err)
			}
			line = line[:len(line)-1]
			var want session.Event
			if err := json.Unmarshal(line, &want); err != nil {
				t.Fatalf("encoding/json refuses the line: %v\n%s", err, line)
			}
			if !reflect.DeepEqual(want, ev) {
				t.Fatalf("the event does not survive Encode and encoding/json: the test's values are wrong\n got %+v\nwant %+v", want, ev)
			}
			for _, fold := range []bool{false, true} {
				got, fast := session.DecodeFast(line, fold)
				if !fast {
					t.Fatalf("the fast path (fold %v) declined an event with every field set, so every line carrying one of them goes to encoding/json: "+
						"give the decoder (session/decode.go) a case for %s\n%s", fold, undecoded(line), line)
				}
				w := want
				if fold {
					w = foldView(want)
				}
				if !reflect.DeepEqual(*got, w) {
					t.Fatalf("fast path (fold %v) differs from encoding/json:\n got %+v\nwant %+v\n%s", fold, *got, w, line)
				}
			}
			// And so does what Scan decodes with.
			if got, err := session.DecodeLine(line); err != nil || !reflect.DeepEqual(*got, want) {
				t.Fatalf("DecodeLine: %v\n got %+v\nwant %+v", err, got, want)
			}
		})
	}
}

// undecoded names the keys the fast path declines: the deepest keys
// whose removal, wherever they occur in the line, lets the fast path take
// it, with the places they occur at.
func undecoded(line []byte) string {
	parse := func() map[string]any {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber() // an int64 must not go through a float64
		var obj map[string]any
		if dec.Decode(&obj) != nil {
			return nil
		}
		return obj
	}
	// where lists, for each key, the places it occurs at ([] for any
	// element of an array).
	where := map[string][]string{}
	var visit func(v any, path string, drop string)
	visit = func(v any, path string, drop string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if k == drop {
					delete(v, k)
					continue
				}
				p := strings.TrimPrefix(path+"."+k, ".")
				if drop == "" && !slices.Contains(where[k], p) {
					where[k] = append(where[k], p)
				}
				visit(e, p, drop)
			}
		case []any:
			for _, e := range v {
				visit(e, path+"[]", drop)
			}
		}
	}
	obj := parse()
	if obj == nil {
		return "(the line is not an object)"
	}
	visit(obj, "", "")
	var culprits []string
	for k := range where {
		obj := parse()
		visit(obj, "", k)
		if b, err := json.Marshal(obj); err == nil {
			if _, ok := session.DecodeFast(b, false); ok {
				culprits = append(culprits, k)
			}
		}
	}
	// Keep the deepest: a key whose every place lies under another
	// culprit's is the one to name.
	var out []string
	for _, k := range culprits {
		ancestor := false
		for _, c := range culprits {
			for _, p := range where[c] {
				for _, q := range where[k] {
					if c != k && (strings.HasPrefix(p, q+".") || strings.HasPrefix(p, q+"[]")) {
						ancestor = true
					}
				}
			}
		}
		if !ancestor {
			slices.Sort(where[k])
			out = append(out, fmt.Sprintf("%q (at %s)", k, strings.Join(where[k], ", ")))
		}
	}
	if len(out) == 0 {
		return "(no key alone: see the line)"
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
