package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/crashtest"
)

func newCrashtestCmd(a *app) *cobra.Command {
	var (
		asJSON bool
		soak   int
		bin    string
		seed   int64
		groups []string
		work   string
	)
	cmd := &cobra.Command{
		Use:   "crashtest",
		Short: "Run the crash-injection suite: kills, faults, races and power loss, each checked",
		Long: `Runs the crash-injection suite (DESIGN §7) in throw-away homes, never in
--home: the real binary killed with SIGKILL at every crash point and at random
instants, real ENOSPC on a size-limited tmpfs and real EACCES as nobody (when
run as root), injected EIO, ENOSPC, EACCES and torn writes, a tampered target,
torn tails, 8-process races, and every power-loss state of a recorded commit
and revert. After each case it checks sourceUsable ∨ targetUsable, that no
uncommitted target can be resumed, recovery twice (second scanned=0), the
source's bytes, and that nothing committed was lost.

The children must run a binary built with -tags crashpoints (only such a
build stops at GRAFT_CRASH_POINT). Without --bin, one is built from the
module that holds the working directory.

Prints a table (case, injection, expected, observed, result) and, last,
"crash suite: N passed, M failed". Exits 1 when a case failed.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if soak < 0 {
				return usageError{fmt.Errorf("--soak %d: the number of random kills cannot be negative", soak)}
			}
			if bin == "" {
				dir, err := os.MkdirTemp("", "graft-crashbin-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				fmt.Fprintf(a.stderr, "crashtest: no --bin given: building the suite's binary with go build -tags crashpoints ./cmd/graft into %s\n", dir)
				if bin, err = crashtest.BuildCrashBinary(dir); err != nil {
					return err
				}
			}
			cfg := crashtest.Config{Bin: bin, RandomKills: soak, Seed: seed, Groups: groups, WorkDir: work, Progress: a.stderr}
			if soak > 0 {
				cfg.TornRecordStride = 1 // a soak cuts every journal record at every offset
			}
			rep, err := crashtest.Run(cfg)
			if err != nil {
				return err
			}
			if asJSON {
				err = a.printJSON(rep)
			} else {
				err = rep.WriteTable(a.stdout)
			}
			if err != nil {
				return err
			}
			if rep.Counts.Failed > 0 {
				return errCrashSuiteFailed
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().IntVar(&soak, "soak", 0, fmt.Sprintf("random kills during commit (default %d; make soak runs 2000)", crashtest.DefaultRandomKills))
	cmd.Flags().StringVar(&bin, "bin", "", "graft binary built with -tags crashpoints (default: build one)")
	cmd.Flags().Int64Var(&seed, "seed", 0, "seed of the random kill delays (default: from the clock; the report prints it)")
	cmd.Flags().StringVar(&work, "work", "", "work directory; the homes of failing cases are kept there (default: a temporary directory, removed)")
	cmd.Flags().StringSliceVar(&groups, "group", nil, fmt.Sprintf("run only these case groups %v", crashtest.Groups))
	return cmd
}

// errCrashSuiteFailed: the suite ran and some case failed (exit 1).
var errCrashSuiteFailed = errors.New("crash suite: some cases failed (see FAIL above)")
