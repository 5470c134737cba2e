package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkPurgeExpired: the purge every prepare runs, with n live reviews
// stored (a hook past autoGraft stores one a turn, kept 24 hours), each
// with a 16,000-rune tape in its review: through the expiry index
// (indexed) and reading every review as graft recover does, as every
// prepare did before the index (full). Compare the two in one run.
func BenchmarkPurgeExpired(b *testing.B) {
	tape, err := json.Marshal(strings.Repeat("seq=1: the tape's text, escaped \"quotes\" and all.\n", 320))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10, 100, 400} {
		db, err := Open(b.TempDir(), time.Second)
		if err != nil {
			b.Fatal(err)
		}
		for k := range n {
			p := prepared(fmt.Sprintf("prep-%04d", k))
			p.Review = json.RawMessage(`{"tape":` + string(tape) + `}`)
			if err := db.PutReview(p, nil); err != nil {
				b.Fatal(err)
			}
		}
		for _, v := range []struct {
			name  string
			purge func(time.Time) (int, error)
		}{{"indexed", db.PurgeExpired}, {"full", db.PurgeExpiredFull}} {
			b.Run(fmt.Sprintf("reviews=%d/%s", n, v.name), func(b *testing.B) {
				for b.Loop() {
					if got, err := v.purge(t0); err != nil || got != 0 {
						b.Fatal(got, err)
					}
				}
			})
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
