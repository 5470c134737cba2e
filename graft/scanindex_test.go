package graft

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

// scanStateMagic starts the state of a scan index (index/doc.go).
const scanStateMagic = "graft-scanstate-v2\n"

// indexHome is a service on a fresh home whose source log the test writes
// line by line, as a host appends.
type indexHome struct {
	t    *testing.T
	svc  *Service
	id   string
	path string
}

func newIndexHome(t *testing.T) *indexHome {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	svc, err := Open(home, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return &indexHome{t: t, svc: svc, id: "s", path: svc.Store().Path("s")}
}

// generated returns the log lines of a generated session.
func generated(t *testing.T, opts gen.Options) [][]byte {
	t.Helper()
	var lines [][]byte
	err := gen.Generate(opts, func(ev *session.Event) error {
		b, err := session.Encode(ev)
		lines = append(lines, b)
		return err
	})
	if err != nil {
		t.Fatalf("gen %+v: %v", opts, err)
	}
	return lines
}

func (h *indexHome) write(data []byte) {
	h.t.Helper()
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		h.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		h.t.Fatal(err)
	}
}

// fullFold is the reference: the fold build did before the scan index, one
// uninterrupted Store.Scan with the exact decoder.
func fullFold(t *testing.T, st *session.Store, id string) (*tape.Builder, *session.Info) {
	t.Helper()
	b := tape.NewBuilder(id)
	info := &session.Info{ID: id}
	res, err := st.Scan(id, session.ScanFrom{}, func(ev *session.Event, raw []byte, off int64) error {
		info.Add(ev)
		// With the offset, as prepare folds: the outputs the tape quotes
		// are read at Build (logBuild).
		return b.AddSumAt(ev, len(raw), session.SumLine(raw), off)
	})
	if err != nil {
		t.Fatalf("reference scan: %v", err)
	}
	info.ScanResult = res
	return b, info
}

// logBuild builds b's tape reading the quoted outputs from id's log, as
// prepare does.
func logBuild(t *testing.T, svc *Service, id string, b *tape.Builder, opts tape.Options) *tape.Tape {
	t.Helper()
	f, _, err := svc.Store().OpenLog(id)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tp, err := b.BuildFrom(opts, nil, logOutputs{f: f, path: svc.Store().Path(id)})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// tapeOptions are the option sets each fold is built with: the fold does
// not depend on them, the tape does.
var tapeOptions = []tape.Options{{}, {Tier: "B", Budget: 4000}, {RecentTurns: 3, AutoTier: true}}

// sameAsFullFold asserts that fo gives the tapes, hashes and state the
// reference fold gives.
func sameAsFullFold(t *testing.T, h *indexHome, fo *sourceFold, what string) {
	t.Helper()
	rb, rinfo := fullFold(t, h.svc.Store(), h.id)
	for _, opts := range tapeOptions {
		want := logBuild(t, h.svc, h.id, rb, opts)
		got := logBuild(t, h.svc, h.id, fo.b, opts)
		if got.TapeHash != want.TapeHash || got.PrefixHash != want.PrefixHash || got.Text != want.Text || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s, options %+v: the tape differs from a full fold:\n tapeHash %s prefixHash %s\nwant %s %s", what, opts, got.TapeHash, got.PrefixHash, want.TapeHash, want.PrefixHash)
		}
	}
	gotState, err := fo.b.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	wantState, err := rb.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if string(gotState) != string(wantState) {
		t.Fatalf("%s: the builder state differs from a full fold", what)
	}
	gotInfo, err := fo.info.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	wantInfo, err := rinfo.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if string(gotInfo) != string(wantInfo) {
		t.Fatalf("%s: the state fold differs from a full fold:\n got %s\nwant %s", what, gotInfo, wantInfo)
	}
}

