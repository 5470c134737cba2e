package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// printTable prints the results as BENCHMARKS.md's tables look: one row
// per measure and worker count, a column per store, etcd ÷ file.
func printTable(out io.Writer, res *Results) {
	byKey := map[string]Row{}
	hasStore := map[string]bool{}
	for _, r := range res.Rows {
		byKey[fmt.Sprintf("%s/%d", r.Store, r.Workers)] = r
		hasStore[r.Store] = true
	}
	both := hasStore["file"] && hasStore["etcd"]
	fmt.Fprintf(out, "Run: `go run ./bench/cmd/clusterbench -workers %s -commits %d -runs %d -lease %s`, %s, %s, %d cores.\n\n",
		joinInts(res.Workers), res.Commits, res.Runs, res.Lease, res.Machine.Started, res.Machine.CPU, res.Machine.Cores)
	header := "| measure | workers |"
	sep := "|---|---|"
	if hasStore["file"] {
		header += " file store |"
		sep += "---|"
	}
	if hasStore["etcd"] {
		header += fmt.Sprintf(" etcd store (%d members, lease %s) |", res.Members, res.Lease)
		sep += "---|"
	}
	if both {
		header += " etcd ÷ file |"
		sep += "---|"
	}
	fmt.Fprintln(out, header)
	fmt.Fprintln(out, sep)

	type measure struct {
		name string
		// cell is the text of a store's cell and the value the ratio
		// divides (ok false: no value).
		cell  func(r Row) (string, float64, bool)
		ratio bool
	}
	hasRecovery := false
	for _, r := range res.Rows {
		hasRecovery = hasRecovery || r.Recovery != nil
	}
	measures := []measure{
		{name: "commits/s, all workers (commits ÷ wall time from the start signal to the last worker's end)", ratio: true,
			cell: func(r Row) (string, float64, bool) {
				return fmt.Sprintf("**%.1f** (%d in %s)", r.CommitsPerSec, r.Workers*res.Commits, dur(r.Wall)), r.CommitsPerSec, true
			}},
		{name: "latency of one prepare + commit, median over all workers' commits (p90; the commit alone, median)", ratio: true,
			cell: func(r Row) (string, float64, bool) {
				return fmt.Sprintf("**%s** (p90 %s; commit alone %s)", dur(r.Latency), dur(r.LatencyP90), dur(r.CommitLatency)), float64(r.Latency), true
			}},
	}
	if hasRecovery {
		measures = append(measures,
			measure{name: fmt.Sprintf("recovery: SIGKILL of the N workers stopped at %s → all N records resolved (rolled back)", crashPoint), ratio: true,
				cell: func(r Row) (string, float64, bool) {
					if r.Recovery == nil {
						return "", 0, false
					}
					runs := "1 recover run"
					if r.Recovery.Runs != 1 {
						runs = fmt.Sprintf("%d recover runs", r.Recovery.Runs)
					}
					return fmt.Sprintf("**%s** (%s)", dur(r.Recovery.KillToResolved), runs), float64(r.Recovery.KillToResolved), true
				}},
			measure{name: "recovery: the resolving scan (the `graft recover` run that resolved them, a whole process)", ratio: true,
				cell: func(r Row) (string, float64, bool) {
					if r.Recovery == nil {
						return "", 0, false
					}
					s := "**" + dur(r.Recovery.Scan) + "**"
					if r.Recovery.ResolvingRuns > 1 {
						s += fmt.Sprintf(" (%d runs)", r.Recovery.ResolvingRuns)
					}
					return s, float64(r.Recovery.Scan), true
				}})
	}
	if hasStore["etcd"] {
		measures = append(measures, measure{name: "etcd requests per commit (prepare + commit; the commit's share), counted in the workers' clients",
			cell: func(r Row) (string, float64, bool) {
				if r.Ops == nil {
					return "—", 0, false
				}
				return fmt.Sprintf("**%s**: %s; commit %s", num(r.Ops.Requests()), r.Ops, r.CommitOps), 0, false
			}})
	}
	for _, m := range measures {
		for i, n := range res.Workers {
			name := ""
			if i == 0 {
				name = m.name
			}
			line := fmt.Sprintf("| %s | %d |", name, n)
			var vals []float64
			var oks []bool
			for _, st := range []string{"file", "etcd"} {
				if !hasStore[st] {
					continue
				}
				text, v, ok := m.cell(byKey[fmt.Sprintf("%s/%d", st, n)])
				line += " " + text + " |"
				vals, oks = append(vals, v), append(oks, ok)
			}
			if both {
				if m.ratio && oks[0] && oks[1] && vals[0] > 0 {
					line += fmt.Sprintf(" %s |", ratio(vals[1]/vals[0]))
				} else {
					line += "  |"
				}
			}
			fmt.Fprintln(out, line)
		}
	}
	fmt.Fprintf(out, "\nMedians of %d runs. Each worker is a process of its own (a lease of its own on etcd) on one shared home; it prepares and commits %d sources of its own (%d events, %s median, generated with package gen), after a start barrier. Recovery: graft prepare, then graft commit built with -tags crashpoints, killed together; graft recover runs (a %v pause between runs) until all N are resolved.",
		res.Runs, res.Commits, res.Events, mib(res.Bytes), pollPause)
	if hasStore["etcd"] {
		fmt.Fprintf(out, " etcd: an embedded cluster of %d members on loopback, in the benchmark's process, on this machine; lease %s.", res.Members, res.Lease)
	}
	if hasStore["etcd"] {
		var parts []string
		for _, n := range []int{res.Workers[0], res.Workers[len(res.Workers)-1]} {
			if r, ok := byKey[fmt.Sprintf("etcd/%d", n)]; ok && r.OpsByKey != nil {
				parts = append(parts, fmt.Sprintf("%s: %s", plural(n, "worker"), byKeyText(r.OpsByKey)))
			}
			if len(res.Workers) == 1 {
				break
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(out, " The etcd requests of one prepare + commit by key (after the prefix), %s.", strings.Join(parts, "; "))
		}
	}
	fmt.Fprintln(out)
	m := res.Machine
	fmt.Fprintf(out, "\nMachine: %s, %d cores (GOMAXPROCS %d), %s, %s; %s; load average %s before, %s after; took %s.\n",
		m.CPU, m.Cores, m.GOMAXPROCS, m.Go, m.Kernel, m.Started, m.LoadBefore, m.LoadAfter, m.Took)
}

// byKeyText is "txn/ 4 writes, 1 read; locks/ …" in a fixed order of
// key areas.
func byKeyText(m map[string]float64) string {
	areas := []struct{ key, name string }{
		{"txn", "txn/ (journal records)"}, {"locks", "locks/ (session locks)"},
		{"catalog-lock", "catalog-lock"}, {"catalog", "catalog/"}, {"format", "format"}, {"other", "other"},
	}
	var out []string
	for _, a := range areas {
		var kinds []string
		for _, k := range []string{"write", "read", "watch"} {
			if v := m[a.key+" "+k]; v >= 0.05 {
				kinds = append(kinds, num(v)+" "+map[string]string{"write": "writes", "read": "reads", "watch": "watches"}[k])
			}
		}
		if len(kinds) > 0 {
			out = append(out, a.name+" "+strings.Join(kinds, ", "))
		}
	}
	return strings.Join(out, "; ")
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

func ratio(r float64) string {
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 1:
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// plural is "1 worker", "8 workers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
