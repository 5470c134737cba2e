package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zeebo/xxh3"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
	"github.com/graft-project/graft/vfs"
)

// Dataset is a session log the measurements run on. The log is never
// written: homes get a hard link or a copy of it.
type Dataset struct {
	Name string `json:"name"`
	// ID is the session id the log has in a home.
	ID     string `json:"id"`
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	Events int64  `json:"events"`
	// LastTurn is the byte offset of the last human instruction: the
	// session "grown by one turn" is the log up to there plus the rest.
	LastTurn       int64 `json:"lastTurn"`
	LastTurnEvents int64 `json:"lastTurnEvents"`
}

// Describe reads a log once to fill in a Dataset.
func Describe(name, id, path string) (Dataset, error) {
	ds := Dataset{Name: name, ID: id, Path: path}
	f, err := os.Open(path)
	if err != nil {
		return ds, fmt.Errorf("bench: %w", err)
	}
	var lastHuman int64 = -1
	var lastHumanSeq int64
	res, err := session.ScanFold(f, path, session.ScanFrom{}, func(ev *session.Event, _ []byte, off int64) error {
		if ev.IsHumanInstruction() {
			lastHuman, lastHumanSeq = off, ev.Seq
		}
		return nil
	})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ds, fmt.Errorf("bench: reading %s: %w", path, err)
	}
	if res.Torn != nil {
		return ds, fmt.Errorf("bench: %s has a torn last line; a dataset must be whole", path)
	}
	if lastHuman <= 0 {
		return ds, fmt.Errorf("bench: %s has no human instruction after its first line: no turn to grow by", path)
	}
	ds.Bytes, ds.Events = res.End, int64(res.Events)
	ds.LastTurn, ds.LastTurnEvents = lastHuman, res.LastSeq-lastHumanSeq+1
	return ds, nil
}

// manifest is what the cache keeps beside a generated log, so a log is
// regenerated when the options or the generator's output change.
type manifest struct {
	Options gen.Options `json:"options"`
	Dataset Dataset     `json:"dataset"`
}

// Generated returns the dataset of opts cached under dir/<name>/,
// generating it when it is missing or was made with other options.
// Progress lines go to progress (nil: none).
func Generated(dir, name string, opts gen.Options, progress io.Writer) (Dataset, error) {
	home := filepath.Join(dir, name)
	manPath := filepath.Join(dir, name+".json")
	if data, err := os.ReadFile(manPath); err == nil {
		var m manifest
		if err := json.Unmarshal(data, &m); err == nil && m.Options == opts {
			if fi, err := os.Stat(m.Dataset.Path); err == nil && fi.Size() == m.Dataset.Bytes {
				return m.Dataset, nil
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return Dataset{}, fmt.Errorf("bench: reading %s: %w", manPath, err)
	}
	if err := os.RemoveAll(home); err != nil {
		return Dataset{}, fmt.Errorf("bench: clearing %s: %w", home, err)
	}
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		return Dataset{}, err
	}
	w, err := st.CreateWriter(name)
	if err != nil {
		return Dataset{}, err
	}
	start, last := time.Now(), time.Now()
	genErr := gen.Generate(opts, func(ev *session.Event) error {
		if err := w.Write(ev); err != nil {
			return err
		}
		if progress != nil && time.Since(last) > time.Second {
			last = time.Now()
			fmt.Fprintf(progress, "bench: generating %s: %d of %d events (%.0fs)\n", name, w.Events(), opts.Events, time.Since(start).Seconds())
		}
		return nil
	})
	if err := errors.Join(genErr, w.Close()); err != nil {
		return Dataset{}, fmt.Errorf("bench: generating %s: %w", name, err)
	}
	ds, err := Describe(name, name, st.Path(name))
	if err != nil {
		return Dataset{}, err
	}
	data, err := json.MarshalIndent(manifest{Options: opts, Dataset: ds}, "", "  ")
	if err != nil {
		return Dataset{}, err
	}
	if err := os.WriteFile(manPath, data, 0o600); err != nil {
		return Dataset{}, fmt.Errorf("bench: writing %s: %w", manPath, err)
	}
	if progress != nil {
		fmt.Fprintf(progress, "bench: generated %s: %d events, %.1f MiB in %.0fs\n", name, ds.Events, float64(ds.Bytes)/(1<<20), time.Since(start).Seconds())
	}
	return ds, nil
}

// NewHome makes a fresh graft home under dir holding the first upTo bytes
// of ds's log (all of it when upTo < 0) as session ds.ID. A whole log
// that will only be read is hard-linked; otherwise it is copied.
func NewHome(dir string, ds Dataset, upTo int64, willAppend bool) (string, error) {
	home, err := os.MkdirTemp(dir, ds.Name+"-home-")
	if err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	sessions := filepath.Join(home, "sessions")
	if err := os.MkdirAll(sessions, session.DirMode); err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	dst := filepath.Join(sessions, ds.ID+session.Ext)
	if upTo < 0 && !willAppend {
		if err := os.Link(ds.Path, dst); err == nil {
			return home, nil
		}
	}
	if upTo < 0 {
		upTo = ds.Bytes
	}
	return home, copyPrefix(ds.Path, dst, upTo)
}

func copyPrefix(src, dst string, n int64) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer func() {
		if cerr := in.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, session.FileMode)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if _, err := io.CopyN(out, in, n); err != nil {
		return errors.Join(fmt.Errorf("bench: copying %s: %w", src, err), out.Close())
	}
	// Flushed now, as a session's log written over hours is: otherwise the
	// first fsync of an append (a commit's retire mark) would write back
	// the whole copy and be timed as graft's (1.8 s on the large preset).
	if err := out.Sync(); err != nil {
		return errors.Join(fmt.Errorf("bench: flushing %s: %w", dst, err), out.Close())
	}
	return out.Close()
}

