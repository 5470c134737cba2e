package testfixtures

import (
	"bytes"
	"reflect"
	"testing"
)

// EveryByteChanged reads raw with each of its bytes changed in turn (each
// mask XORed into it): every read must refuse it (refused says the error
// is the refusal wanted) or read exactly want, never another value. A
// value that drives an action (where a host's lines go, what recovery
// rolls back, where an export is written) must not read as another one
// after one byte of it changed on the disk. It fails the test when no
// change was refused at all: a check that refuses nothing checks nothing.
func EveryByteChanged[T any](t testing.TB, raw []byte, masks []byte, want T, read func([]byte) (T, error), refused func(error) bool) {
	t.Helper()
	n := 0
	for i := range raw {
		for _, mask := range masks {
			bad := bytes.Clone(raw)
			bad[i] ^= mask
			got, err := read(bad)
			if err != nil {
				if !refused(err) {
					t.Fatalf("byte %d changed (%q): %v, not the refusal wanted", i, bad[i], err)
				}
				n++
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("byte %d changed (%q) read as another value:\n%+v\nwant\n%+v", i, bad[i], got, want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no changed byte was refused")
	}
}
