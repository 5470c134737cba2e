package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/importer/gemini"
	"github.com/graft-project/graft/importer/qwen"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

func TestMain(m *testing.M) {
	RunLauncher()
	os.Exit(m.Run())
}

// smallOptions is the default dataset of the benchmarks: big enough for
// the seq index to matter, small enough to generate in a second.
var smallOptions = gen.Options{Turns: 20, Events: 4000, Seed: 1}

// moduleRoot is the directory holding go.mod above the test's directory.
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// benchDataset is the dataset GRAFT_BENCH_DATASET names, from the cache
// under build/bench/ (generated or imported when missing).
func benchDataset(b testing.TB) Dataset {
	b.Helper()
	root := moduleRoot(b)
	cache := filepath.Join(root, "build", "bench", "cache")
	name := os.Getenv("GRAFT_BENCH_DATASET")
	var ds Dataset
	var err error
	switch name {
	case "", "small":
		ds, err = Generated(cache, "small", smallOptions, nil)
	case gen.PresetSeed, gen.PresetLarge:
		opts, perr := gen.PresetOptions(name)
		if perr != nil {
			b.Fatal(perr)
		}
		ds, err = Generated(cache, name, opts, os.Stderr)
	case "fixture":
		ds, err = importedFixture(b, root, cache)
	default:
		b.Fatalf("GRAFT_BENCH_DATASET=%q: want small, seed, large or fixture", name)
	}
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

func importedFixture(b testing.TB, root, cache string) (Dataset, error) {
	bin := graftBinary(b)
	src := filepath.Join(root, "testdata", "fixtures", "claude-code", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	home := filepath.Join(cache, "fixture")
	if err := os.RemoveAll(home); err != nil {
		return Dataset{}, err
	}
	if out, err := exec.Command(bin, "--home", home, "import", "claude-code", src, "--id", "fixture").CombinedOutput(); err != nil {
		return Dataset{}, errors.Join(err, errors.New(string(out)))
	}
	return Describe("fixture", "fixture", filepath.Join(home, "sessions", "fixture.jsonl"))
}

// graftBinary builds the graft binary into the test's temporary directory.
func graftBinary(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "graft")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/graft")
	cmd.Dir = moduleRoot(tb)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build ./cmd/graft: %v\n%s", err, out)
	}
	return bin
}

func BenchmarkBareScan(b *testing.B) {
	ds := benchDataset(b)
	b.SetBytes(ds.Bytes)
	for b.Loop() {
		if _, lines, err := BareScan(ds.Path); err != nil || lines != ds.Events {
			b.Fatalf("%d lines, %v", lines, err)
		}
	}
}

