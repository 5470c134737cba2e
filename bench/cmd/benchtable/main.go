// Command benchtable measures graft on the seed preset, the large preset
// and a real Claude Code transcript, and prints one table of ratios
// against their floors, measured in the same run on the same files (issue
// 9). Its "handoff" section (issue 15) times graft handoff claude-code of
// the real compacted sessions beside what Claude Code's compaction of them
// took (read from their files), and the per-turn Stop hook on transcripts
// of 1 and 100 MiB; -datasets handoff runs that section alone. Its
// "import" section (issue 25) times graft import of a 100 MiB transcript of
// each host beside the full prepare of the log it wrote and the bare scan
// of the transcript; -datasets import runs it alone. make bench runs it;
// see BENCHMARKS.md and package bench.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/graft-project/graft/bench"
	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/internal/gctune"
)

// fixtureName is the real transcript of the issue, in testdata/fixtures.
const fixtureName = "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

type config struct {
	runs, largeRuns int
	recalls         int
	recover         int
	recoverBytes    int64
	datasets        string
	keep            bool
	hookMiB         []int64
}

// tuned: this process's collector is graft's commands' (gctune.Start).
var tuned bool

func main() {
	bench.RunLauncher()
	bench.RunBareScanProcess()
	// The measures made in this process run with the collector graft's
	// binary runs its commands with (the binary's own runs tune themselves).
	tuned = gctune.Start()
	var c config
	flag.IntVar(&c.runs, "runs", 5, "runs of each timed measurement (the table shows medians)")
	flag.IntVar(&c.largeRuns, "large-runs", 5, "runs on the large preset")
	flag.IntVar(&c.recalls, "recalls", 2000, "random seqs recalled per dataset")
	flag.IntVar(&c.recover, "recover", 1000, "pending records in the recovery measurement, at most")
	flag.Int64Var(&c.recoverBytes, "recover-bytes", 4<<30, "fewer records when records × log size would pass this: recovery folds a record's source once per record")
	flag.StringVar(&c.datasets, "datasets", "seed,large,fixture,import,handoff", "datasets to measure, comma-separated; import: the import of a 100 MiB transcript of each host (issue 25); handoff: the handoff of the real sessions and the per-turn hook (issue 15)")
	flag.BoolVar(&c.keep, "keep", false, "keep the work homes under build/bench/work")
	hookMiB := flag.String("hook-mib", "1,100", "sizes in MiB of the transcripts the per-turn hook runs on, comma-separated (the last ÷ the first is the ratio)")
	flag.Parse()
	for _, f := range strings.Split(*hookMiB, ",") {
		var n int64
		if _, err := fmt.Sscan(f, &n); err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "benchtable: -hook-mib %q: want sizes in MiB, comma-separated\n", *hookMiB)
			os.Exit(2)
		}
		c.hookMiB = append(c.hookMiB, n)
	}
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "benchtable: %v\n", err)
		os.Exit(1)
	}
}

// result is one dataset's column.
type result struct {
	ds               bench.Dataset
	bare, full, incr bench.Timing
	// bareProc is the bare scan in a process of its own (issue 19, 11):
	// inside it, and the whole process as its parent sees it.
	bareProc, bareProcWhole bench.Timing
	hash, decode            bench.Timing
	prefixHash              bench.Timing
	commit, baseline        bench.Timing
	rebuild, retire         bench.Timing
	fsyncs                  string
	recoverPer              time.Duration
	recoverN                int
	recall                  bench.RecallStats
	catalogOpen             bench.Timing
	rss                     int64
	rssTime                 time.Duration
	runs                    int64
}

