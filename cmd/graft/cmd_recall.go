package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newRecallCmd) }

func newRecallCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "recall <session> <seq>",
		Short: "Print one event of any session (retired ones included)",
		Long: `Prints the event at <seq> in full: what a tape's "recall seq=N" points at.
Works on retired and abandoned sessions too: the old session is never deleted.`,
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
			ev, err := svc.Recall(args[0], seq)
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
	return cmd
}
