package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/config"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

func newPrepareCmd(a *app) *cobra.Command {
	var (
		o        graft.PrepareOptions
		asJSON   bool
		tapeOpts func(config.Config) tape.Options // set with the flags below
	)
	cmd := &cobra.Command{
		Use:   "prepare <source>",
		Short: "Build the tape of a session and store a review to commit",
		Long: `Reads the source session once and builds its tape: a closed skeleton turn,
then Breakpoint, Anchor + Hard Constraints, Goal, Task Status, Workspace Files,
Pending State, Sub-agent Reports and Recall Index. Prints a review (goal,
progress, constraints with their origins, leftovers of crashed grafts, sizes,
hashes, warnings) and stores it under a preparedId for "graft commit".
The tape options not given as flags are config.toml's ("graft config").

Next: graft commit <preparedId> --hash <tapeHash>
      graft show --prepared <preparedId>   (the whole tape)`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.TTL <= 0 {
				return usageError{fmt.Errorf("--ttl %v: a review must stay committable for a positive time (30m, 24h)", o.TTL)}
			}
			cfg, err := a.config()
			if err != nil {
				return err
			}
			o.Tape = tapeOpts(cfg)
			svc, err := a.service()
			if err != nil {
				return err
			}
			ctx, stop := interruptible(cmd)
			defer stop()
			rv, err := svc.Prepare(ctx, args[0], o)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(rv)
			}
			printReview(a.stdout, rv)
			return nil
		},
	}
	f := cmd.Flags()
	tapeOpts = tapeFlags(f)
	f.BoolVar(&o.AllowReslice, "allow-reslice", false, "prepare a retired source again (the new target becomes a sibling)")
	f.DurationVar(&o.TTL, "ttl", graft.DefaultTTL, "how long the review stays committable (positive)")
	f.BoolVar(&asJSON, "json", false, "print the review as JSON (includes the tape text)")
	return cmd
}

// printMoreConstraints prints "… N more, recall seq=a..b" for each
// session's constraint sayings past the tape's cap (tape.MaxConstraints),
// the way a tape's cut line names them; source is the session the seqs of
// whose own sayings need no session name.
func printMoreConstraints(w io.Writer, indent, source string, more []session.More, why string) {
	for _, m := range more {
		where := ""
		if m.Session != source {
			where = "session " + m.Session + " "
		}
		span := fmt.Sprintf("seq=%d", m.From)
		if m.To != m.From {
			span = fmt.Sprintf("seq=%d..%d", m.From, m.To)
		}
		fmt.Fprintf(w, "%s… %d more, recall %s%s (constraint sayings past the tape's cap of %d, not kept%s)\n", indent, m.N, where, span, tape.MaxConstraints, why)
	}
}

func printReview(w io.Writer, rv *graft.Review) {
	fmt.Fprintf(w, "Review %s of %s (generation %d)\n", rv.PreparedID, rv.Source, rv.Generation)
	fmt.Fprintf(w, "  boundary seq %d, last seq %d; tape %d chars (carryover %d)\n", rv.BoundarySeq, rv.LastSeq, rv.TapeChars, rv.CarryoverChars)
	fmt.Fprintln(w, "Goal:")
	for _, g := range rv.Goal {
		fmt.Fprintf(w, "  - %s  [%s]\n", clip(g.Text, 160, false), g.Origin)
	}
	fmt.Fprintf(w, "Progress: %s\n", dash(rv.Progress))
	if g := rv.HostGoal; g != nil {
		fmt.Fprintf(w, "Host goal (its /goal): %s at seq=%d: %s\n", g.Status, g.Seq, clip(g.Objective, 160, false))
	}
	fmt.Fprintf(w, "Constraints (%d):\n", len(rv.Constraints))
	for _, c := range rv.Constraints {
		fmt.Fprintf(w, "  - %s  [%s]\n", clip(c.Text, 160, false), c.Origin)
	}
	printMoreConstraints(w, "  ", rv.Source, rv.MoreConstraints, "")
	if len(rv.Leftovers) > 0 {
		fmt.Fprintln(w, "Leftovers of earlier crashed grafts:")
		for _, l := range rv.Leftovers {
			fmt.Fprintf(w, "  - %s (txn %s, %s): %s\n", l.Target, l.Txn, l.State, l.Reason)
		}
	}
	for _, warn := range rv.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintf(w, "tapeHash   %s\nprefixHash %s\nexpires    %s\n", rv.TapeHash, rv.PrefixHash, rv.Expires.Format(time.RFC3339))
	fmt.Fprintf(w, "\nTo commit: graft commit %s --hash %s\nTo read the tape: graft show --prepared %s\n", rv.PreparedID, rv.TapeHash, rv.PreparedID)
}
