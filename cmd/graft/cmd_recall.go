package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
)

func newRecallCmd(a *app) *cobra.Command {
	var asJSON, origin bool
	cmd := &cobra.Command{
		Use:   "recall <session> <seq>",
		Short: "Print one event of any session (retired ones included)",
		Long: `Prints the event at <seq> in full: what a tape's "recall seq=N" points at.
Works on retired and abandoned sessions too: the old session is never deleted.

--origin follows the event to the human words it comes from:
  - a human instruction is its own origin: it is printed with its generation
    and the constraints it yields. A constraint printed as
    "gen G session S seq N" is therefore read with: graft recall S N --origin
  - an event of a graft tape (the graft/origin at seq 1 and the tape events
    after it, e.g. the Anchor + Hard Constraints block) cites every origin its
    graft/origin hands down: each inherited constraint and the first goal.
    Each is re-read in its own session — the target itself or an ancestor
    found by walking the lineage up, however many generations back — and
    checked as graft audit checks it. So from generation 5,
    "graft recall <gen-5 session> <seq of its Anchor block> --origin" prints
    the generation-1 human event behind every constraint in one command.
  - anything else (tool output, assistant text, injected plugin, system or
    skill text) cites no origin and is refused.
An origin that cannot be re-read as cited makes the exit code 35.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			seq, err := strconv.ParseInt(args[1], 10, 64)
			if err != nil {
				return usageError{fmt.Errorf("seq %q is not a number", args[1])}
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			if origin {
				return a.recallOrigin(svc, args[0], seq, asJSON)
			}
			ev, _, err := svc.RecallWithPath(cmd.Context(), args[0], seq)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(ev)
			}
			fmt.Fprintln(a.stdout, describe(ev, true))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the event as JSON")
	cmd.Flags().BoolVar(&origin, "origin", false, "follow the event to the human instruction(s) it comes from, in any ancestor")
	return cmd
}

func (a *app) recallOrigin(svc *graft.Service, id string, seq int64, asJSON bool) error {
	r, err := svc.RecallOrigin(id, seq)
	if err != nil {
		return err
	}
	if asJSON {
		err = a.printJSON(r)
	} else {
		err = printOriginRecall(a.stdout, r)
	}
	if err != nil {
		return err
	}
	if n := r.Failed(); n > 0 {
		return fmt.Errorf("%w: %d of %d origin(s) cited by seq %d of %s could not be re-read as cited; graft audit %s checks them all", graft.ErrAuditFailed, n, len(r.Origins), seq, id, id)
	}
	return nil
}

func printOriginRecall(w io.Writer, r *graft.OriginRecall) error {
	if r.Cites == "itself" {
		fmt.Fprintf(w, "seq %d of %s is a human instruction: it is an origin itself\n", r.Seq, r.Session)
	} else {
		fmt.Fprintf(w, "seq %d of %s is part of a graft tape; the tape cites %d origin(s):\n", r.Seq, r.Session, len(r.Origins))
	}
	label := "cited by"
	if r.Cites == "itself" {
		label = "yields"
	}
	for _, o := range r.Origins {
		fmt.Fprintf(w, "\norigin gen %d session %s seq %d\n", o.Origin.Generation, o.Origin.Session, o.Origin.Seq)
		for _, c := range o.CitedBy {
			fmt.Fprintf(w, "  %s %s\n", label, clip(c, 120, false))
		}
		if o.Event != nil {
			fmt.Fprintln(w, strings.TrimRight(describe(o.Event, true), "\n"))
		}
		if !o.OK {
			fmt.Fprintf(w, "  PROBLEM: %s\n", o.Problem)
		}
	}
	return nil
}