// appendRange appends bytes [from, to) of src to dst.
func appendRange(src, dst string, from, to int64) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer func() {
		if cerr := in.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if _, err := io.Copy(out, io.NewSectionReader(in, from, to-from)); err != nil {
		return errors.Join(fmt.Errorf("bench: appending to %s: %w", dst, err), out.Close())
	}
	return out.Close()
}

// Open opens the graft service of a bench home.
func Open(home string, o graft.Options) (*graft.Service, error) {
	svc, err := graft.Open(home, o)
	if err != nil {
		return nil, fmt.Errorf("bench: opening %s: %w", home, err)
	}
	if svc.StartupErr != nil {
		return nil, fmt.Errorf("bench: start-up recovery of %s: %w", home, svc.StartupErr)
	}
	return svc, nil
}

// Timing is the durations of repeated runs of one measurement.
type Timing []time.Duration

// Median is the middle run (the lower middle of an even count).
func (t Timing) Median() time.Duration {
	if len(t) == 0 {
		return 0
	}
	s := slices.Clone(t)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// Quantile is the run below which a fraction q of the runs fall.
func (t Timing) Quantile(q float64) time.Duration {
	if len(t) == 0 {
		return 0
	}
	s := slices.Clone(t)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// BareScan is the floor: a Go loop reading the log and counting its lines.
func BareScan(path string) (time.Duration, int64, error) {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("bench: %w", err)
	}
	buf := make([]byte, 64<<10)
	var lines int64
	for {
		n, err := f.Read(buf)
		lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, errors.Join(fmt.Errorf("bench: reading %s: %w", path, err), f.Close())
		}
	}
	d := time.Since(start)
	return d, lines, f.Close()
}

// HashScan reads the log and hashes every byte with sha256, as the tape
// builder's prefix hash did up to graft-prefix-v1: kept to show what that
// cost.
func HashScan(path string) (time.Duration, error) {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, 64<<10)); err != nil {
		return 0, errors.Join(fmt.Errorf("bench: reading %s: %w", path, err), f.Close())
	}
	d := time.Since(start)
	return d, f.Close()
}