// TestIncrementalFoldEqualsFullFoldAtManyCutPoints grows a generated
// session cut by cut, storing an index at every fold, and compares each
// fold with an uninterrupted one: same tapes under several options, same
// hashes, same builder and state snapshots, same scan result.
func TestIncrementalFoldEqualsFullFoldAtManyCutPoints(t *testing.T) {
	defer func(old int64) { indexSaveTail = old }(indexSaveTail)
	indexSaveTail = 0
	lines := generated(t, gen.Options{Turns: 9, Events: 500, Seed: 3})
	h := newIndexHome(t)
	// Cut at the first lines, around every human instruction, and every
	// 13th line in between.
	cuts := map[int]bool{1: true, 2: true, 3: true, len(lines): true}
	for k, line := range lines {
		if k%17 == 0 || strings.Contains(string(line), `"source":{"kind":"user"}`) {
			cuts[k] = true
			cuts[k+1] = true
		}
	}
	written, resumed := 0, 0
	for k := 1; k <= len(lines); k++ {
		if !cuts[k] {
			continue
		}
		for ; written < k; written++ {
			h.write(lines[written])
		}
		fo, err := h.svc.foldSource(h.id)
		if err != nil {
			t.Fatalf("cut %d: %v", k, err)
		}
		if fo.NotUsed != "" {
			t.Fatalf("cut %d: the index of the previous cut was not used: %s", k, fo.NotUsed)
		}
		if fo.From.Offset > 0 {
			resumed++
		}
		if !fo.Saved {
			t.Fatalf("cut %d: no index stored with indexSaveTail 0", k)
		}
		sameAsFullFold(t, h, fo, fmt.Sprintf("cut %d", k))
	}
	if resumed < len(cuts)-2 {
		t.Fatalf("only %d of %d folds resumed from an index", resumed, len(cuts))
	}
	t.Logf("%d cut points, %d resumed from an index", len(cuts), resumed)
}

// TestTornTailAndItsCompletion: a fold past a half-written line stores its
// index before it, and the completed line is read on the next fold.
func TestTornTailAndItsCompletion(t *testing.T) {
	defer func(old int64) { indexSaveTail = old }(indexSaveTail)
	indexSaveTail = 0
	lines := generated(t, gen.Options{Turns: 3, Events: 60, Seed: 5})
	h := newIndexHome(t)
	for _, l := range lines[:40] {
		h.write(l)
	}
	half := len(lines[40]) / 2
	h.write(lines[40][:half])
	fo, err := h.svc.foldSource(h.id)
	if err != nil {
		t.Fatal(err)
	}
	if fo.info.Torn == nil || fo.info.LastSeq != 40 {
		t.Fatalf("torn tail not reported: %+v", fo.info.ScanResult)
	}
	sameAsFullFold(t, h, fo, "torn")
	h.write(lines[40][half:])
	for _, l := range lines[41:] {
		h.write(l)
	}
	fo, err = h.svc.foldSource(h.id)
	if err != nil {
		t.Fatal(err)
	}
	if fo.From.NextSeq != 41 || fo.NotUsed != "" {
		t.Fatalf("the fold did not resume at seq 41: from %+v, not used %q", fo.From, fo.NotUsed)
	}
	sameAsFullFold(t, h, fo, "completed")
}

