package graft

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/session"
)

// Issue 24, item 5: reviews are not kept for ever. 40 prepares (a hook
// past autoGraft prepares one a turn) store 40 reviews with their tapes;
// once they expire, the next prepare purges them, and graft recover does
// too. A review still in its time is kept.
func TestExpiredReviewsArePurged(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	svc, err := Open(t.TempDir(), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	evs := []session.Event{
		{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "Build it."},
		{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "ok"},
	}
	if _, err := svc.Store().Append("s", evs); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for k := 0; k < 40; k++ {
		rv, err := svc.Prepare(context.Background(), "s", PrepareOptions{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rv.PreparedID)
		now = now.Add(time.Second)
	}
	stored := func() int {
		n := 0
		err := svc.cat().With(func(db *catalog.DB) error {
			for _, id := range ids {
				_, err := db.PeekPrepared(id)
				switch {
				case err == nil:
					n++
				case !errors.Is(err, catalog.ErrUnknownPrepared):
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := stored(); n != 40 {
		t.Fatalf("%d of 40 reviews stored within their hour", n)
	}
	now = now.Add(2 * time.Hour)
	fresh, err := svc.Prepare(context.Background(), "s", PrepareOptions{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if n := stored(); n != 0 {
		t.Fatalf("%d expired reviews left after a prepare, want 0", n)
	}
	if _, err := svc.PreparedReview(fresh.PreparedID); err != nil {
		t.Fatalf("the new review: %v", err)
	}
	// graft recover purges too.
	ids = []string{fresh.PreparedID}
	now = now.Add(2 * time.Hour)
	n, err := svc.PurgeReviews()
	if err != nil || n != 1 || stored() != 0 {
		t.Fatalf("PurgeReviews = %d, %v; %d left", n, err, stored())
	}
	_ = strings.TrimSpace
}