// PrefixHashScan reads the log as BareScan does (64 KiB reads into one
// buffer) and hashes it as the prefix hash graft-prefix-v2 does: XXH3-128
// of each line (streamed across reads), then sha256 of its length and sum
// (24 bytes). It returns the lines it hashed and the sha256.
func PrefixHashScan(path string) (time.Duration, int64, [32]byte, error) {
	var digest [32]byte
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, digest, fmt.Errorf("bench: %w", err)
	}
	buf := make([]byte, 64<<10)
	h, lh := sha256.New(), xxh3.New()
	var lines int64
	var lineLen int // bytes of the current line in earlier reads
	var e [24]byte
	for {
		n, rerr := f.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				lh.Write(chunk)
				lineLen += len(chunk)
				break
			}
			var sum [16]byte
			if lineLen == 0 {
				sum = xxh3.Hash128(chunk[:i]).Bytes()
			} else {
				lh.Write(chunk[:i])
				sum = lh.Sum128().Bytes()
				lh.Reset()
			}
			binary.BigEndian.PutUint64(e[:8], uint64(lineLen+i))
			copy(e[8:], sum[:])
			h.Write(e[:])
			lines++
			lineLen = 0
			chunk = chunk[i+1:]
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, 0, digest, errors.Join(fmt.Errorf("bench: reading %s: %w", path, rerr), f.Close())
		}
	}
	h.Sum(digest[:0])
	d := time.Since(start)
	return d, lines, digest, f.Close()
}

// DecodeScan reads, decodes and sums the log's lines as prepare does
// (session.ScanFoldSums, long lines decoded as they are read) and folds
// nothing: prepare's cost without the tape.
func DecodeScan(path string) (time.Duration, error) {
	start := time.Now()
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	if _, err := session.ScanFoldSums(f, path, session.ScanFrom{}, nil); err != nil {
		return 0, errors.Join(err, f.Close())
	}
	d := time.Since(start)
	return d, f.Close()
}

// ClearIndexes drops a home's scan and seq indexes (and the rest of what
// the catalog derives from the logs), so the next prepare reads the whole
// log.
func ClearIndexes(svc *graft.Service) error {
	err := catalog.With(svc.Home, svc.CatalogTimeout, func(db *catalog.DB) error { return db.ClearDerived() })
	if err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(svc.Home, "index"))
}

// PrepareFull times a prepare that reads the whole log.
func PrepareFull(svc *graft.Service, id string) (time.Duration, *graft.Review, error) {
	if err := ClearIndexes(svc); err != nil {
		return 0, nil, err
	}
	start := time.Now()
	rv, err := svc.Prepare(context.Background(), id, graft.PrepareOptions{})
	d := time.Since(start)
	if err != nil {
		return 0, nil, fmt.Errorf("bench: full prepare of %s: %w", id, err)
	}
	for _, w := range rv.Warnings {
		if strings.Contains(w, "scan index") {
			return 0, nil, fmt.Errorf("bench: full prepare of %s: %s", id, w)
		}
	}
	return d, rv, nil
}

// Incremental is a home whose log grew by one turn after a prepare.
type Incremental struct {
	Svc *graft.Service
	ID  string
	// TailBytes is what the grown prepare reads past the index.
	TailBytes int64
	index     index.ScanIndex
	cache     []byte
	cachePath string
}

// NewIncremental prepares ds without its last turn, then appends the turn.
func NewIncremental(dir string, ds Dataset) (*Incremental, error) {
	home, err := NewHome(dir, ds, ds.LastTurn, true)
	if err != nil {
		return nil, err
	}
	svc, err := Open(home, graft.Options{})
	if err != nil {
		return nil, err
	}
	if _, err := svc.Prepare(context.Background(), ds.ID, graft.PrepareOptions{}); err != nil {
		return nil, fmt.Errorf("bench: preparing %s before its last turn: %w", ds.ID, err)
	}
	inc := &Incremental{Svc: svc, ID: ds.ID, TailBytes: ds.Bytes - ds.LastTurn, cachePath: index.SeqPath(home, ds.ID)}
	var ok bool
	err = catalog.With(home, svc.CatalogTimeout, func(db *catalog.DB) error {
		var err error
		inc.index, ok, err = db.GetScanIndex(ds.ID)
		return err
	})
	if err != nil || !ok {
		return nil, fmt.Errorf("bench: no scan index after preparing %s (%v)", ds.ID, err)
	}
	if inc.cache, err = os.ReadFile(inc.cachePath); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	st, err := session.OpenStore(svc.FS, svc.Home)
	if err != nil {
		return nil, err
	}
	if err := appendRange(ds.Path, st.Path(ds.ID), ds.LastTurn, ds.Bytes); err != nil {
		return nil, err
	}
	return inc, nil
}

