// Package catalogtest is the contract every catalog.Backend keeps (the
// bbolt file, the test's memory store, the etcd store): what the catalog
// relies on of a store, run by each store's tests.
package catalogtest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/graft-project/graft/catalog"
)

// Buckets names three empty buckets of the backend under test: Main holds
// several keys, Other one or two, Absent none.
type Buckets struct{ Main, Other, Absent string }

// BackendContract checks b, a fresh and empty store: absent is nil, nil;
// values are copies both ways; Each walks one prefix in key order; an
// Update lands all or nothing, reads its own writes, may list a range and
// write in it, and may put into a bucket it cleared; a View cannot write;
// Clear empties one bucket.
func BackendContract(t *testing.T, b catalog.Backend, bk Buckets) {
	t.Helper()
	main, other, absent := bk.Main, bk.Other, bk.Absent
	if b.Name() == "" {
		t.Fatal("Name is empty")
	}
	get := func(bucket, key string) []byte {
		t.Helper()
		var v []byte
		if err := b.View(func(tx catalog.Tx) error {
			var err error
			v, err = tx.Get(bucket, key)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := get(absent, "nope"); v != nil {
		t.Fatalf("Get of an absent key = %q, want nil", v)
	}

	value := []byte("v1")
	err := b.Update(func(tx catalog.Tx) error {
		for _, kv := range [][2]string{{"b/2", "x"}, {"a/1", "y"}, {"b/1", "z"}, {"b.", "dot"}, {"b0", "zero"}, {"c", "w"}} {
			if err := tx.Put(main, kv[0], []byte(kv[1])); err != nil {
				return err
			}
		}
		if err := tx.Put(other, "k", value); err != nil {
			return err
		}
		if err := tx.Put(other, "empty", []byte{}); err != nil {
			return err
		}
		// A transaction reads its own writes.
		if v, err := tx.Get(other, "k"); err != nil || string(v) != "v1" {
			return fmt.Errorf("Get inside the Update = %q, %v", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := get(other, "k")
	got[0] = 'X'
	if v := get(other, "k"); string(v) != "v1" {
		t.Fatalf("changing a returned value changed the stored one: %q", v)
	}
	if v := get(other, "empty"); v == nil || len(v) != 0 {
		t.Fatalf("an empty value = %#v, want present and empty", v)
	}

	each := func(prefix string) []string {
		t.Helper()
		var keys []string
		err := b.View(func(tx catalog.Tx) error {
			return tx.Each(main, prefix, func(k string, v []byte) error {
				v[0] = '!' // the caller's copy
				keys = append(keys, k+"="+string(v[1:]))
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	if got, want := each("b/"), []string{"b/1=", "b/2="}; !slices.Equal(got, want) {
		t.Fatalf("Each(b/) = %q, want %q", got, want)
	}
	if got, want := each(""), []string{"a/1=", "b.=ot", "b/1=", "b/2=", "b0=ero", "c="}; !slices.Equal(got, want) {
		t.Fatalf("Each() = %q, want %q (key order)", got, want)
	}
	if got := each("b/"); len(got) != 2 || get(main, "b/1")[0] != 'z' {
		t.Fatalf("Each's fn changing its value changed the stored one")
	}
	if got := each("zz"); len(got) != 0 {
		t.Fatalf("Each(zz) = %q, want nothing", got)
	}

	// All or nothing: a failing Update leaves no write behind.
	boom := errors.New("boom")
	err = b.Update(func(tx catalog.Tx) error {
		if err := tx.Put(other, "k", []byte("v2")); err != nil {
			return err
		}
		if err := tx.Delete(main, "a/1"); err != nil {
			return err
		}
		if err := tx.Clear(main); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("a failing Update = %v, want fn's error", err)
	}
	if v := get(other, "k"); string(v) != "v1" || len(each("")) != 6 {
		t.Fatalf("a failed Update left writes: meta k = %q, leftovers %q", v, each(""))
	}

	// A View cannot write.
	if err := b.View(func(tx catalog.Tx) error { return tx.Put(other, "k", []byte("v3")) }); err == nil {
		t.Fatal("Put in a View succeeded")
	}
	if v := get(other, "k"); string(v) != "v1" {
		t.Fatalf("a View wrote: %q", v)
	}

	// Delete of an absent key is no error; Clear empties one bucket.
	err = b.Update(func(tx catalog.Tx) error {
		if err := tx.Delete(absent, "nope"); err != nil {
			return err
		}
		if err := tx.Delete(main, "c"); err != nil {
			return err
		}
		if err := tx.Clear(main); err != nil {
			return err
		}
		return tx.Each(main, "", func(k string, _ []byte) error { return fmt.Errorf("%s left after Clear", k) })
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(each("")) != 0 || string(get(other, "k")) != "v1" {
		t.Fatalf("after Clear: leftovers %q, meta k %q", each(""), get(other, "k"))
	}
	// A cleared bucket takes values again.
	if err := b.Update(func(tx catalog.Tx) error { return tx.Put(main, "d", []byte("1")) }); err != nil {
		t.Fatal(err)
	}
	if got := each(""); len(got) != 1 {
		t.Fatalf("after a put into the cleared bucket: %q", got)
	}
	contractRangeAndClear(t, b, bk)
}

// contractRangeAndClear: what an Update may do beyond single keys. It may
// list a range and then write in it and beside it (the purge walks an index
// and deletes what it found); put into a bucket it cleared, which holds
// then only those puts; delete a key and clear its bucket; put a key and
// delete it again. It starts from main holding one key, "d".
func contractRangeAndClear(t *testing.T, b catalog.Backend, bk Buckets) {
	t.Helper()
	keys := func(bucket string) []string {
		t.Helper()
		var ks []string
		err := b.View(func(tx catalog.Tx) error {
			return tx.Each(bucket, "", func(k string, v []byte) error { ks = append(ks, k+"="+string(v)); return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	update := func(what string, fn func(tx catalog.Tx) error) {
		t.Helper()
		if err := b.Update(fn); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	update("listing a range, then writing in it", func(tx catalog.Tx) error {
		var seen []string
		if err := tx.Each(bk.Main, "", func(k string, _ []byte) error { seen = append(seen, k); return nil }); err != nil {
			return err
		}
		if !slices.Equal(seen, []string{"d"}) {
			return fmt.Errorf("Each = %q, want [d]", seen)
		}
		for _, k := range []string{"e", "f"} {
			if err := tx.Put(bk.Main, k, []byte(k)); err != nil {
				return err
			}
		}
		if err := tx.Delete(bk.Main, "d"); err != nil {
			return err
		}
		return tx.Put(bk.Other, "listed", []byte("1"))
	})
	if got, want := keys(bk.Main), []string{"e=e", "f=f"}; !slices.Equal(got, want) {
		t.Fatalf("after a listed range was written: %q, want %q", got, want)
	}
	update("clearing a bucket, then putting into it", func(tx catalog.Tx) error {
		if err := tx.Clear(bk.Main); err != nil {
			return err
		}
		for _, k := range []string{"a", "f", "z"} {
			if err := tx.Put(bk.Main, k, []byte("new-"+k)); err != nil {
				return err
			}
		}
		// A transaction reads its own writes after a Clear too.
		var seen []string
		err := tx.Each(bk.Main, "", func(k string, _ []byte) error { seen = append(seen, k); return nil })
		if err == nil && !slices.Equal(seen, []string{"a", "f", "z"}) {
			err = fmt.Errorf("Each after Clear and puts = %q, want [a f z]", seen)
		}
		return err
	})
	if got, want := keys(bk.Main), []string{"a=new-a", "f=new-f", "z=new-z"}; !slices.Equal(got, want) {
		t.Fatalf("after a Clear and puts: %q, want %q", got, want)
	}
	update("putting a key, deleting it, deleting another and clearing the bucket", func(tx catalog.Tx) error {
		if err := tx.Put(bk.Main, "g", []byte("g")); err != nil {
			return err
		}
		if err := tx.Delete(bk.Main, "g"); err != nil {
			return err
		}
		if err := tx.Delete(bk.Main, "a"); err != nil {
			return err
		}
		return tx.Clear(bk.Main)
	})
	if got := keys(bk.Main); len(got) != 0 {
		t.Fatalf("after a Clear: %q", got)
	}
	update("putting a key and deleting it", func(tx catalog.Tx) error {
		if err := tx.Put(bk.Absent, "h", []byte("h")); err != nil {
			return err
		}
		return tx.Delete(bk.Absent, "h")
	})
	if got := keys(bk.Absent); len(got) != 0 {
		t.Fatalf("a key put and deleted in one Update stayed: %q", got)
	}
}
