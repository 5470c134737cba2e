package graft

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/index"
)

// recallAll recalls every seq of the source (and one past the end) and
// compares each event with the log read from its start. It returns the
// paths taken.
func recallAll(t *testing.T, h *indexHome) []RecallPath {
	t.Helper()
	evs, res, err := h.svc.Store().ReadAll(h.id)
	if err != nil {
		t.Fatal(err)
	}
	var paths []RecallPath
	for k := range evs {
		got, path, err := h.svc.RecallWithPath(context.Background(), h.id, evs[k].Seq)
		if err != nil {
			t.Fatalf("recall seq %d: %v (path %+v)", evs[k].Seq, err, path)
		}
		if !reflect.DeepEqual(*got, evs[k]) {
			t.Fatalf("recall seq %d: got %+v, want %+v", evs[k].Seq, *got, evs[k])
		}
		paths = append(paths, path)
	}
	_, err = h.svc.Recall(h.id, res.LastSeq+1)
	want := fmt.Sprintf("graft: no such seq: s has seqs 1..%d, not %d", res.LastSeq, res.LastSeq+1)
	if !errors.Is(err, ErrNoSuchSeq) || err.Error() != want {
		t.Fatalf("recall past the end: %v, want %q", err, want)
	}
	return paths
}

func preparedHome(t *testing.T, opts gen.Options) (*indexHome, [][]byte) {
	t.Helper()
	lines := generated(t, opts)
	h := newIndexHome(t)
	for _, l := range lines {
		h.write(l)
	}
	if _, err := h.svc.Prepare(context.Background(), h.id, PrepareOptions{}); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return h, lines
}

func TestRecallSeeksFromTheCacheAndReadsAtMostKLines(t *testing.T) {
	h, lines := preparedHome(t, gen.Options{Turns: 5, Events: 500, Seed: 4})
	for k, p := range recallAll(t, h) {
		seq := int64(k + 1)
		if seq < 1 || p.FullScan != "" || p.Index != "cache" || p.Mark == nil {
			t.Fatalf("seq %d: path %+v, want the cache", seq, p)
		}
		if p.Mark.Seq > seq || p.SkippedLines != int(seq-p.Mark.Seq) || p.SkippedLines >= index.MarkEvery {
			t.Fatalf("seq %d: started at mark %+v and skipped %d lines", seq, *p.Mark, p.SkippedLines)
		}
	}
	if len(lines) != 500 {
		t.Fatal("the generator did not give 500 events")
	}
}