// Prepare times one prepare of the grown log from the index stored before
// it grew (put back first: a prepare that read enough stores a new one).
func (inc *Incremental) Prepare() (time.Duration, *graft.Review, error) {
	err := catalog.With(inc.Svc.Home, inc.Svc.CatalogTimeout, func(db *catalog.DB) error { return db.PutScanIndex(inc.index) })
	if err != nil {
		return 0, nil, err
	}
	if err := os.WriteFile(inc.cachePath, inc.cache, session.FileMode); err != nil {
		return 0, nil, fmt.Errorf("bench: %w", err)
	}
	start := time.Now()
	rv, err := inc.Svc.Prepare(context.Background(), inc.ID, graft.PrepareOptions{})
	d := time.Since(start)
	if err != nil {
		return 0, nil, fmt.Errorf("bench: incremental prepare of %s: %w", inc.ID, err)
	}
	for _, w := range rv.Warnings {
		if strings.Contains(w, "scan index") {
			return 0, nil, fmt.Errorf("bench: incremental prepare of %s did not use its index: %s", inc.ID, w)
		}
	}
	return d, rv, nil
}

// CommitRun is one commit and its same-bytes-same-fsyncs baseline.
type CommitRun struct {
	Commit, Baseline time.Duration
	Fsyncs           fsyncCount
	// Rebuild is the drift check's fold (locks held → journal written,
	// which also covers encoding and writing the record); Retire is the
	// commit point (the append of graft/retired, which re-reads the source
	// under the store's append lock).
	Rebuild, Retire time.Duration
}

// Committer commits ds again and again: each run prepares (a re-slice
// after the first) and commits into a new sibling target.
type Committer struct {
	svc  *graft.Service
	rec  *recordFS
	id   string
	dir  string
	hook map[txn.Point]time.Time
}

// NewCommitter makes a home with a copy of ds (commits append to it).
func NewCommitter(dir string, ds Dataset) (*Committer, error) {
	home, err := NewHome(dir, ds, -1, true)
	if err != nil {
		return nil, err
	}
	c := &Committer{rec: newRecordFS(vfs.Default), id: ds.ID, dir: dir, hook: map[txn.Point]time.Time{}}
	c.svc, err = Open(home, graft.Options{FS: c.rec, Hook: func(p txn.Point) { c.hook[p] = time.Now() }})
	if err != nil {
		return nil, err
	}
	// The first prepare reads the whole log and stores its index, as a
	// session's first prepare does; the commits measured come after.
	if _, err := c.svc.Prepare(context.Background(), ds.ID, graft.PrepareOptions{}); err != nil {
		return nil, fmt.Errorf("bench: preparing %s: %w", ds.ID, err)
	}
	return c, nil
}

// Run prepares, commits, and replays the commit's writes and fsyncs.
func (c *Committer) Run() (CommitRun, error) {
	rv, err := c.svc.Prepare(context.Background(), c.id, graft.PrepareOptions{AllowReslice: true})
	if err != nil {
		return CommitRun{}, fmt.Errorf("bench: preparing %s: %w", c.id, err)
	}
	clear(c.hook)
	c.rec.start()
	cat := catalog.ReadWriteStats()
	start := time.Now()
	_, err = c.svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "")
	d := time.Since(start)
	ops := c.rec.stop()
	after := catalog.ReadWriteStats()
	ops = append(ops, catalogOps(catalog.WriteStats{Txns: after.Txns - cat.Txns, PageWrites: after.PageWrites - cat.PageWrites})...)
	if err != nil {
		return CommitRun{}, fmt.Errorf("bench: committing %s: %w", c.id, err)
	}
	run := CommitRun{Commit: d, Fsyncs: countFsyncs(ops),
		Rebuild: c.hook[txn.CommitJournalPrepared].Sub(c.hook[txn.CommitLocked]),
		Retire:  c.hook[txn.CommitSourceRetired].Sub(c.hook[txn.CommitJournalVerified])}
	start = time.Now()
	if err := replay(c.dir, ops); err != nil {
		return CommitRun{}, err
	}
	run.Baseline = time.Since(start)
	return run, nil
}

