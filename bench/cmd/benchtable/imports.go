package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/graft-project/graft/bench"
	"github.com/graft-project/graft/graft"
)

// claudeSource is the real Claude Code session the Claude Code, Gemini CLI
// and Qwen Code transcripts are made of.
const claudeSource = "testdata/fixtures/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

// importSources are the real transcripts repeated into the 100 MiB
// transcript of each host the import row measures (issue 25): Claude
// Code's and Codex's lines repeated with fresh ids, the Claude Code
// session's conversation written as Gemini CLI's and Qwen Code's records.
var importSources = []struct {
	host, label, source string
	synth               func(dir, name, source string, size int64, progress io.Writer) (bench.Synthetic, error)
}{
	{bench.HostClaudeCode, "Claude Code", claudeSource, bench.SynthesizeTranscript},
	{bench.HostCodex, "Codex", "testdata/fidelity/transcripts/codex/rollout-2025-11-12T17-48-11-019a7ae6-1945-7c63-98f2-210adb922af9.jsonl", bench.SynthesizeRollout},
	{bench.HostGemini, "Gemini CLI", claudeSource, bench.SynthesizeGeminiSession},
	{bench.HostQwen, "Qwen Code", claudeSource, bench.SynthesizeQwenSession},
}

// importMiB is the size of the transcripts the import row measures.
const importMiB = 100

// importResult is one host's column of the import row.
type importResult struct {
	label, source   string
	st              bench.Synthetic
	imp, prep, bare bench.Timing
	events          int
	logBytes        int64
	rss             int64
	rssTime         time.Duration
}

// measureImports times, for each host, the import of its 100 MiB
// transcript (a fresh home each run), the full prepare of the log it
// wrote and the bare scan of the transcript, alternating in each run, and
// the peak RSS of graft import as a process of its own.
func measureImports(c config, root, cache, work, bin string) ([]*importResult, error) {
	dir, err := os.MkdirTemp(work, "import-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var rs []*importResult
	for _, s := range importSources {
		name := fmt.Sprintf("import-%s-%dmib", s.host, importMiB)
		progress("import: %s: a %s transcript of %d MiB (cached under %s)", name, s.label, importMiB, cache)
		st, err := s.synth(cache, name, filepath.Join(root, s.source), importMiB<<20, os.Stderr)
		if err != nil {
			return nil, err
		}
		r := &importResult{label: s.label, source: filepath.Base(s.source), st: st}
		progress("import: %s: import, prepare of its log, bare scan of the transcript, %d runs each", name, c.runs)
		for range c.runs {
			d, lines, err := bench.BareScan(st.Path)
			if err != nil {
				return nil, err
			}
			if lines != int64(st.Lines) {
				return nil, fmt.Errorf("import: bare scan of %s counted %d lines, it has %d", st.Path, lines, st.Lines)
			}
			r.bare = append(r.bare, d)
			run, err := bench.ImportTranscript(dir, s.host, st.Path)
			if err != nil {
				return nil, err
			}
			r.imp, r.events, r.logBytes = append(r.imp, run.Wall), run.Events, run.LogBytes
			svc, err := bench.Open(run.Home, graft.Options{})
			if err != nil {
				return nil, err
			}
			d, _, err = bench.PrepareFull(svc, bench.ImportSession)
			if cerr := svc.Close(); cerr != nil && err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
			r.prep = append(r.prep, d)
			if err := os.RemoveAll(run.Home); err != nil {
				return nil, err
			}
		}
		progress("import: %s: peak RSS of graft import %s", name, s.host)
		if r.rss, r.rssTime, err = bench.ImportPeakRSS(bin, dir, s.host, st.Path); err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// mibps is the speed of reading n bytes in d.
func mibps(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / (1 << 20) / d.Seconds()
}

func printImports(w io.Writer, rs []*importResult, runs int) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n### Import (issue 25)\n\n| measure | target |")
	for _, r := range rs {
		p(" %s |", r.label)
	}
	p("\n|---|---|")
	for range rs {
		p("---|")
	}
	p("\n")
	row := func(name, target string, cell func(r *importResult) string) {
		p("| %s | %s |", name, target)
		for _, r := range rs {
			p(" %s |", cell(r))
		}
		p("\n")
	}
	row("transcript (the lines of a real one repeated with fresh ids; Gemini CLI's and Qwen Code's: the Claude Code session's conversation as their records); graft's log of it", "", func(r *importResult) string {
		return fmt.Sprintf("%s, %d lines (%s); %s, %d events", mib(r.st.Bytes), r.st.Lines, r.source[:min(len(r.source), 30)], mib(r.logBytes), r.events)
	})
	row("import ÷ prepare ÷ bare scan: graft import of the transcript into a fresh home (in this process: cursor, log, fsyncs); full prepare of the log it wrote; the bare scan of the transcript", "", func(r *importResult) string {
		return fmt.Sprintf("**%s ÷ %s ÷ %s** (import %.1f× prepare, %.1f× bare scan)", ms(r.imp.Median()), ms(r.prep.Median()), ms(r.bare.Median()),
			ratio(r.imp.Median(), r.prep.Median()), ratio(r.imp.Median(), r.bare.Median()))
	})
	row("import's speed ÷ prepare's (MiB/s of the transcript ÷ MiB/s of the log)", "≥ 1/3", func(r *importResult) string {
		is, ps := mibps(r.st.Bytes, r.imp.Median()), mibps(r.logBytes, r.prep.Median())
		f := 0.0
		if ps > 0 {
			f = is / ps
		}
		return fmt.Sprintf("**%.2f** (%.0f ÷ %.0f MiB/s)%s", f, is, ps, mark(f >= 1.0/3))
	})
	row("peak RSS of `graft import` (its own process; its wall time)", "≤ 64 MiB", func(r *importResult) string {
		return fmt.Sprintf("**%s** (%s)%s", mib(r.rss), ms(r.rssTime), mark(r.rss <= 64<<20))
	})
	p("\nMedians of %d runs (-runs), measured alternately in each run.\n", runs)
}