func run(c config, out io.Writer) (err error) {
	root, err := bench.ModuleRoot()
	if err != nil {
		return err
	}
	base := filepath.Join(root, "build", "bench")
	cache, work := filepath.Join(base, "cache"), filepath.Join(base, "work")
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	if !c.keep {
		defer func() {
			if rerr := os.RemoveAll(work); rerr != nil {
				err = errors.Join(err, fmt.Errorf("removing the work homes: %w", rerr))
			}
		}()
	}
	loadBefore := bench.LoadAvg()
	started := time.Now()
	bin := filepath.Join(base, "graft")
	progress("building %s", bin)
	if err := goBuild(root, bin); err != nil {
		return err
	}
	var results []*result
	var hosts *hostsResult
	var imports []*importResult
	for _, name := range strings.Split(c.datasets, ",") {
		if name == "import" {
			if imports, err = measureImports(c, root, cache, work, bin); err != nil {
				return fmt.Errorf("import: %w", err)
			}
			continue
		}
		if name == "handoff" {
			if hosts, err = measureHosts(c, root, cache, work, bin); err != nil {
				return fmt.Errorf("handoff: %w", err)
			}
			continue
		}
		ds, err := dataset(name, root, cache, bin)
		if err != nil {
			return err
		}
		runs := c.runs
		if name == gen.PresetLarge {
			runs = c.largeRuns
		}
		recoverN := int(min(int64(c.recover), max(3, c.recoverBytes/ds.Bytes)))
		r, err := measure(ds, runs, recoverN, c.recalls, work, bin)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results = append(results, r)
	}
	if len(results) > 0 {
		printTable(out, results)
	}
	if len(imports) > 0 {
		printImports(out, imports, c.runs)
	}
	if hosts != nil {
		printHosts(out, hosts)
	}
	gc := "the collector as graft's commands tune it (internal/gctune: the next collection at 24 MiB of heap, GOGC 100 to 600)"
	if !tuned {
		gc = "the collector as GOGC/GOMEMLIMIT in the environment set it (graft's commands leave it so too)"
	}
	fmt.Fprintf(out, "\nMachine: %s, %d cores (GOMAXPROCS %d), %s, %s %s; %s; load average %s before, %s after; took %s.\n",
		bench.CPUModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, bench.Kernel(), started.UTC().Format("2006-01-02 15:04 UTC"), loadBefore, bench.LoadAvg(), time.Since(started).Round(time.Second))
	fmt.Fprintf(out, "Measured in this process with %s.\n", gc)
	return nil
}

func dataset(name, root, cache, bin string) (bench.Dataset, error) {
	switch name {
	case gen.PresetSeed, gen.PresetLarge:
		opts, err := gen.PresetOptions(name)
		if err != nil {
			return bench.Dataset{}, err
		}
		progress("dataset %s (cached under %s)", name, cache)
		return bench.Generated(cache, name, opts, os.Stderr)
	case "fixture":
		src := filepath.Join(root, "testdata", "fixtures", "claude-code", fixtureName)
		if _, err := os.Stat(src); err != nil {
			return bench.Dataset{}, fmt.Errorf("the fixture is missing from the repository: %w", err)
		}
		home := filepath.Join(cache, "fixture")
		if err := os.RemoveAll(home); err != nil {
			return bench.Dataset{}, err
		}
		progress("importing %s with graft import claude-code", fixtureName)
		cmd := exec.Command(bin, "--home", home, "import", "claude-code", src, "--id", "fixture")
		if outb, err := cmd.CombinedOutput(); err != nil {
			return bench.Dataset{}, fmt.Errorf("graft import claude-code %s: %w: %s", src, err, outb)
		}
		return bench.Describe("fixture", "fixture", filepath.Join(home, "sessions", "fixture.jsonl"))
	}
	return bench.Dataset{}, fmt.Errorf("unknown dataset %q (want seed, large, fixture, import or handoff)", name)
}