// Recover times one recovery scan of n pending records of grafts of ds,
// each crashed after its target was flushed (TARGET_FLUSHED): every one is
// rolled back (its target marked abandoned, the leftover recorded, the
// record deleted). It returns the time per record.
func Recover(dir string, ds Dataset, n int) (time.Duration, error) {
	home, err := NewHome(dir, ds, -1, false)
	if err != nil {
		return 0, err
	}
	svc, err := Open(home, graft.Options{})
	if err != nil {
		return 0, err
	}
	st, err := session.OpenStore(svc.FS, svc.Home)
	if err != nil {
		return 0, err
	}
	jrnl, err := journal.Open(svc.FS, svc.Home)
	if err != nil {
		return 0, err
	}
	now := time.Now()
	for k := range n {
		txnID := journal.NewTxnID(now)
		target := fmt.Sprintf("pending-%04d", k)
		origin := session.Event{Type: session.TypeGraftOrigin, Source: session.Source{Kind: session.KindPlugin, Name: "graft"},
			Txn: txnID, Parent: ds.ID, ParentBoundary: 1, Generation: 2, TapeHash: "graft-tape-v1:bench", TapeEvents: 1}
		if err := st.Create(target, []session.Event{origin}); err != nil {
			return 0, fmt.Errorf("bench: pending target %s: %w", target, err)
		}
		fi, err := os.Stat(st.Path(target))
		if err != nil {
			return 0, fmt.Errorf("bench: %w", err)
		}
		rec := journal.Record{Txn: txnID, Kind: journal.KindGraft, State: journal.TargetFlushed, Source: ds.ID, Target: target,
			TapeHash: origin.TapeHash, TapeEvents: 1, TargetBytes: fi.Size(), BoundarySeq: 1, Generation: 2}
		if err := jrnl.Write(rec); err != nil {
			return 0, fmt.Errorf("bench: pending record %d: %w", k, err)
		}
	}
	start := time.Now()
	rep, err := svc.Recover(context.Background())
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("bench: recovery of %d records: %w", n, err)
	}
	if rep.Scanned != n || rep.RolledBack != n {
		return 0, fmt.Errorf("bench: recovery scanned %d and rolled back %d of %d records", rep.Scanned, rep.RolledBack, n)
	}
	return d / time.Duration(n), nil
}

// RecallStats is n recalls of random seqs.
type RecallStats struct {
	Times Timing
	// FromCache counts recalls that found their mark in the cache file;
	// MaxSkipped is the most lines one passed over.
	FromCache, MaxSkipped int
}

// Recall recalls n seqs of ds drawn from a fixed seed, after a prepare
// built the indexes, and checks each event's seq.
func Recall(svc *graft.Service, ds Dataset, n int) (RecallStats, error) {
	var st RecallStats
	rng := rand.New(rand.NewPCG(9, 9))
	for range n {
		seq := 1 + rng.Int64N(ds.Events)
		start := time.Now()
		ev, path, err := svc.RecallWithPath(context.Background(), ds.ID, seq)
		d := time.Since(start)
		if err != nil {
			return st, fmt.Errorf("bench: recall %s %d: %w", ds.ID, seq, err)
		}
		if ev.Seq != seq {
			return st, fmt.Errorf("bench: recall %s %d returned seq %d", ds.ID, seq, ev.Seq)
		}
		st.Times = append(st.Times, d)
		if path.Index == "cache" {
			st.FromCache++
		}
		st.MaxSkipped = max(st.MaxSkipped, path.SkippedLines)
	}
	return st, nil
}

