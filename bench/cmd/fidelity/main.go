// Command fidelity prints the fidelity tables of the truth set in
// testdata/fidelity: per category and per handoff, the share of the facts
// the next window must know that graft's tape carries, beside the hook
// excerpt, the conversation tail and, at host compactions, the host's own
// summary (package internal/fidelity). Run it from the module root
// (make fidelity).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/graft-project/graft/bench"
	"github.com/graft-project/graft/internal/fidelity"
	"github.com/graft-project/graft/tape"
)

func main() {
	missed := flag.Bool("missed", false, "also list the facts graft's tape missed")
	only := flag.String("case", "", "run only the cases whose name contains this")
	out := flag.String("out", "", "write each candidate's text to DIR/<case>.<candidate>.txt")
	budget := flag.Int("budget", 0, "prepare with this tape budget in characters (0: the default, 16000); the baselines keep their sizes")
	dir := flag.String("dir", "", "the truth set: a directory with cases/*.json (default testdata/fidelity); transcripts are named from the module root")
	blocks := flag.Bool("blocks", false, "also print where the tape spends its room on the tuning cases: per kind of block, its characters, the facts only it carries and those per 1,000 characters (make fidelity-blocks)")
	sweep := flag.String("sweep", "", "score the truth set at each of these tape budgets (comma-separated, e.g. 12000,16000,24000,64000) and print graft's recall at each, what a chooser that knew the facts carries of the largest budget's tapes within the default, and what the largest still misses (make fidelity-sweep)")
	chain := flag.Bool("chain", false, "score the truth set's chains instead: each end cut handed on once at its 60 % cut and twice (at half its lines and at it), what the last generation's tape carries of the end's facts beside the tape of the same work with no handoff (make fidelity-chain)")
	flag.Parse()
	var err error
	if *chain {
		err = runChain(*only, *dir)
	} else if *sweep != "" {
		err = runSweep(*sweep, *only, *dir)
	} else {
		err = run(*missed, *blocks, *only, *out, *dir, *budget)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}

// score runs the truth set's cases (those whose name holds only) with a
// tape budget, each in a fresh home under a temporary directory; each
// result is given to each as it comes.
func score(only, dir string, budget int, each func(*fidelity.Result) error) ([]*fidelity.Result, error) {
	root, err := bench.ModuleRoot()
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = root + "/testdata/fidelity"
	}
	cases, err := fidelity.Load(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "graft-fidelity-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var results []*fidelity.Result
	for _, c := range cases {
		if only != "" && !strings.Contains(c.Name, only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "fidelity: %s …\n", c.Name)
		c.Budget = budget
		r, err := fidelity.Run(context.Background(), root, tmp, c)
		if err != nil {
			return nil, err
		}
		if len(r.Unreachable) > 0 {
			return nil, fmt.Errorf("%s: facts %v have evidence that is not in the transcript before the cut", c.Name, r.Unreachable)
		}
		results = append(results, r)
		if each != nil {
			if err := each(r); err != nil {
				return nil, err
			}
		}
	}
	return results, nil
}

// runSweep scores the truth set at each budget of list and prints the
// sweep table (fidelity.SweepTable).
func runSweep(list, only, dir string) error {
	var runs []fidelity.SweepRun
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("-sweep %q: %q is not a budget in characters", list, f)
		}
		fmt.Fprintf(os.Stderr, "fidelity: budget %d\n", n)
		results, err := score(only, dir, n, nil)
		if err != nil {
			return err
		}
		runs = append(runs, fidelity.SweepRun{Budget: n, Results: results})
	}
	fmt.Printf("Run: go run ./bench/cmd/fidelity -sweep %s (make fidelity-sweep); machine: %s, kernel %s\n\n", list, bench.CPUModel(), bench.Kernel())
	fmt.Printf("graft's recall (facts carried) with each tape budget; the baselines keep their sizes:\n\n")
	fmt.Print(fidelity.SweepTable(runs, tape.DefaultBudget))
	return nil
}

func run(missed, blocks bool, only, out, dir string, budget int) error {
	results, err := score(only, dir, budget, func(r *fidelity.Result) error {
		c := r.Case
		if out != "" {
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			for name, text := range r.Texts {
				if err := os.WriteFile(fmt.Sprintf("%s/%s.%s.txt", out, c.Name, name), []byte(text), 0o644); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("Run: go run ./bench/cmd/fidelity (make fidelity); machine: %s, kernel %s\n", bench.CPUModel(), bench.Kernel())
	if budget != 0 {
		fmt.Printf("Tape budget: %d characters (not the default).\n", budget)
	}
	fmt.Println()
	fmt.Print(fidelity.Tables(results))
	if blocks {
		fmt.Println("\nWhere the tape spends its room (tuning cases):")
		fmt.Println()
		fmt.Print(fidelity.BlockTable(results))
	}
	if missed {
		fmt.Println("\nMissed by graft's tape:")
		fmt.Print(fidelity.Missed(results))
	}
	if fails := fidelity.Lead(results, 0.95, 0.90); len(fails) > 0 && budget == 0 {
		fmt.Println("\nNot yet met (issue 23: ≥ 95 % overall, ≥ 90 % on the held-out cases, ahead in every category):")
		for _, f := range fails {
			fmt.Println("- " + f)
		}
	}
	return nil
}

// runChain scores the chains of the truth set (fidelity.ChainPairs) and
// prints their table.
func runChain(only, dir string) error {
	root, err := bench.ModuleRoot()
	if err != nil {
		return err
	}
	if dir == "" {
		dir = root + "/testdata/fidelity"
	}
	cases, err := fidelity.Load(dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "graft-fidelity-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var rs []*fidelity.ChainResult
	for _, p := range fidelity.ChainPairs(cases) {
		if only != "" && !strings.Contains(p[0].Name, only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "fidelity: chain %s …\n", p[0].Name)
		r, err := fidelity.Chain(context.Background(), root, tmp, p[0], p[1])
		if err != nil {
			return err
		}
		rs = append(rs, r)
	}
	fmt.Printf("Run: go run ./bench/cmd/fidelity -chain (make fidelity-chain); machine: %s, kernel %s\n\n", bench.CPUModel(), bench.Kernel())
	fmt.Printf("The end cut's facts: carried by the tape of the work with no handoff, by the tape of the same work handed on once at the 60 %% cut (the second generation, folded from its target's log), and by the tape after two handoffs, at half the 60 %% cut's lines and at it (the third generation):\n\n")
	fmt.Print(fidelity.ChainTable(rs))
	return nil
}
