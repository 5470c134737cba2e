package importer

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// A run whose context is cancelled stops about a MiB later with the
// context's error: a new session is not created, an existing one keeps the
// batches appended, and the next run goes on from there to the same session
// a one-shot import makes.
func TestCancelledRunKeepsItsBatches(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", 1000))
	}
	all := b.String()
	f.write(all)
	cancelled := func(o *Options) {
		ctx, cancel := context.WithCancel(context.Background())
		o.Ctx = ctx
		o.BatchBytes = 256 << 10
		o.Progress = func(read, total int64) {
			if read > 0 && read < total {
				cancel()
			}
		}
	}
	if _, err := f.run("new", cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled creating run: %v; want context.Canceled", err)
	}
	if ok, err := f.st.Exists("new"); err != nil || ok {
		t.Fatalf("a cancelled creating run left session new: %v %v", ok, err)
	}

	head := strings.Index(all, "line 10 ")
	f.write(all[:head])
	f.mustRun("s")
	f.write(all)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := f.run("s", func(o *Options) {
		o.Ctx = ctx
		o.BatchBytes = 256 << 10
		o.Progress = func(read, total int64) {
			if read > 0 && read < total {
				cancel()
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v; want context.Canceled", err)
	}
	n := len(f.events("s"))
	if n <= 10 || n >= 3000 {
		t.Fatalf("a run cancelled after about 1 MiB left %d events; want more than the 10 before it, not all 3000", n)
	}
	sum := f.mustRun("s")
	if int(sum.Appended) != 3000-n {
		t.Fatalf("the next run appended %d; want %d", sum.Appended, 3000-n)
	}
	f.mustRun("one")
	if a, b := f.events("s"), f.events("one"); !reflect.DeepEqual(a, b) {
		t.Fatal("a cancelled then resumed import differs from a one-shot one")
	}
}