// The seq file is the marks' one home (the catalog keeps none): a file
// that is gone or broken is not trusted, and recall reads the log from its
// start, saying why, with the same events.
func TestRecallReadsTheLogWhenTheCacheIsGoneOrBroken(t *testing.T) {
	for name, c := range map[string]struct {
		breakIt func(h *indexHome)
		reason  string
	}{
		"gone": {func(h *indexHome) {
			if err := os.Remove(index.SeqPath(h.svc.Home, h.id)); err != nil {
				t.Fatal(err)
			}
		}, "no seq cache"},
		"cut short": {func(h *indexHome) {
			if err := os.Truncate(index.SeqPath(h.svc.Home, h.id), seqFileHeader+5); err != nil {
				t.Fatal(err)
			}
		}, "its header says"},
		"not a cache": {func(h *indexHome) {
			if err := os.WriteFile(index.SeqPath(h.svc.Home, h.id), []byte("hello"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "shorter than its header"},
		"records that are not their marks": {func(h *indexHome) {
			data, err := os.ReadFile(index.SeqPath(h.svc.Home, h.id))
			if err != nil {
				t.Fatal(err)
			}
			for j := seqFileHeader; j+seqFileRecord <= len(data); j += seqFileRecord {
				data[j] ^= 0x40 // every seq
			}
			if err := os.WriteFile(index.SeqPath(h.svc.Home, h.id), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is not mark"},
	} {
		t.Run(name, func(t *testing.T) {
			h, _ := preparedHome(t, gen.Options{Turns: 4, Events: 300, Seed: 8})
			c.breakIt(h)
			for k, p := range recallAll(t, h) {
				if p.Index != "" || p.Mark != nil || !strings.Contains(p.FullScan, c.reason) {
					t.Fatalf("seq %d: path %+v, want the log read from its start because %q", k+1, p, c.reason)
				}
			}
			if notes := h.svc.TakeDegraded(); len(notes) != 0 {
				t.Fatalf("a cache that is there or not, whole or not, is no degraded read: %q", notes)
			}
		})
	}
}

func TestRecallReadsFromTheStartWhenTheIndexDoesNotFitTheLog(t *testing.T) {
	t.Run("replaced log", func(t *testing.T) {
		h, lines := preparedHome(t, gen.Options{Turns: 3, Events: 120, Seed: 9})
		var all []byte
		for _, l := range lines {
			all = append(all, l...)
		}
		if err := os.WriteFile(h.path+".new", all, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(h.path+".new", h.path); err != nil {
			t.Fatal(err)
		}
		for k, p := range recallAll(t, h) {
			if p.Index != "" || !strings.Contains(p.FullScan, "another file") {
				t.Fatalf("seq %d: path %+v, want a full read naming the other file", k+1, p)
			}
		}
	})
	t.Run("marks that point elsewhere", func(t *testing.T) {
		h, _ := preparedHome(t, gen.Options{Turns: 4, Events: 300, Seed: 10})
		fi, err := os.Stat(h.path)
		if err != nil {
			t.Fatal(err)
		}
		dev, ino, _ := index.FileIdentity(fi)
		marks, _, err := index.LoadSeq(h.svc.FS, h.svc.Home, h.id, dev, ino)
		if err != nil || len(marks) < 3 {
			t.Fatalf("cache: %d marks, %v", len(marks), err)
		}
		marks[2].Offset += 7 // mid-line
		marks[1].Offset = marks[0].Offset
		if err := index.NewWriter(h.svc.FS, h.svc.Home).WriteSeq(h.id, dev, ino, marks); err != nil {
			t.Fatal(err)
		}
		paths := recallAll(t, h)
		for _, k := range []int{index.MarkEvery, 2*index.MarkEvery + 3} {
			if p := paths[k]; p.FullScan == "" {
				t.Fatalf("seq %d: path %+v, want a full read", k+1, p)
			}
		}
		if p := paths[3*index.MarkEvery]; p.FullScan != "" || p.Index != "cache" {
			t.Fatalf("seq %d (a good mark): %+v", 3*index.MarkEvery+1, p)
		}
	})
	t.Run("never prepared", func(t *testing.T) {
		lines := generated(t, gen.Options{Turns: 2, Events: 40, Seed: 12})
		h := newIndexHome(t)
		for _, l := range lines {
			h.write(l)
		}
		for k, p := range recallAll(t, h) {
			if p.Index != "" || !strings.Contains(p.FullScan, "no seq cache") {
				t.Fatalf("seq %d: %+v", k+1, p)
			}
		}
	})
}

// TestSeqIndexGrowsWithTheLog: a fold that resumes extends the marks, so
// recall of new seqs seeks too.
func TestSeqIndexGrowsWithTheLog(t *testing.T) {
	defer func(old int64) { indexSaveTail = old }(indexSaveTail)
	indexSaveTail = 0
	lines := generated(t, gen.Options{Turns: 6, Events: 600, Seed: 13})
	h := newIndexHome(t)
	for _, l := range lines[:250] {
		h.write(l)
	}
	if _, err := h.svc.foldSource(h.id); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines[250:] {
		h.write(l)
	}
	fo, err := h.svc.foldSource(h.id)
	if err != nil || fo.From.NextSeq != 251 {
		t.Fatalf("second fold from %+v: %v", fo.From, err)
	}
	for k, p := range recallAll(t, h) {
		if p.Index != "cache" || p.SkippedLines >= index.MarkEvery {
			t.Fatalf("seq %d: %+v", k+1, p)
		}
	}
	// The file holds every mark, and the catalog none.
	fi, err := os.Stat(h.path)
	if err != nil {
		t.Fatal(err)
	}
	dev, ino, _ := index.FileIdentity(fi)
	cached, _, err := index.LoadSeq(h.svc.FS, h.svc.Home, h.id, dev, ino)
	if err != nil {
		t.Fatal(err)
	}
	if want := (600 + index.MarkEvery - 1) / index.MarkEvery; len(cached) != want {
		t.Fatalf("cache %d marks, want %d", len(cached), want)
	}
	for k, m := range cached {
		if m.Seq != int64(k*index.MarkEvery+1) || m.Line != int(m.Seq) {
			t.Fatalf("mark %d is %+v", k, m)
		}
	}
	b, err := bolt.Open(filepath.Join(h.svc.Home, catalog.FileName), 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	err = b.View(func(tx *bolt.Tx) error {
		if bk := tx.Bucket([]byte("seqindex")); bk != nil && bk.Stats().KeyN != 0 {
			return fmt.Errorf("the catalog's old seqindex bucket holds %d values", bk.Stats().KeyN)
		}
		return nil
	})
	if err := errors.Join(err, b.Close()); err != nil {
		t.Fatal(err)
	}
}

// seqFileHeader and seqFileRecord are the sizes of index/<id>.seq's header
// and records (index/doc.go).
const (
	seqFileHeader = 56
	seqFileRecord = 24
)