func measure(ds bench.Dataset, runs, recoverN, recalls int, work, bin string) (_ *result, err error) {
	r := &result{ds: ds, recoverN: recoverN, runs: int64(runs)}
	dir, err := os.MkdirTemp(work, ds.Name+"-")
	if err != nil {
		return nil, err
	}
	// A dataset's homes hold copies of its log: gone before the next one.
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil {
			err = errors.Join(err, fmt.Errorf("removing %s: %w", dir, rerr))
		}
	}()

	progress("%s: bare scan, sha256 scan, decode scan and full prepare, %d runs each", ds.Name, runs)
	home, err := bench.NewHome(dir, ds, -1, false)
	if err != nil {
		return nil, err
	}
	svc, err := bench.Open(home, graft.Options{})
	if err != nil {
		return nil, err
	}
	var fullReview *graft.Review
	for range runs {
		d, lines, err := bench.BareScan(ds.Path)
		if err != nil {
			return nil, err
		}
		if lines != ds.Events {
			return nil, fmt.Errorf("bare scan counted %d lines, the log has %d events", lines, ds.Events)
		}
		r.bare = append(r.bare, d)
		scan, whole, plines, err := bench.BareScanProcess(ds.Path)
		if err != nil {
			return nil, err
		}
		if int64(plines) != ds.Events {
			return nil, fmt.Errorf("bare scan process counted %d lines, the log has %d events", plines, ds.Events)
		}
		r.bareProc, r.bareProcWhole = append(r.bareProc, scan), append(r.bareProcWhole, whole)
		if d, err = bench.HashScan(ds.Path); err != nil {
			return nil, err
		}
		r.hash = append(r.hash, d)
		d, lines, _, err = bench.PrefixHashScan(ds.Path)
		if err != nil {
			return nil, err
		}
		if lines != ds.Events {
			return nil, fmt.Errorf("prefix hash scan hashed %d lines, the log has %d events", lines, ds.Events)
		}
		r.prefixHash = append(r.prefixHash, d)
		if d, err = bench.DecodeScan(ds.Path); err != nil {
			return nil, err
		}
		r.decode = append(r.decode, d)
		d, rv, err := bench.PrepareFull(svc, ds.ID)
		if err != nil {
			return nil, err
		}
		r.full = append(r.full, d)
		fullReview = rv
	}

	progress("%s: recall of %d random seqs", ds.Name, recalls)
	if r.recall, err = bench.Recall(svc, ds, recalls); err != nil {
		return nil, err
	}
	for range 50 {
		d, err := bench.CatalogOpen(home)
		if err != nil {
			return nil, err
		}
		r.catalogOpen = append(r.catalogOpen, d)
	}

	progress("%s: peak RSS of graft prepare", ds.Name)
	if r.rss, r.rssTime, err = bench.PeakRSS(bin, home, ds.ID); err != nil {
		return nil, err
	}

	progress("%s: incremental prepare after the last turn (%d events, %.1f MiB), %d runs", ds.Name, ds.LastTurnEvents, float64(ds.Bytes-ds.LastTurn)/(1<<20), runs)
	inc, err := bench.NewIncremental(dir, ds)
	if err != nil {
		return nil, err
	}
	for range runs {
		d, rv, err := inc.Prepare()
		if err != nil {
			return nil, err
		}
		if rv.TapeHash != fullReview.TapeHash || rv.PrefixHash != fullReview.PrefixHash {
			return nil, fmt.Errorf("the incremental prepare gave tape %s prefix %s, the full one %s %s", rv.TapeHash, rv.PrefixHash, fullReview.TapeHash, fullReview.PrefixHash)
		}
		r.incr = append(r.incr, d)
	}

	progress("%s: commit and its same-bytes-same-fsyncs baseline, %d runs", ds.Name, runs)
	cm, err := bench.NewCommitter(dir, ds)
	if err != nil {
		return nil, err
	}
	for range runs {
		cr, err := cm.Run()
		if err != nil {
			return nil, err
		}
		r.commit, r.baseline = append(r.commit, cr.Commit), append(r.baseline, cr.Baseline)
		r.rebuild, r.retire = append(r.rebuild, cr.Rebuild), append(r.retire, cr.Retire)
		r.fsyncs = cr.Fsyncs.String()
	}

	progress("%s: recovery of %d pending records", ds.Name, recoverN)
	if r.recoverPer, err = bench.Recover(dir, ds, recoverN); err != nil {
		return nil, err
	}
	return r, nil
}

