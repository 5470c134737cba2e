package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/graft-project/graft/bench"
)

// hostSessions are the real Claude Code sessions of testdata that were
// compacted by Claude Code: each is handed off by graft and set beside its
// compaction.
var hostSessions = []string{
	"4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
	"8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
}

// hostsResult is the "Handoff into the hosts" section (issue 15).
type hostsResult struct {
	sessions []*sessionResult
	hooks    []*hookResult
	floorOS  bench.Timing // /bin/true
	floorBin bench.Timing // graft --help
	runs     int
}

type sessionResult struct {
	name, path  string
	bytes       int64
	handoff     bench.Timing
	handoffCPU  bench.Timing
	last        bench.HandoffRun
	compactions []bench.Compaction
}

// pasteBytes is the size of the pasted log of the hook's paste turns: a
// long paste, of the sizes people paste a build's whole output at.
const pasteBytes = 512 << 10

type hookResult struct {
	mib   int64
	st    bench.Synthetic
	prime time.Duration
	turns bench.Timing
	cpu   bench.Timing
	turn  int // bytes of a turn
	parts bench.HookParts
	// paste, pasteCPU: the hook after a turn whose instruction is a
	// pasted log of pasteBytes.
	paste, pasteCPU bench.Timing
	pasteBytes      int
}

