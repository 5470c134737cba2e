package txn_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// targetOf builds a tape of a small source and returns the bytes a commit
// writes into the target and the record that describes them.
func targetOf(t *testing.T) (journal.Record, []byte) {
	t.Helper()
	src := []session.Event{
		{Seq: 1, Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "Goal: port the cache to the new API. Never push to main."},
		{Seq: 2, Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "Reading cache.go."},
		{Seq: 3, Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "Now switch the callers."},
		{Seq: 4, Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "Switched two callers.\n\nThe third one is next."},
	}
	b := tape.NewBuilder("src")
	for k := range src {
		raw, err := session.Encode(&src[k])
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(&src[k], bytes.TrimSuffix(raw, []byte("\n"))); err != nil {
			t.Fatalf("adding seq %d to the tape: %v", k+1, err)
		}
	}
	tp, err := b.Build(tape.Options{}, nil)
	if err != nil {
		t.Fatalf("building the tape: %v", err)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	id := journal.NewTxnID(now)
	evs := txn.TargetEvents(id, "src", tp, now)
	data := encodeAll(t, evs)
	rec := journal.Record{Version: 1, Txn: id, Kind: journal.KindGraft, State: journal.TargetFlushed,
		Source: "src", Target: "dst", TapeHash: tp.TapeHash, TapeEvents: len(evs), BoundarySeq: tp.BoundarySeq, Generation: 2}
	describe(&rec, data)
	return rec, data
}

func encodeAll(t *testing.T, evs []session.Event) []byte {
	t.Helper()
	var out []byte
	for k := range evs {
		b, err := session.Encode(&evs[k])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// describe makes the record's size and digest those of data, so that only
// the check a case aims at can fail.
func describe(rec *journal.Record, data []byte) {
	sum := sha256.Sum256(data)
	rec.TargetBytes = int64(len(data))
	rec.TapeDigest = "sha256:" + hex.EncodeToString(sum[:])
}

func TestColdVerify(t *testing.T) {
	cases := []struct {
		name string
		// change returns the bytes to put on disk (nil: no file) after
		// changing rec.
		change func(t *testing.T, rec *journal.Record, data []byte) []byte
		reason string // "" = must verify
	}{
		{"as written", func(_ *testing.T, _ *journal.Record, d []byte) []byte { return d }, ""},
		{"missing file", func(*testing.T, *journal.Record, []byte) []byte { return nil }, "reopening"},
		{"one byte more on disk", func(_ *testing.T, _ *journal.Record, d []byte) []byte {
			return append(slices.Clone(d), '\n')
		}, "bytes on disk, journal says"},
		{"one byte less on disk", func(_ *testing.T, _ *journal.Record, d []byte) []byte {
			return d[:len(d)-1]
		}, "bytes on disk, journal says"},
		{"same size, one byte changed", func(_ *testing.T, _ *journal.Record, d []byte) []byte {
			out := slices.Clone(d)
			i := bytes.LastIndex(out, []byte("callers"))
			out[i] = 'C'
			return out
		}, "digest"},
		{"torn last line", func(_ *testing.T, rec *journal.Record, d []byte) []byte {
			out := d[:len(d)-1]
			describe(rec, out)
			return out
		}, "torn last line"},
		{"a line that does not parse", func(_ *testing.T, rec *journal.Record, d []byte) []byte {
			out := slices.Clone(d)
			out[bytes.IndexByte(out, '\n')+1] = '['
			describe(rec, out)
			return out
		}, "re-parsing"},
		{"one event fewer than the journal says", func(_ *testing.T, rec *journal.Record, d []byte) []byte {
			rec.TapeEvents++
			return d
		}, "events on disk, journal says"},
		{"origin of another txn", func(_ *testing.T, rec *journal.Record, d []byte) []byte {
			rec.Txn = journal.NewTxnID(time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC))
			return d
		}, "graft/origin does not name"},
		{"origin of another tape", func(_ *testing.T, rec *journal.Record, d []byte) []byte {
			rec.TapeHash = tape.TapeHashPrefix + strings.Repeat("0", 64)
			return d
		}, "graft/origin does not name"},
		{"origin of another parent", func(_ *testing.T, rec *journal.Record, d []byte) []byte {
			rec.Source = "elsewhere"
			return d
		}, "graft/origin does not name"},
		{"no graft/origin first", func(t *testing.T, rec *journal.Record, d []byte) []byte {
			evs := decode(t, d)
			evs[0].Type = session.TypeSystem
			out := encodeAll(t, evs)
			describe(rec, out)
			return out
		}, "graft/origin does not name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec, data := targetOf(t)
			path := filepath.Join(t.TempDir(), "dst.jsonl")
			if disk := tc.change(t, &rec, data); disk != nil {
				if err := os.WriteFile(path, disk, session.FileMode); err != nil {
					t.Fatal(err)
				}
			}
			err := txn.ColdVerify(vfs.Default, path, rec)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("ColdVerify of the bytes as written: %v", err)
				}
				return
			}
			var cv *txn.ColdVerifyError
			if !errors.As(err, &cv) || !errors.Is(err, txn.ErrColdVerify) {
				t.Fatalf("ColdVerify: %v, want a *txn.ColdVerifyError", err)
			}
			if cv.Target != "dst" || !strings.Contains(cv.Reason, tc.reason) {
				t.Errorf("ColdVerifyError{Target: %q, Reason: %q}, want target dst and a reason with %q", cv.Target, cv.Reason, tc.reason)
			}
		})
	}
}

func decode(t *testing.T, data []byte) []session.Event {
	t.Helper()
	var evs []session.Event
	if _, err := session.Scan(bytes.NewReader(data), "target", session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		evs = append(evs, *ev)
		return nil
	}); err != nil {
		t.Fatalf("decoding the target: %v", err)
	}
	return evs
}