// TestRewrittenLogIsNeverTrusted changes the log under a stored index in
// each way the checks must catch; the fold must read the whole log, say
// why, and still equal a full fold.
func TestRewrittenLogIsNeverTrusted(t *testing.T) {
	lines := generated(t, gen.Options{Turns: 4, Events: 300, Seed: 11})
	all := []byte(strings.Join(func() []string {
		var s []string
		for _, l := range lines {
			s = append(s, string(l))
		}
		return s
	}(), ""))
	cases := []struct {
		name   string
		change func(h *indexHome)
		reason string
	}{
		{"replaced by a copy", func(h *indexHome) {
			tmp := h.path + ".new"
			if err := os.WriteFile(tmp, all, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, h.path); err != nil {
				t.Fatal(err)
			}
		}, "another file now"},
		{"truncated in place", func(h *indexHome) {
			if err := os.Truncate(h.path, int64(len(all)-len(lines[len(lines)-1])-len(lines[len(lines)-2]))); err != nil {
				t.Fatal(err)
			}
		}, "shorter than the indexed"},
		{"a byte before the offset rewritten in place", func(h *indexHome) {
			f, err := os.OpenFile(h.path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			// The last line's text: a same-size edit the tail check covers.
			at := int64(len(all) - len(lines[len(lines)-1]) + 40)
			if _, err := f.WriteAt([]byte("X"), at); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}, "changed: rewritten"},
		{"state that does not decode", func(h *indexHome) {
			err := catalog.With(h.svc.Home, h.svc.CatalogTimeout, func(db *catalog.DB) error {
				ix, ok, err := db.GetScanIndex(h.id)
				if err != nil || !ok {
					return fmt.Errorf("no index (%v)", err)
				}
				ix.State = []byte(scanStateMagic + `{"id":"x"`)
				return db.PutScanIndex(ix)
			})
			if err != nil {
				t.Fatal(err)
			}
		}, "does not decode"},
		{"state of another version", func(h *indexHome) {
			err := catalog.With(h.svc.Home, h.svc.CatalogTimeout, func(db *catalog.DB) error {
				ix, _, err := db.GetScanIndex(h.id)
				if err != nil {
					return err
				}
				if !bytes.HasPrefix(ix.State, []byte(scanStateMagic)) {
					return fmt.Errorf("the state starts %.30q", ix.State)
				}
				ix.State = append([]byte("graft-scanstate-v99\n"), ix.State[len(scanStateMagic):]...)
				return db.PutScanIndex(ix)
			})
			if err != nil {
				t.Fatal(err)
			}
		}, "not graft-scanstate-v2"},
		{"state of version 1 (one JSON object)", func(h *indexHome) {
			err := catalog.With(h.svc.Home, h.svc.CatalogTimeout, func(db *catalog.DB) error {
				ix, _, err := db.GetScanIndex(h.id)
				if err != nil {
					return err
				}
				ix.State = []byte(`{"v":1,"tape":{},"info":{}}`)
				return db.PutScanIndex(ix)
			})
			if err != nil {
				t.Fatal(err)
			}
		}, "not graft-scanstate-v2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newIndexHome(t)
			h.write(all)
			if _, err := h.svc.foldSource(h.id); err != nil {
				t.Fatal(err)
			}
			tc.change(h)
			rv, err := h.svc.Prepare(context.Background(), h.id, PrepareOptions{})
			if err != nil {
				t.Fatalf("prepare after the change: %v", err)
			}
			found := false
			for _, w := range rv.Warnings {
				if strings.Contains(w, "scan index of s was not used") && strings.Contains(w, tc.reason) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no warning naming %q: %q", tc.reason, rv.Warnings)
			}
			rb, _ := fullFold(t, h.svc.Store(), h.id)
			want := logBuild(t, h.svc, h.id, rb, tape.Options{})
			if rv.TapeHash != want.TapeHash || rv.PrefixHash != want.PrefixHash {
				t.Fatalf("review %s/%s, a full fold %s/%s", rv.TapeHash, rv.PrefixHash, want.TapeHash, want.PrefixHash)
			}
			// The fold stored a fresh index: the next one uses it.
			fo, err := h.svc.foldSource(h.id)
			if err != nil {
				t.Fatal(err)
			}
			if fo.NotUsed != "" || fo.From.Offset == 0 {
				t.Fatalf("the index stored after the full read was not used: from %+v, %q", fo.From, fo.NotUsed)
			}
		})
	}
}

// TestSmallTailsDoNotRewriteTheIndex: below indexSaveTail a fold reads
// the tail from the old index and leaves it in place.
func TestSmallTailsDoNotRewriteTheIndex(t *testing.T) {
	lines := generated(t, gen.Options{Turns: 3, Events: 90, Seed: 2})
	h := newIndexHome(t)
	for _, l := range lines[:60] {
		h.write(l)
	}
	fo, err := h.svc.foldSource(h.id)
	if err != nil || !fo.Saved || fo.From.Offset != 0 {
		t.Fatalf("first fold: saved %v from %+v err %v", fo != nil && fo.Saved, fo, err)
	}
	for _, l := range lines[60:] {
		h.write(l)
	}
	for k := 0; k < 2; k++ {
		fo, err = h.svc.foldSource(h.id)
		if err != nil {
			t.Fatal(err)
		}
		if fo.Saved || fo.From.NextSeq != 61 {
			t.Fatalf("fold %d: saved %v, from %+v; want a resume at seq 61 and no new index", k, fo.Saved, fo.From)
		}
		sameAsFullFold(t, h, fo, "small tail")
	}
}