func printTable(w io.Writer, rs []*result) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("| measure | target (large preset) |")
	for _, r := range rs {
		p(" %s |", r.ds.Name)
	}
	p("\n|---|---|")
	for range rs {
		p("---|")
	}
	p("\n")
	row := func(name, target string, cell func(r *result) string) {
		p("| %s | %s |", name, target)
		for _, r := range rs {
			p(" %s |", cell(r))
		}
		p("\n")
	}
	row("log", "", func(r *result) string {
		return fmt.Sprintf("%s, %d events", mib(r.ds.Bytes), r.ds.Events)
	})
	row("prepare ÷ bare scan", "≤ 3×", func(r *result) string {
		return fmt.Sprintf("**%.1f×** (%s ÷ %s)%s", ratio(r.full.Median(), r.bare.Median()), ms(r.full.Median()), ms(r.bare.Median()), verdict(r, ratio(r.full.Median(), r.bare.Median()) <= 3))
	})
	row("the floor as a user sees it: the bare scan in a process of its own (warm cache), inside it; the whole process", "", func(r *result) string {
		return fmt.Sprintf("%s; %s (in this process, between other scans: %s)", ms(r.bareProc.Median()), ms(r.bareProcWhole.Median()), ms(r.bare.Median()))
	})
	row("`graft prepare` as its own process (cold indexes, the peak-RSS run) ÷ that whole process", "", func(r *result) string {
		return fmt.Sprintf("%.1f× (%s ÷ %s)", ratio(r.rssTime, r.bareProcWhole.Median()), ms(r.rssTime), ms(r.bareProcWhole.Median()))
	})
	row("… its parts ÷ bare scan: reading and hashing as the prefix hash does (graft-prefix-v2: XXH3-128 per line); reading, decoding and hashing as prepare does, without the tape", "", func(r *result) string {
		return fmt.Sprintf("%.1f× (%s); %.1f× (%s)", ratio(r.prefixHash.Median(), r.bare.Median()), ms(r.prefixHash.Median()), ratio(r.decode.Median(), r.bare.Median()), ms(r.decode.Median()))
	})
	row("… sha256 of every byte ÷ bare scan (what graft-prefix-v1 cost)", "", func(r *result) string {
		return fmt.Sprintf("%.1f× (%s)", ratio(r.hash.Median(), r.bare.Median()), ms(r.hash.Median()))
	})
	row("incremental ÷ full prepare, grown by one turn", "≤ 5%", func(r *result) string {
		f := ratio(r.incr.Median(), r.full.Median())
		return fmt.Sprintf("**%.1f%%** (%s ÷ %s; turn of %d events, %s)%s", 100*f, ms(r.incr.Median()), ms(r.full.Median()), r.ds.LastTurnEvents, mib(r.ds.Bytes-r.ds.LastTurn), verdict(r, f <= 0.05))
	})
	row("commit ÷ same bytes, same fsyncs (files, directories, catalog.db)", "≤ 1.5×", func(r *result) string {
		f := ratio(r.commit.Median(), r.baseline.Median())
		return fmt.Sprintf("**%.2f×** (%s ÷ %s; rebuild %s, retire %s)%s", f, ms(r.commit.Median()), ms(r.baseline.Median()), ms(r.rebuild.Median()), ms(r.retire.Median()), verdict(r, f <= 1.5))
	})
	row("fsyncs per commit (files and directories through vfs.FS; bbolt's fdatasyncs of catalog.db)", "", func(r *result) string { return r.fsyncs })
	row("recover, per pending record", "", func(r *result) string {
		return fmt.Sprintf("**%s** (%d records)", ms(r.recoverPer), r.recoverN)
	})
	row("recall of a random seq, median", "≤ 1 ms", func(r *result) string {
		return fmt.Sprintf("**%s** (p90 %s, max %s; %d of %d from the cache, ≤ %d lines read past a mark)%s", ms(r.recall.Times.Median()), ms(r.recall.Times.Quantile(0.9)), ms(r.recall.Times.Quantile(1)), r.recall.FromCache, len(r.recall.Times), r.recall.MaxSkipped, verdict(r, r.recall.Times.Median() <= time.Millisecond))
	})
	row("peak RSS of `graft prepare` (full read)", "≤ 64 MiB", func(r *result) string {
		return fmt.Sprintf("**%s** (%s)%s", mib(r.rss), ms(r.rssTime), verdict(r, r.rss <= 64<<20))
	})
	p("\nMedians of %s runs (-runs, -large-runs); recall: %d random seqs. Opening catalog.db costs %s (median of 50), paid by prepare, commit and recover per operation; recall reads the seq cache file instead.\n",
		runsText(rs), len(rs[0].recall.Times), ms(rs[0].catalogOpen.Median()))
}

func verdict(r *result, ok bool) string {
	if r.ds.Name != gen.PresetLarge {
		return ""
	}
	if ok {
		return " ✓"
	}
	return " ✗"
}

func runsText(rs []*result) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%d (%s)", r.runs, r.ds.Name))
	}
	return strings.Join(parts, ", ")
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchtable: "+format+"\n", args...)
}

func goBuild(root, bin string) error {
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/graft")
	cmd.Dir = root
	if outb, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/graft: %w: %s", err, outb)
	}
	return nil
}