func measureHosts(c config, root, cache, work, bin string) (*hostsResult, error) {
	hr := &hostsResult{runs: c.runs}
	dir, err := os.MkdirTemp(work, "hosts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fixtures := filepath.Join(root, "testdata", "fixtures", "claude-code")
	for _, name := range hostSessions {
		path := filepath.Join(fixtures, name)
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("the fixture is missing from the repository: %w", err)
		}
		sr := &sessionResult{name: strings.TrimSuffix(name, ".jsonl"), path: path, bytes: fi.Size()}
		if sr.compactions, err = bench.Compactions(path); err != nil {
			return nil, err
		}
		for _, cp := range sr.compactions {
			if cp.SubAgent == "" {
				return nil, fmt.Errorf("%s: the compaction at %s has no agent-acompact-*.jsonl beside it", name, cp.Boundary)
			}
		}
		progress("handoff: graft handoff claude-code of %s, %d runs (a fresh home each)", name, c.runs)
		for range c.runs {
			run, err := bench.Handoff(bin, dir, path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			sr.handoff, sr.handoffCPU, sr.last = append(sr.handoff, run.Wall), append(sr.handoffCPU, run.CPU), run
		}
		hr.sessions = append(hr.sessions, sr)
	}

	trueBin, err := exec.LookPath("true")
	if err != nil {
		return nil, err
	}
	for range max(c.runs, 11) {
		run, err := bench.RunProcess(os.Environ(), nil, trueBin)
		if err != nil {
			return nil, err
		}
		hr.floorOS = append(hr.floorOS, run.Wall)
		if run, err = bench.RunProcess(os.Environ(), nil, bin, "--help"); err != nil {
			return nil, err
		}
		hr.floorBin = append(hr.floorBin, run.Wall)
	}

	for _, mib := range c.hookMiB {
		name := fmt.Sprintf("hook-%dmib", mib)
		progress("handoff: %s: a Claude Code transcript of %d MiB (cached under %s)", name, mib, cache)
		st, err := bench.SynthesizeTranscript(cache, name, filepath.Join(fixtures, hostSessions[0]), mib<<20, os.Stderr)
		if err != nil {
			return nil, err
		}
		progress("handoff: %s: the first Stop hook imports it all, then %d turns, one Stop hook each", name, c.runs)
		h, err := bench.NewHookBench(bin, dir, st)
		if err != nil {
			return nil, err
		}
		r := &hookResult{mib: mib, st: st, prime: h.Prime}
		for range c.runs {
			d, err := h.Turn()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			r.turns, r.cpu, r.turn = append(r.turns, d), append(r.cpu, h.CPU), h.TurnBytes
		}
		progress("handoff: %s: %d turns whose instruction is a pasted log of %s, one Stop hook each", name, c.runs, kib(pasteBytes))
		paste := bench.PastedLog(pasteBytes)
		for range c.runs {
			d, err := h.PasteTurn(paste)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			r.paste, r.pasteCPU, r.pasteBytes = append(r.paste, d), append(r.pasteCPU, h.CPU), h.TurnBytes
		}
		progress("handoff: %s: where a hook's time goes, in-process, %d turns", name, c.runs)
		var open, follow, fsync, fold, hash bench.Timing
		for range c.runs {
			if r.parts, err = h.Parts(); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			open, follow, fsync = append(open, r.parts.Open), append(follow, r.parts.Follow), append(fsync, r.parts.FsyncTime)
			fold, hash = append(fold, r.parts.Fold), append(hash, r.parts.PrefixHash)
		}
		// The fastest of the runs: the one other work on the machine
		// disturbed least, for the parts to add up.
		r.parts.Open, r.parts.Follow, r.parts.FsyncTime = open.Quantile(0), follow.Quantile(0), fsync.Quantile(0)
		r.parts.Fold, r.parts.PrefixHash = fold.Quantile(0), hash.Quantile(0)
		hr.hooks = append(hr.hooks, r)
		// The copy of a large transcript and its graft home: gone before the next.
		if err := os.RemoveAll(h.Dirs.Root); err != nil {
			return nil, err
		}
	}
	return hr, nil
}

func printHosts(w io.Writer, hr *hostsResult) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n### Handoff into the hosts\n\n")
	p("| measure | target |")
	for _, s := range hr.sessions {
		p(" %s |", s.name[:8])
	}
	p("\n|---|---|")
	for range hr.sessions {
		p("---|")
	}
	p("\n")
	row := func(name, target string, cell func(s *sessionResult) string) {
		p("| %s | %s |", name, target)
		for _, s := range hr.sessions {
			p(" %s |", cell(s))
		}
		p("\n")
	}
	row("Claude Code transcript", "", func(s *sessionResult) string {
		return fmt.Sprintf("%s; graft imported %d events (+ %d of its sub-agents)", mib(s.bytes), s.last.Events, s.last.SubEvents)
	})
	row("`graft handoff claude-code --yes --json`, first handoff of the session on a fresh home (import, prepare, commit, export), wall time of the process (its CPU time)", "≤ 1 s, 0 model tokens", func(s *sessionResult) string {
		return fmt.Sprintf("**%s** (%s–%s; CPU %s), **0 model tokens**; tape %d chars, target %s%s", ms(s.handoff.Median()), ms(s.handoff.Quantile(0)), ms(s.handoff.Quantile(1)),
			ms(s.handoffCPU.Median()), s.last.TapeChars, s.last.Target, mark(s.handoff.Median() <= time.Second))
	})
	comp := func(s *sessionResult, f func(c bench.Compaction) string) string {
		var parts []string
		for _, c := range s.compactions {
			parts = append(parts, f(c))
		}
		if len(parts) == 0 {
			return "no compaction"
		}
		return strings.Join(parts, "; ")
	}
	row("Claude Code's compaction of it (read from the transcript's compact_boundary and the agent-acompact-*.jsonl of the call): the model call, compaction prompt → summary", "", func(s *sessionResult) string {
		return comp(s, func(c bench.Compaction) string {
			return fmt.Sprintf("**%.1f s** (%s trigger, %s)", c.Call().Seconds(), c.Trigger, c.Boundary.UTC().Format("2006-01-02 15:04:05Z"))
		})
	})
	row("… the session stood still: its last record → compact_boundary", "", func(s *sessionResult) string {
		return comp(s, func(c bench.Compaction) string { return fmt.Sprintf("%.1f s", c.Stall().Seconds()) })
	})
	row("… its tokens: preTokens; input of the call (input + cache creation + cache read); output as recorded in message.usage", "", func(s *sessionResult) string {
		return comp(s, func(c bench.Compaction) string {
			return fmt.Sprintf("%d; **%d** (%d + %d + %d, %d request); %d", c.PreTokens, c.Input(), c.InputTokens, c.CacheCreationTokens, c.CacheReadTokens, c.Requests, c.OutputTokens)
		})
	})
	row("… the summary it wrote", "", func(s *sessionResult) string {
		return comp(s, func(c bench.Compaction) string { return fmt.Sprintf("%d chars", c.SummaryChars) })
	})
	row("compaction ÷ handoff", "", func(s *sessionResult) string {
		return comp(s, func(c bench.Compaction) string {
			return fmt.Sprintf("**%.0f×** wall (%.1f s ÷ %s); tokens: handoff 0, compaction %d in", ratio(c.Call(), s.handoff.Median()), c.Call().Seconds(), ms(s.handoff.Median()), c.Input())
		})
	})

	if len(hr.hooks) > 0 {
		p("\n| measure | target |")
		for _, h := range hr.hooks {
			p(" %d MiB |", h.mib)
		}
		p("\n|---|---|")
		for range hr.hooks {
			p("---|")
		}
		p("\n")
		hrow := func(name, target string, cell func(h *hookResult) string) {
			p("| %s | %s |", name, target)
			for _, h := range hr.hooks {
				p(" %s |", cell(h))
			}
			p("\n")
		}
		hrow("Claude Code transcript (the lines of 4d5611e5 repeated with fresh ids); graft's log of it", "", func(h *hookResult) string {
			return fmt.Sprintf("%s, %d lines; %s", mib(h.st.Bytes), h.st.Lines, mib(h.parts.LogBytes))
		})
		hrow("first Stop hook (imports all of it)", "", func(h *hookResult) string { return ms(h.prime) })
		hrow(fmt.Sprintf("`graft hook claude-code` (Stop, JSON on stdin) after one more turn (user, tool_use, tool_result, text: %s), wall time of the process (its CPU time)", kib(int64(hr.hooks[0].turn))), "≤ 50 ms (100 MiB)", func(h *hookResult) string {
			return fmt.Sprintf("**%s** (%s–%s; CPU %s)%s", ms(h.turns.Median()), ms(h.turns.Quantile(0)), ms(h.turns.Quantile(1)), ms(h.cpu.Median()), hookMark(h, h.turns.Median() <= 50*time.Millisecond))
		})
		hrow("… the same minus the process floor (`graft --help`: start-up, flags, help text)", "", func(h *hookResult) string {
			return ms(h.turns.Median() - hr.floorBin.Median())
		})
		small, large := hr.hooks[0], hr.hooks[len(hr.hooks)-1]
		if large != small {
			hrow(fmt.Sprintf("%d MiB ÷ %d MiB", large.mib, small.mib), "≤ 1.5×", func(h *hookResult) string {
				if h != large {
					return ""
				}
				f := ratio(large.turns.Median(), small.turns.Median())
				return fmt.Sprintf("**%.1f×**%s", f, mark(f <= 1.5))
			})
		}
		hrow(fmt.Sprintf("`graft hook claude-code` after a turn whose instruction is a pasted build log (`bench.PastedLog`; the turn %s), wall time of the process (its CPU time): what the hook reads, writes and fsyncs grows with the paste", kib(int64(hr.hooks[0].pasteBytes))), "", func(h *hookResult) string {
			return fmt.Sprintf("%s (%s–%s; CPU %s); **%.1f×** the hook after one more turn", ms(h.paste.Median()), ms(h.paste.Quantile(0)), ms(h.paste.Quantile(1)), ms(h.pasteCPU.Median()), ratio(h.paste.Median(), h.turns.Median()))
		})
		hrow("where a hook's time goes, in-process after one more turn (fastest of the runs): graft.Open (journal, recovery scan); Service.Follow, and its fsyncs (files and directories)", "", func(h *hookResult) string {
			return fmt.Sprintf("%s; %s, of which %d fsyncs %s", ms(h.parts.Open), ms(h.parts.Follow), h.parts.Fsyncs, ms(h.parts.FsyncTime))
		})
		hrow("… what Follow fsynced (an atomic replace is a file and its directory)", "", func(h *hookResult) string {
			var parts []string
			for _, s := range h.parts.Synced {
				parts = append(parts, shortPath(s))
			}
			return strings.Join(parts, ", ")
		})
		hrow("… what Follow read of graft's files (opens, bytes)", "", func(h *hookResult) string {
			var parts []string
			for _, r := range h.parts.Reads {
				parts = append(parts, fmt.Sprintf("%s: %d×, %s", shortPath(r.Path), r.Opens, kib(r.Bytes)))
			}
			return strings.Join(parts, "; ")
		})
		hrow("… one Store.Info of the session (from its state checkpoint when it is valid); one sha256 of all the transcript's imported bytes (what the importer's prefix check costs when it reads the whole prefix)", "", func(h *hookResult) string {
			return fmt.Sprintf("%s; %s (%s)", ms(h.parts.Fold), ms(h.parts.PrefixHash), mib(h.parts.PrefixBytes))
		})
	}
	p("\nMedians of %d runs (-runs), min–max in brackets. **Process floor**, a process that does nothing, timed the same way: /bin/true %s, `graft --help` %s (medians of %d).\n",
		hr.runs, ms(hr.floorOS.Median()), ms(hr.floorBin.Median()), len(hr.floorOS))
}

func mark(ok bool) string {
	if ok {
		return " ✓"
	}
	return " ✗"
}

func hookMark(h *hookResult, ok bool) string {
	if h.mib < 100 {
		return ""
	}
	return mark(ok)
}

func kib(n int64) string {
	if n >= 1<<20 {
		return mib(n)
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
}

// shortPath shortens a graft file's path: sessions/<uuid>.jsonl → sessions/….jsonl.
func shortPath(p string) string {
	dir, base := filepath.Split(p)
	if len(base) > 36 {
		ext, _, _ := strings.Cut(base[36:], " ")
		base = base[:8] + "…" + ext + strings.TrimPrefix(base[36:], ext)
	}
	return dir + base
}
