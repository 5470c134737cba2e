package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/recovery"
)

func newRecoverCmd(a *app) *cobra.Command {
	var asJSON, rebuild bool
	cmd := &cobra.Command{
		Use:   "recover",
		Short: "Run the recovery scan over the journal (every command runs it first)",
		Long: `Scans .txn/ for transactions a crash left behind. A graft whose source holds
its graft/retired is rolled forward; any other is rolled back: the source stays
active, the target is marked abandoned (or an empty shell removed) and named as
a leftover in the next review of its source. Records whose locks are held
belong to a live process and are left alone. Idempotent: a second run reports
scanned=0. Exits non-zero when a record could not be resolved.

--rebuild-catalog derives lineage and leftovers again from the logs. A
damaged catalog.db (truncated, overwritten, not a regular file) is moved
aside first, kept as evidence as catalog.db.corrupt-<time>, never deleted;
the prepared reviews it held are not carried over (prepare again).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			// graft recover runs the scan itself, not at opening.
			svc, err := a.openService(graft.Options{SkipRecovery: true})
			if err != nil {
				return err
			}
			var (
				rep *recovery.Report
				rb  *graft.RebuildReport
			)
			if rebuild {
				res, rerr := svc.RebuildCatalog()
				if res.MovedAside != "" && res.Rebuild == nil {
					// Said in the report when the rebuild ran; here when
					// the scan or the rebuild failed before it.
					defer fmt.Fprintf(a.stderr, "catalog.db was damaged: moved aside to %s (kept as evidence)\n", res.MovedAside)
				}
				if rerr != nil {
					return rerr
				}
				rep, rb, err = res.Scan, res.Rebuild, res.ScanErr
			} else {
				rep, err = svc.Recover(cmd.Context())
			}
			if rep == nil {
				return err
			}
			// Expired reviews go (every prepare purges them too).
			purged, perr := svc.PurgeReviews()
			if perr != nil {
				fmt.Fprintf(a.stderr, "expired reviews were not purged from catalog.db: %v\n", perr)
			}
			if asJSON {
				out := map[string]any{"scanned": rep.Scanned, "rolledForward": rep.RolledForward, "rolledBack": rep.RolledBack, "busy": rep.Busy, "leftovers": rep.Leftovers, "swept": rep.Swept, "warnings": rep.Warnings, "exports": rep.Exports, "errors": rep.Errors, "purgedReviews": purged}
				if rb != nil {
					out["rebuild"] = rb
				}
				if perr := a.printJSON(out); perr != nil {
					return perr
				}
				return err
			}
			fmt.Fprintf(a.stdout, "recovery: scanned=%d rolledForward=%d rolledBack=%d busy=%d\n", rep.Scanned, rep.RolledForward, rep.RolledBack, rep.Busy)
			if purged > 0 {
				fmt.Fprintf(a.stdout, "  purged %d expired review(s) from catalog.db\n", purged)
			}
			for _, l := range rep.Leftovers {
				fmt.Fprintf(a.stdout, "  leftover: %s\n", l)
			}
			for _, s := range rep.Swept {
				fmt.Fprintf(a.stdout, "  swept temp file: %s\n", s)
			}
			for _, e := range rep.Exports {
				fmt.Fprintf(a.stdout, "  export: %s\n", e)
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(a.stdout, "  warning: %s\n", w)
			}
			for _, e := range rep.Errors {
				fmt.Fprintf(a.stdout, "  error: %s\n", e)
			}
			if rb != nil {
				if rb.MovedAside != "" {
					fmt.Fprintf(a.stdout, "damaged catalog moved aside to %s (kept as evidence; the prepared reviews in it are not carried over: prepare again)\n", rb.MovedAside)
				}
				fmt.Fprintf(a.stdout, "catalog rebuilt from %d session logs: %d lineage nodes, %d leftovers\n", rb.Sessions, rb.Nodes, rb.Leftovers)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&rebuild, "rebuild-catalog", false, "derive lineage and leftovers again from the logs (a damaged catalog.db is moved aside first)")
	return cmd
}
