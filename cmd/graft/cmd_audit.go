package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/tape"
)

func newAuditCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "audit <session>",
		Short: "Re-read the human message behind every constraint, in every ancestor",
		Long: `Takes the constraints of the session's current tape state (what prepare would
carry into the next generation) and, for each origin of each constraint (its
origin, then every later place it was said again), re-reads the event in that
session's log (retired ancestors included) and checks that it:

  - exists (a missing ancestor log or seq is reported),
  - is a human instruction (not a tool result, an injection or a tape),
  - still contains the constraint (compared after normalisation),
  - sits in the session or one of its ancestors, at the generation it names.

Then it recomputes what the session's graft/origin records that it relies on
(written at each commit): the prefix of every ancestor (its events before the
boundary the next generation was cut at) and the log line of every origin
cited in an ancestor. Any changed byte there fails the audit, in case or
spacing too, naming the session and the seq (for a prefix: the boundary the
changed event lies before); the open turn after a boundary is not relied on.
A target committed by an older graft has no such record: the report says the
tamper check is not available (or partial) and the texts alone are checked.

Any failed check is reported (which constraint, which origin, what was found)
and the exit code is 35 (audit_failed).

Constraint sayings past the tape's cap (` + fmt.Sprint(tape.MaxConstraints) + ` kept constraints) are not kept,
so not audited: the report counts them per session ("… N more, recall
seq=a..b").

--json: {session, generation, constraints: [{text, origin, also,
checks: [{origin, ok, problem}]}], moreConstraints: [{session, n, from,
to}] (only when some were not kept), tamperCheck ("checked", "partial",
"not available"), tamperNote, relied: [{kind ("prefix", "origin"), session,
generation, boundary, seq, recorded, found, ok, problem}], ok}`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			rep, err := svc.Audit(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				if err := a.printJSON(rep); err != nil {
					return err
				}
			} else if err := printAudit(a.stdout, rep); err != nil {
				return err
			}
			return rep.Err()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func printAudit(w io.Writer, rep *graft.AuditReport) error {
	checks, failed := 0, 0
	for _, c := range rep.Constraints {
		for _, k := range c.Checks {
			checks++
			if !k.OK {
				failed++
			}
		}
	}
	fmt.Fprintf(w, "audit of %s (generation %d): %d constraint(s), %d origin check(s)\n", rep.Session, rep.Generation, len(rep.Constraints), checks)
	if len(rep.Constraints) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		// The constraint goes last: CJK text is wider than tabwriter counts.
		fmt.Fprintln(tw, "#\tORIGIN\tCHECK\tCONSTRAINT")
		for n, c := range rep.Constraints {
			for k, chk := range c.Checks {
				num, text, role := "", "", "also"
				if k == 0 {
					num, text, role = fmt.Sprint(n+1), clip(c.Text, 60, false), "origin"
				}
				result := "ok"
				if !chk.OK {
					result = "FAILED"
				}
				fmt.Fprintf(tw, "%s\t%s gen %d %s seq %d\t%s\t%s\n", num, role, chk.Origin.Generation, chk.Origin.Session, chk.Origin.Seq, result, text)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	printMoreConstraints(w, "", rep.Session, rep.MoreConstraints, ", not audited")
	for n, c := range rep.Constraints {
		for _, chk := range c.Checks {
			if !chk.OK {
				fmt.Fprintf(w, "FAILED #%d gen %d %s seq %d: %s\n", n+1, chk.Origin.Generation, chk.Origin.Session, chk.Origin.Seq, chk.Problem)
			}
		}
	}
	changed := 0
	switch rep.TamperCheck {
	case graft.TamperNotAvailable:
		fmt.Fprintf(w, "tamper check: not available: %s\n", rep.TamperNote)
	default:
		for _, c := range rep.Relied {
			if !c.OK {
				changed++
				fmt.Fprintf(w, "FAILED %s\n", c.Problem)
			}
		}
		fmt.Fprintf(w, "tamper check: %d of %d relied-on digest(s) hold (ancestor prefixes and cited origin lines)\n", len(rep.Relied)-changed, len(rep.Relied))
		if rep.TamperCheck == graft.TamperPartial {
			fmt.Fprintf(w, "tamper check: partial: %s\n", rep.TamperNote)
		}
	}
	switch {
	case failed == 0 && changed == 0:
		_, err := fmt.Fprintln(w, "audit passed: every origin still holds its constraint")
		return err
	case changed == 0:
		_, err := fmt.Fprintf(w, "audit failed: %d of %d origin check(s)\n", failed, checks)
		return err
	}
	_, err := fmt.Fprintf(w, "audit failed: %d of %d origin check(s), %d of %d relied-on digest(s)\n", failed, checks, changed, len(rep.Relied))
	return err
}
