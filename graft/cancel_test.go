package graft_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
)

// reviewsStored counts the reviews in the home's catalog (purging them all
// as expired, which only a test may do).
func reviewsStored(t *testing.T, svc *graft.Service) int {
	t.Helper()
	var n int
	err := catalog.With(svc.Home, svc.CatalogTimeout, func(db *catalog.DB) error {
		var err error
		n, err = db.PurgeExpired(time.Now().Add(100 * 365 * 24 * time.Hour))
		return err
	})
	if err != nil {
		t.Fatalf("counting reviews: %v", err)
	}
	return n
}

// A prepare cancelled in the middle of its fold, or before it starts,
// returns the context's error and stores no review; the same prepare with a
// live context then stores one.
func TestPrepareCancelledStoresNothing(t *testing.T) {
	svc, err := graft.Open(t.TempDir(), graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Generate("big", gen.Options{Turns: 8, Events: 12000, Seed: 3}, nil); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var folded int64
	svc.SetFoldHook(func(source string, events int64) {
		if folded == 0 {
			cancel() // mid-scan: the fold has read events, not all of them
		}
		folded = events
	})
	rv, err := svc.Prepare(ctx, "big", graft.PrepareOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("prepare cancelled mid-scan: review %v, error %v; want context.Canceled", rv, err)
	}
	if folded == 0 || folded >= 12000 {
		t.Fatalf("the fold checked its context after %d events; want mid-scan", folded)
	}
	if n := reviewsStored(t, svc); n != 0 {
		t.Fatalf("%d review(s) stored by a cancelled prepare", n)
	}

	svc.SetFoldHook(nil)
	if _, err := svc.Prepare(ctx, "big", graft.PrepareOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("prepare with a cancelled context: %v; want context.Canceled", err)
	}
	if _, err := svc.Commit(ctx, "p-unknown", "h", ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("commit with a cancelled context: %v; want context.Canceled", err)
	}
	if _, _, err := svc.RecallWithPath(ctx, "big", 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("recall with a cancelled context: %v; want context.Canceled", err)
	}
	if _, err := svc.Recover(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("recover with a cancelled context: %v; want context.Canceled", err)
	}
	if n := reviewsStored(t, svc); n != 0 {
		t.Fatalf("%d review(s) stored with a cancelled context", n)
	}

	if _, err := svc.Prepare(context.Background(), "big", graft.PrepareOptions{}); err != nil {
		t.Fatalf("prepare after the cancelled ones: %v", err)
	}
	if n := reviewsStored(t, svc); n != 1 {
		t.Fatalf("%d review(s) stored by one prepare; want 1", n)
	}
}