func BenchmarkHashScan(b *testing.B) {
	ds := benchDataset(b)
	b.SetBytes(ds.Bytes)
	for b.Loop() {
		if _, err := HashScan(ds.Path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrefixHashScan(b *testing.B) {
	ds := benchDataset(b)
	b.SetBytes(ds.Bytes)
	for b.Loop() {
		if _, lines, _, err := PrefixHashScan(ds.Path); err != nil || lines != ds.Events {
			b.Fatalf("%d lines, %v", lines, err)
		}
	}
}

func BenchmarkDecodeScan(b *testing.B) {
	ds := benchDataset(b)
	b.SetBytes(ds.Bytes)
	for b.Loop() {
		if _, err := DecodeScan(ds.Path); err != nil {
			b.Fatal(err)
		}
	}
}

// datasetService opens a service on a fresh home holding the dataset's
// log whole.
func datasetService(b *testing.B) (Dataset, *graft.Service) {
	b.Helper()
	ds := benchDataset(b)
	home, err := NewHome(b.TempDir(), ds, -1, false)
	if err != nil {
		b.Fatal(err)
	}
	svc, err := Open(home, graft.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return ds, svc
}

func BenchmarkPrepareFull(b *testing.B) {
	ds, svc := datasetService(b)
	b.SetBytes(ds.Bytes)
	var total, cpu time.Duration
	for b.Loop() {
		before := processCPU(b)
		d, _, err := PrepareFull(svc, ds.ID)
		if err != nil {
			b.Fatal(err)
		}
		cpu += processCPU(b) - before
		total += d
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/prepare")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/prepare")
}

// BenchmarkFind is graft find over the dataset's log: words no event holds
// (every line is read, none decoded whole) and words many hold (those
// lines decoded whole, the newest 10 kept).
func BenchmarkFind(b *testing.B) {
	ds, svc := datasetService(b)
	for _, c := range []struct {
		name  string
		words []string
	}{{"NoMatch", []string{"zzzzqqq"}}, {"TestFailed", []string{"test", "failed"}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(ds.Bytes)
			for b.Loop() {
				res, err := svc.Find(context.Background(), ds.ID, graft.FindQuery{Words: c.words})
				if err != nil {
					b.Fatal(err)
				}
				if c.name == "NoMatch" && res.Total != 0 || c.name != "NoMatch" && res.Total == 0 {
					b.Fatalf("%q: %d matches", c.words, res.Total)
				}
			}
		})
	}
}

// processCPU is the user and system time of this process so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkPrepareIncremental(b *testing.B) {
	ds := benchDataset(b)
	inc, err := NewIncremental(b.TempDir(), ds)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(inc.TailBytes)
	var total time.Duration
	for b.Loop() {
		d, _, err := inc.Prepare()
		if err != nil {
			b.Fatal(err)
		}
		total += d
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/prepare")
}

func BenchmarkCommit(b *testing.B) {
	ds := benchDataset(b)
	c, err := NewCommitter(b.TempDir(), ds)
	if err != nil {
		b.Fatal(err)
	}
	var commit, baseline time.Duration
	var fsyncs int
	for b.Loop() {
		run, err := c.Run()
		if err != nil {
			b.Fatal(err)
		}
		commit, baseline, fsyncs = commit+run.Commit, baseline+run.Baseline, run.Fsyncs.Total()
	}
	b.ReportMetric(float64(commit.Nanoseconds())/float64(b.N), "ns/commit")
	b.ReportMetric(float64(baseline.Nanoseconds())/float64(b.N), "ns/baseline")
	b.ReportMetric(float64(commit)/float64(baseline), "commit/baseline")
	b.ReportMetric(float64(fsyncs), "fsyncs/commit")
}

func BenchmarkRecoverPerRecord(b *testing.B) {
	ds := benchDataset(b)
	n := 100
	if ds.Name == gen.PresetLarge {
		n = 3
	}
	var total time.Duration
	for b.Loop() {
		per, err := Recover(b.TempDir(), ds, n)
		if err != nil {
			b.Fatal(err)
		}
		total += per
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/record")
}

func BenchmarkRecall(b *testing.B) {
	ds := benchDataset(b)
	home, err := NewHome(b.TempDir(), ds, -1, false)
	if err != nil {
		b.Fatal(err)
	}
	svc, err := Open(home, graft.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := PrepareFull(svc, ds.ID); err != nil {
		b.Fatal(err)
	}
	var times Timing
	for b.Loop() {
		st, err := Recall(svc, ds, 100)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, st.Times...)
	}
	b.ReportMetric(float64(times.Median().Nanoseconds()), "ns/recall-median")
}

func BenchmarkPeakRSS(b *testing.B) {
	ds := benchDataset(b)
	bin := graftBinary(b)
	home, err := NewHome(b.TempDir(), ds, -1, false)
	if err != nil {
		b.Fatal(err)
	}
	var peak int64
	for b.Loop() {
		rss, _, err := PeakRSS(bin, home, ds.ID)
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, rss)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-RSS")
}

// TestMeasurementsOnASmallSession runs every measurement once on a small
// generated session and checks what each one claims: the floor counts
// every line, the grown prepare reads from its index and gives the full
// prepare's tape, the commit's replay makes the fsyncs the protocol makes,
// recovery rolls back every record, recall finds every seq from its mark.
func TestMeasurementsOnASmallSession(t *testing.T) {
	dir := t.TempDir()
	ds, err := Generated(filepath.Join(dir, "cache"), "s", gen.Options{Turns: 6, Events: 600, Seed: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generated(filepath.Join(dir, "cache"), "s", gen.Options{Turns: 6, Events: 600, Seed: 3}, nil)
	if err != nil || again != ds {
		t.Fatalf("the cached dataset was not reused: %+v vs %+v (%v)", again, ds, err)
	}
	if ds.Events != 600 || ds.LastTurn <= 0 || ds.LastTurn >= ds.Bytes || ds.LastTurnEvents < 2 {
		t.Fatalf("dataset %+v", ds)
	}
	if _, lines, err := BareScan(ds.Path); err != nil || lines != ds.Events {
		t.Fatalf("bare scan: %d lines, %v", lines, err)
	}
	d, lines, digest, err := PrefixHashScan(ds.Path)
	if err != nil || lines != ds.Events || d <= 0 {
		t.Fatalf("prefix hash scan: %d lines, %v, %v", lines, d, err)
	}
	// The streamed line sums are session.SumLine of each whole line.
	data, err := os.ReadFile(ds.Path)
	if err != nil {
		t.Fatal(err)
	}
	ref := sha256.New()
	longest := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		longest = max(longest, len(line))
		var e [24]byte
		binary.BigEndian.PutUint64(e[:8], uint64(len(line)))
		sum := session.SumLine(line)
		copy(e[8:], sum[:])
		ref.Write(e[:])
	}
	if longest <= 64<<10 {
		t.Fatalf("no line spans two 64 KiB reads (longest %d bytes): the streamed sums are untested", longest)
	}
	if want := ref.Sum(nil); !bytes.Equal(digest[:], want) {
		t.Fatalf("prefix hash scan digest %x, by whole lines %x", digest, want)
	}
	for name, scan := range map[string]func(string) (time.Duration, error){"hash": HashScan, "decode": DecodeScan} {
		if d, err := scan(ds.Path); err != nil || d <= 0 {
			t.Fatalf("%s scan: %v, %v", name, d, err)
		}
	}
	home, err := NewHome(dir, ds, -1, false)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := Open(home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, full, err := PrepareFull(svc, ds.ID)
	if err != nil {
		t.Fatal(err)
	}
	inc, err := NewIncremental(dir, ds)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, grown, err := inc.Prepare()
		if err != nil {
			t.Fatal(err)
		}
		if grown.TapeHash != full.TapeHash || grown.PrefixHash != full.PrefixHash {
			t.Fatalf("grown prepare %s %s, full %s %s", grown.TapeHash, grown.PrefixHash, full.TapeHash, full.PrefixHash)
		}
	}
	st, err := Recall(svc, ds, 200)
	if err != nil {
		t.Fatal(err)
	}
	if st.FromCache != 200 || st.MaxSkipped >= 64 || len(st.Times) != 200 {
		t.Fatalf("recall: %d of 200 from the cache, up to %d lines skipped", st.FromCache, st.MaxSkipped)
	}
	c, err := NewCommitter(dir, ds)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		run, err := c.Run()
		if err != nil {
			t.Fatal(err)
		}
		// Journal record written three times (file and directory each),
		// target file and directory, retire line, record removed; one
		// catalog transaction (lineage and the review marked used), which
		// bbolt fdatasyncs twice.
		if want := (fsyncCount{File: 5, Dir: 5, Catalog: 2}); run.Fsyncs != want {
			t.Fatalf("commit made %s fsyncs, the protocol makes %s", run.Fsyncs, want)
		}
		if run.Commit <= 0 || run.Baseline <= 0 || run.Rebuild <= 0 || run.Retire <= 0 {
			t.Fatalf("run %+v", run)
		}
	}
	per, err := Recover(dir, ds, 5)
	if err != nil || per <= 0 {
		t.Fatalf("recover: %v per record, %v", per, err)
	}
	// The log itself was never written.
	if fi, err := os.Stat(ds.Path); err != nil || fi.Size() != ds.Bytes {
		t.Fatalf("the dataset's log changed: %v %v", fi.Size(), err)
	}
}

// TestReplayMakesTheRecordedWrites: the baseline writes the bytes the
// recording saw, in files named as the commit named them.
func TestReplayMakesTheRecordedWrites(t *testing.T) {
	dir := t.TempDir()
	ops := []writeOp{
		{Kind: "atomic", Path: "/h/.txn/t.json", Data: []byte("{}")},
		{Kind: "create", Path: "/h/sessions/t.jsonl"},
		{Kind: "write", Path: "/h/sessions/t.jsonl", Data: []byte("line\n")},
		{Kind: "sync", Path: "/h/sessions/t.jsonl"},
		{Kind: "syncdir", Path: "/h/sessions"},
		{Kind: "append", Path: "/h/sessions/s.jsonl"},
		{Kind: "write", Path: "/h/sessions/s.jsonl", Data: []byte("retired\n")},
		{Kind: "sync", Path: "/h/sessions/s.jsonl"},
		{Kind: "remove", Path: "/h/.txn/t.json"},
		{Kind: "syncdir", Path: "/h/.txn"},
	}
	ops = append(ops, catalogOps(catalog.WriteStats{Txns: 2, PageWrites: 7})...)
	if c := countFsyncs(ops); c != (fsyncCount{File: 3, Dir: 3, Catalog: 4}) {
		t.Fatalf("counted %s", c)
	}
	// 7 page writes over 2 transactions: 4 and 3, one of each the meta page.
	if n := len(ops); ops[n-2].Kind != "bolttx" || len(ops[n-2].Data) != 3*boltPage || len(ops[n-1].Data) != 2*boltPage {
		t.Fatalf("catalog ops %+v", ops[len(ops)-2:])
	}
	if err := replay(dir, ops); err != nil {
		t.Fatal(err)
	}
	if err := replay(dir, []writeOp{{Kind: "write", Path: "/h/sessions/x.jsonl", Data: []byte("x")}}); err == nil || !strings.Contains(err.Error(), "not opened") {
		t.Fatalf("a write to a file never opened replayed: %v", err)
	}
	left, err := os.ReadDir(dir)
	if err != nil || len(left) != 0 {
		t.Fatalf("replay left %v (%v)", left, err)
	}
}

// TestPeakRSSIsTheChildsOwn: the bench process grows to 256 MiB first; a
// child started by it directly would report at least that (Linux keeps the
// peak across fork and exec), the launcher's child reports its own.
func TestPeakRSSIsTheChildsOwn(t *testing.T) {
	dir := t.TempDir()
	ds, err := Generated(filepath.Join(dir, "cache"), "s", gen.Options{Turns: 3, Events: 200, Seed: 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	home, err := NewHome(dir, ds, -1, false)
	if err != nil {
		t.Fatal(err)
	}
	ballast := make([]byte, 256<<20)
	for k := 0; k < len(ballast); k += 4096 {
		ballast[k] = 1
	}
	rss, d, err := PeakRSS(graftBinary(t), home, ds.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rss < 1<<20 || rss > 128<<20 || d <= 0 {
		t.Fatalf("peak RSS %d bytes in %v: want the child's own few MiB, not the parent's 256 MiB", rss, d)
	}
	if ballast[4096] != 1 {
		t.Fatal("ballast lost")
	}
}

// realSessions are the Claude Code sessions of testdata that Claude Code
// compacted once each.
var realSessions = []string{
	"4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
	"8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
}

func fixturePath(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(moduleRoot(tb), "testdata", "fixtures", "claude-code", name)
}

// TestCompactionsOfTheFixtures reads the compaction of each real session
// from its files and checks that what it read is sane: the call's sub-agent
// transcript was found, every count is positive, the input tokens are of
// the size of the context compacted, the times are in order.
func TestCompactionsOfTheFixtures(t *testing.T) {
	for _, name := range realSessions {
		cs, err := Compactions(fixturePath(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 1 {
			t.Fatalf("%s: %d compactions, the fixture has one", name, len(cs))
		}
		c := cs[0]
		t.Logf("%s: call %v, stall %v, preTokens %d, input %d (%d+%d+%d), output %d, summary %d chars, %s",
			name, c.Call(), c.Stall(), c.PreTokens, c.Input(), c.InputTokens, c.CacheCreationTokens, c.CacheReadTokens, c.OutputTokens, c.SummaryChars, filepath.Base(c.SubAgent))
		if !strings.HasPrefix(filepath.Base(c.SubAgent), "agent-acompact-") || filepath.Dir(filepath.Dir(c.SubAgent)) != strings.TrimSuffix(c.Transcript, ".jsonl") {
			t.Errorf("%s: sub-agent transcript %q", name, c.SubAgent)
		}
		if c.Trigger != "auto" || c.PreTokens <= 0 || c.Requests != 1 || c.InputTokens <= 0 || c.CacheReadTokens <= 0 || c.OutputTokens <= 0 || c.SummaryChars < 1000 {
			t.Errorf("%s: %+v", name, c)
		}
		if in := c.Input(); in < c.PreTokens/2 || in > 2*c.PreTokens {
			t.Errorf("%s: the call read %d input tokens, the context compacted was %d", name, in, c.PreTokens)
		}
		for _, ts := range []time.Time{c.Boundary, c.Before, c.First, c.Last, c.Prompt, c.Answer} {
			if ts.IsZero() {
				t.Fatalf("%s: a time is missing: %+v", name, c)
			}
		}
		if !(!c.First.After(c.Prompt) && !c.Before.After(c.Prompt) && c.Prompt.Before(c.Answer) && !c.Answer.After(c.Last) && !c.Answer.After(c.Boundary)) {
			t.Errorf("%s: times out of order: first %v, before %v, prompt %v, answer %v, last %v, boundary %v", name, c.First, c.Before, c.Prompt, c.Answer, c.Last, c.Boundary)
		}
		if c.Call() < time.Second || c.Call() > 10*time.Minute || c.Stall() < c.Call() || c.Stall() > 10*time.Minute {
			t.Errorf("%s: call %v, stall %v", name, c.Call(), c.Stall())
		}
	}
	// A transcript without a compaction has none.
	if cs, err := Compactions(fixturePath(t, "short.jsonl")); err != nil || len(cs) != 0 {
		t.Fatalf("short.jsonl: %v, %v", cs, err)
	}
}

// TestSynthesizeTranscript: the transcript is made again byte for byte
// (and found in the cache), its lines are records of one session with no
// uuid used twice, and the hook turns chain on its last record.
func TestSynthesizeTranscript(t *testing.T) {
	src := fixturePath(t, realSessions[0])
	a, err := SynthesizeTranscript(filepath.Join(t.TempDir(), "a"), "s", src, 4<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := SynthesizeTranscript(filepath.Join(t.TempDir(), "b"), "s", src, 4<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	da, err := os.ReadFile(a.Path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(da, db) || a.SessionID != b.SessionID || a.LastUUID != b.LastUUID {
		t.Fatal("two syntheses of the same transcript differ")
	}
	if a.Bytes != int64(len(da)) || a.Bytes < 4<<20 || a.Bytes > 4<<20+(1<<20) || a.Copies < 2 {
		t.Fatalf("synthetic %+v (%d bytes on disk)", a, len(da))
	}
	again, err := SynthesizeTranscript(filepath.Dir(filepath.Dir(a.Path)), "s", src, 4<<20, nil)
	if err != nil || again != a {
		t.Fatalf("the cached transcript was not reused: %+v vs %+v (%v)", again, a, err)
	}
	turn, last := HookTurn(a.SessionID, "/p", a.LastUUID, 0, a.LastTimestamp.Add(time.Minute))
	seen := map[string]bool{}
	var prev time.Time
	lines := bytes.Split(bytes.TrimSuffix(append(da, turn...), []byte("\n")), []byte("\n"))
	for k, line := range lines {
		var r struct {
			UUID      string    `json:"uuid"`
			SessionID string    `json:"sessionId"`
			Timestamp time.Time `json:"timestamp"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d: %v", k+1, err)
		}
		if r.SessionID != "" && r.SessionID != a.SessionID {
			t.Fatalf("line %d: session %s, want %s", k+1, r.SessionID, a.SessionID)
		}
		if r.UUID != "" && seen[r.UUID] {
			t.Fatalf("line %d: uuid %s used twice", k+1, r.UUID)
		}
		seen[r.UUID] = true
		if k == len(lines)-1 && (r.UUID != last || !r.Timestamp.After(prev)) {
			t.Fatalf("the turn ends with %s at %v after %v, want %s", r.UUID, r.Timestamp, prev, last)
		}
		if !r.Timestamp.IsZero() {
			prev = r.Timestamp
		}
	}
	if n := len(turn); n < 4<<10 || n > 16<<10 || bytes.Count(turn, []byte("\n")) != 4 {
		t.Fatalf("a turn of %d bytes, %d lines", n, bytes.Count(turn, []byte("\n")))
	}
}

// keyOrders are the top-level keys, in order, of each line of data.
func keyOrders(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	for line := range bytes.SplitSeq(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		dec := json.NewDecoder(bytes.NewReader(line))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("a line is not an object: %.80s (%v)", line, err)
		}
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(string))
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, strings.Join(keys, ","))
	}
	return out
}

// newImportStore is a fresh graft home and its session store.
func newImportStore(t *testing.T) (*session.Store, string) {
	home := t.TempDir()
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	return st, home
}

// TestSynthesizeHostSessions: the Gemini CLI and Qwen Code transcripts are
// made again byte for byte (and found in the cache), each line has the
// keys, in order, of a line of the session the real program recorded, and
// the host's importer reads all of it (no malformed line, no warning) into
// the person's words, the model's texts, and every tool call with its
// result.
func TestSynthesizeHostSessions(t *testing.T) {
	root := moduleRoot(t)
	for _, c := range []struct {
		host, recorded string
	}{
		{HostGemini, "importer/gemini/testdata/session-recorded.jsonl"},
		{HostQwen, "importer/qwen/testdata/session.jsonl"},
	} {
		src := importSources[c.host]
		a, err := src.synth(filepath.Join(t.TempDir(), "a"), "s", filepath.Join(root, src.source), 4<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := src.synth(filepath.Join(t.TempDir(), "b"), "s", filepath.Join(root, src.source), 4<<20, nil)
		if err != nil {
			t.Fatal(err)
		}
		da, err := os.ReadFile(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		db, err := os.ReadFile(b.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(da, db) || a.Bytes != int64(len(da)) || a.Bytes < 4<<20 || a.Copies < 2 || a.Lines != bytes.Count(da, []byte("\n")) {
			t.Fatalf("%s: two syntheses differ, or %+v (%d bytes on disk)", c.host, a, len(da))
		}
		again, err := src.synth(filepath.Dir(filepath.Dir(a.Path)), "s", filepath.Join(root, src.source), 4<<20, nil)
		if err != nil || again != a {
			t.Fatalf("%s: the cached transcript was not reused: %+v vs %+v (%v)", c.host, again, a, err)
		}
		rec, err := os.ReadFile(filepath.Join(root, c.recorded))
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, k := range keyOrders(t, rec) {
			known[k] = true
		}
		shapes := map[string]int{}
		for k, keys := range keyOrders(t, da) {
			if !known[keys] {
				t.Fatalf("%s line %d: keys %s, which no line of %s has", c.host, k+1, keys, c.recorded)
			}
			shapes[keys]++
		}
		if len(shapes) < 4 {
			t.Fatalf("%s: %d shapes of line: %v", c.host, len(shapes), shapes)
		}
		st, home := newImportStore(t)
		var sum *importer.Summary
		if c.host == HostGemini {
			sum, err = gemini.Import(gemini.Options{Store: st, Home: home, Path: a.Path, ID: "s"})
		} else {
			sum, err = qwen.Import(qwen.Options{Store: st, Home: home, Path: a.Path, ID: "s"})
		}
		if err != nil {
			t.Fatal(err)
		}
		if sum.Offset != a.Bytes || sum.MalformedCount != 0 || sum.WarningCount != 0 {
			t.Fatalf("%s: %s", c.host, sum.Text())
		}
		evs, _, err := st.ReadAll("s")
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		ok := 0
		for _, ev := range evs {
			n[ev.Type+" "+ev.Source.Kind]++
			if ev.Tool != nil && ev.Tool.OK != nil && *ev.Tool.OK {
				ok++
			}
		}
		calls := n[session.TypeToolCall+" "+session.KindAssistant]
		if calls < 2*150 || n[session.TypeToolResult+" "+session.KindTool] != calls || ok < calls*9/10 ||
			n[session.TypeUserMessage+" "+session.KindUser] < 2*4 || n[session.TypeAssistantMessage+" "+session.KindAssistant] < 2*80 ||
			sum.Skipped["thoughts"]+sum.Skipped["thinking"] == 0 {
			t.Fatalf("%s: events %v, %d ok; %s", c.host, n, ok, sum.Text())
		}
		t.Logf("%s: %d lines, %d bytes, %d copies; events %v; skipped %v", c.host, a.Lines, a.Bytes, a.Copies, n, sum.Skipped)
	}
}

// TestHandoffAndHookOnce runs the real binary once each way: a handoff of
// the fixture (committed, exported under CLAUDE_CONFIG_DIR), and the Stop
// hook of a small transcript after two turns (each imported to the end).
func TestHandoffAndHookOnce(t *testing.T) {
	bin := graftBinary(t)
	dir := t.TempDir()
	run, err := Handoff(bin, dir, fixturePath(t, realSessions[0]))
	if err != nil {
		t.Fatal(err)
	}
	if run.Wall <= 0 || run.Events != 395 || run.SubEvents == 0 || run.TapeChars == 0 || run.Generation != 2 || !strings.HasPrefix(run.ResumeCommand, "claude --resume ") {
		t.Fatalf("handoff %+v", run)
	}
	st, err := SynthesizeTranscript(filepath.Join(dir, "cache"), "h", fixturePath(t, realSessions[0]), 256<<10, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHookBench(bin, dir, st)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if d, err := h.Turn(); err != nil || d <= 0 {
			t.Fatalf("hook: %v, %v", d, err)
		}
	}
	p, err := h.Parts()
	if err != nil {
		t.Fatal(err)
	}
	if p.Follow <= 0 || p.Fold <= 0 || p.LogBytes <= 0 || p.PrefixBytes < st.Bytes || len(p.Reads) == 0 {
		t.Fatalf("parts %+v", p)
	}
}

// BenchmarkHandoffFixture is graft handoff claude-code of the real
// session, as a process on a fresh home each time.
func BenchmarkHandoffFixture(b *testing.B) {
	bin := graftBinary(b)
	src := fixturePath(b, realSessions[0])
	var times Timing
	for b.Loop() {
		dir := b.TempDir()
		run, err := Handoff(bin, dir, src)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, run.Wall)
	}
	b.ReportMetric(float64(times.Median().Nanoseconds()), "ns/handoff-median")
}

// benchmarkHookTurn times one Stop hook after each turn appended to a
// Claude Code transcript of mib MiB already imported: the usual turn, or
// with paste as its instruction when paste is not empty.
func benchmarkHookTurn(b *testing.B, mib int64, paste string) {
	bin := graftBinary(b)
	cache := filepath.Join(moduleRoot(b), "build", "bench", "cache")
	st, err := SynthesizeTranscript(cache, fmt.Sprintf("hook-%dmib", mib), fixturePath(b, realSessions[0]), mib<<20, os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	h, err := NewHookBench(bin, b.TempDir(), st)
	if err != nil {
		b.Fatal(err)
	}
	turn := h.Turn
	if paste != "" {
		turn = func() (time.Duration, error) { return h.PasteTurn(paste) }
	}
	var times Timing
	for b.Loop() {
		d, err := turn()
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, d)
	}
	b.ReportMetric(float64(times.Median().Nanoseconds()), "ns/hook-median")
}

// BenchmarkHookPasteTurn: one Stop hook after a turn whose instruction
// is a pasted 512 KiB log, on a 1 MiB Claude Code transcript.
func BenchmarkHookPasteTurn(b *testing.B) { benchmarkHookTurn(b, 1, PastedLog(512<<10)) }

// BenchmarkHookTurn1MB: one Stop hook after one more turn of a 1 MiB
// Claude Code transcript already imported.
func BenchmarkHookTurn1MB(b *testing.B) { benchmarkHookTurn(b, 1, "") }

// BenchmarkHookTurn100MB is the same on 100 MiB (not with -short: the
// first import takes seconds).
func BenchmarkHookTurn100MB(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: the 100 MiB transcript is synthesized and imported first")
	}
	benchmarkHookTurn(b, 100, "")
}

// importSources are the real transcripts the import benchmarks repeat into
// 100 MiB, per host, and how (as benchtable's import row does).
var importSources = map[string]struct {
	source string
	synth  func(dir, name, source string, size int64, progress io.Writer) (Synthetic, error)
}{
	HostClaudeCode: {"testdata/fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", SynthesizeTranscript},
	HostCodex:      {"testdata/fidelity/transcripts/codex/rollout-2025-11-12T17-48-11-019a7ae6-1945-7c63-98f2-210adb922af9.jsonl", SynthesizeRollout},
	HostGemini:     {"testdata/fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", SynthesizeGeminiSession},
	HostQwen:       {"testdata/fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl", SynthesizeQwenSession},
}

// benchmarkImport times the import of a 100 MiB transcript of host into a
// fresh home per op, and reports MB/s of the transcript.
func benchmarkImport(b *testing.B, host string) {
	if testing.Short() {
		b.Skip("-short: the 100 MiB transcript is synthesized first")
	}
	root := moduleRoot(b)
	cache := filepath.Join(root, "build", "bench", "cache")
	src := importSources[host]
	st, err := src.synth(cache, "import-"+host+"-100mib", filepath.Join(root, src.source), 100<<20, os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	b.SetBytes(st.Bytes)
	b.ResetTimer()
	for range b.N {
		run, err := ImportTranscript(dir, host, st.Path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := os.RemoveAll(run.Home); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func BenchmarkImportClaudeCode100MB(b *testing.B) { benchmarkImport(b, HostClaudeCode) }

func BenchmarkImportCodex100MB(b *testing.B) { benchmarkImport(b, HostCodex) }

func BenchmarkImportGemini100MB(b *testing.B) { benchmarkImport(b, HostGemini) }

func BenchmarkImportQwen100MB(b *testing.B) { benchmarkImport(b, HostQwen) }

// benchmarkHookHosts is the per-turn hook of Claude Code (Stop, as
// BenchmarkHookTurn) and of Gemini CLI (BeforeAgent, then AfterAgent)
// on transcripts of mib MiB, one turn of each host per op, interleaved so
// that the machine's load falls on all three alike; it reports and logs
// the medians of the hooks' wall and CPU times.
func benchmarkHookHosts(b *testing.B, mib int64) {
	bin := graftBinary(b)
	root := moduleRoot(b)
	cache := filepath.Join(root, "build", "bench", "cache")
	src := fixturePath(b, realSessions[0])
	cst, err := SynthesizeTranscript(cache, fmt.Sprintf("hook-%dmib", mib), src, mib<<20, os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	gst, err := SynthesizeGeminiSession(cache, fmt.Sprintf("hook-gemini-%dmib", mib), src, mib<<20, os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	ch, err := NewHookBench(bin, b.TempDir(), cst)
	if err != nil {
		b.Fatal(err)
	}
	gh, err := NewGeminiHookBench(bin, b.TempDir(), gst)
	if err != nil {
		b.Fatal(err)
	}
	var claude, before, after, claudeCPU, beforeCPU, afterCPU Timing
	for b.Loop() {
		d, err := ch.Turn()
		if err != nil {
			b.Fatal(err)
		}
		claude, claudeCPU = append(claude, d), append(claudeCPU, ch.CPU)
		if d, err = gh.Turn("BeforeAgent"); err != nil {
			b.Fatal(err)
		}
		before, beforeCPU = append(before, d), append(beforeCPU, gh.CPU)
		if d, err = gh.Turn("AfterAgent"); err != nil {
			b.Fatal(err)
		}
		after, afterCPU = append(after, d), append(afterCPU, gh.CPU)
	}
	b.ReportMetric(float64(claude.Median().Nanoseconds()), "ns/claude-stop")
	b.ReportMetric(float64(before.Median().Nanoseconds()), "ns/gemini-beforeagent")
	b.ReportMetric(float64(after.Median().Nanoseconds()), "ns/gemini-afteragent")
	b.Logf("%d MiB, %d runs, medians (min–max), wall / CPU of the hook process:", mib, len(claude))
	b.Logf("  Claude Code Stop (%.1f MiB, turn %d B): %v (%v–%v) / %v", float64(cst.Bytes)/(1<<20), ch.TurnBytes, claude.Median(), claude.Quantile(0), claude.Quantile(1), claudeCPU.Median())
	b.Logf("  Gemini CLI BeforeAgent (%.1f MiB, turn %d B): %v (%v–%v) / %v", float64(gst.Bytes)/(1<<20), gh.TurnBytes, before.Median(), before.Quantile(0), before.Quantile(1), beforeCPU.Median())
	b.Logf("  Gemini CLI AfterAgent: %v (%v–%v) / %v", after.Median(), after.Quantile(0), after.Quantile(1), afterCPU.Median())
}

// BenchmarkHookHosts1MB: the per-turn hooks of Claude Code and Gemini CLI
// on 1 MiB transcripts already imported.
func BenchmarkHookHosts1MB(b *testing.B) { benchmarkHookHosts(b, 1) }

// BenchmarkHookHosts100MB is the same on 100 MiB (not with -short).
func BenchmarkHookHosts100MB(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: the 100 MiB transcripts are synthesized and imported first")
	}
	benchmarkHookHosts(b, 100)
}