// CatalogOpen times opening and closing a home's catalog once: what every
// operation that touches catalog.db pays.
func CatalogOpen(home string) (time.Duration, error) {
	start := time.Now()
	db, err := catalog.Open(home, catalog.DefaultTimeout)
	if err != nil {
		return 0, err
	}
	err = db.Close()
	return time.Since(start), err
}

// launcherEnv makes a bench executable a launcher: it runs the command of
// its arguments and prints the child's peak RSS and run time (RunLauncher).
const launcherEnv = "GRAFT_BENCH_RSS_LAUNCHER"

// RunLauncher acts as the launcher and exits when launcherEnv is set; it
// returns at once otherwise. Executables that call PeakRSS call it first.
//
// Why a launcher: Linux carries a process's peak RSS across fork and exec
// (ru_maxrss of a child started by a process of 1 GiB is at least 1 GiB),
// so the binary is started by a fresh small process, not by the bench.
func RunLauncher() {
	if os.Getenv(launcherEnv) != "1" {
		return
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "bench launcher: no command")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "bench launcher: %s: %v: %s\n", os.Args[1], err, stderr.Bytes())
		os.Exit(1)
	}
	d := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "bench launcher: no rusage for the child on this platform")
		os.Exit(1)
	}
	fmt.Printf("%d %d\n", ru.Maxrss*1024, d.Nanoseconds()) // Linux reports kilobytes
	os.Exit(0)
}

// bareScanEnv makes an executable that calls RunBareScanProcess a bare
// scan of its one argument, in its own process.
const bareScanEnv = "GRAFT_BENCH_BARESCAN"

// RunBareScanProcess is the bare scan as a user would run it: a process of
// its own that reads the file and counts its lines, nothing else running in
// it. With bareScanEnv set it scans os.Args[1], prints "<ns> <lines>" and
// exits; it returns at once otherwise. Executables that call
// BareScanProcess call it first.
func RunBareScanProcess() {
	if os.Getenv(bareScanEnv) != "1" {
		return
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "bare scan: want one file")
		os.Exit(2)
	}
	d, lines, err := BareScan(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "bare scan: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%d %d\n", d.Nanoseconds(), lines)
	os.Exit(0)
}

// BareScanProcess runs the bare scan of path in a fresh process (the
// running executable, which must call RunBareScanProcess first): scan is
// the read and count inside it, whole the process's wall time as its
// parent sees it (start-up included).
func BareScanProcess(path string) (scan, whole time.Duration, lines int, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, 0, err
	}
	cmd := exec.Command(self, path)
	cmd.Env = append(os.Environ(), bareScanEnv+"=1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("bare scan process: %v: %s", err, stderr.Bytes())
	}
	whole = time.Since(start)
	var ns int64
	if _, err := fmt.Sscanf(out.String(), "%d %d", &ns, &lines); err != nil {
		return 0, 0, 0, fmt.Errorf("bare scan process printed %q: %v", out.String(), err)
	}
	return time.Duration(ns), whole, lines, nil
}

// PeakRSS runs the graft binary's prepare of id in home, after dropping
// the home's indexes, and returns its peak resident set size. The running
// executable must call RunLauncher first thing.
func PeakRSS(bin, home, id string) (int64, time.Duration, error) {
	svc, err := Open(home, graft.Options{})
	if err != nil {
		return 0, 0, err
	}
	if err := ClearIndexes(svc); err != nil {
		return 0, 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, 0, fmt.Errorf("bench: finding the launcher: %w", err)
	}
	cmd := exec.Command(self, bin, "--home", home, "prepare", id, "--json")
	cmd.Env = append(os.Environ(), launcherEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("bench: %s prepare %s: %w: %s", bin, id, err, stderr.Bytes())
	}
	var rss, ns int64
	if _, err := fmt.Sscan(string(out), &rss, &ns); err != nil {
		return 0, 0, fmt.Errorf("bench: the launcher printed %q: %w", out, err)
	}
	return rss, time.Duration(ns), nil
}
