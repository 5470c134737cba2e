package main

import (
	"fmt"

	"github.com/graft-project/graft/internal/nonnil"
	"github.com/spf13/cobra"
)

func newRevertCmd(a *app) *cobra.Command {
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "revert <target>",
		Short: "Undo a committed graft: the source is active again, the target abandoned",
		Long: `Reverts a live graft as its own journaled transaction: graft/unretired is
appended to the source (the commit point), graft/abandoned (reason "reverted")
to the target. Refused when the target has events beyond its tape, unless
--force.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := a.service()
			if err != nil {
				return err
			}
			res, err := svc.Revert(args[0], force)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]any{"txnId": res.Txn, "reverts": res.Reverts, "source": res.Source, "target": res.Target, "extraEvents": res.Extra, "notes": nonnil.Slice(res.Notes)})
			}
			fmt.Fprintf(a.stdout, "reverted: %s is active again; %s is abandoned (txn %s)\n", res.Source, res.Target, res.Txn)
			for _, n := range res.Notes {
				fmt.Fprintf(a.stdout, "note: %s\n", n)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "revert even if the target has events beyond its tape")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
