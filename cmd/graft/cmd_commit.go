package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
)

func newCommitCmd(a *app) *cobra.Command {
	var (
		hash, target string
		asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "commit <preparedId> --hash <tapeHash>",
		Short: "Write a prepared tape into a new session and retire the source",
		Long: `Commits a review from "graft prepare" as a journaled transaction:
PREPARING → TARGET_FLUSHED → COLD_VERIFIED → commit point (graft/retired appended
to the source) → COMMITTED. --hash must be the review's tapeHash.

If a new human instruction arrived since the review (the boundary moved) or
anything before it changed, the commit is refused: prepare again. If only the
open turn grew, the commit goes ahead with the refreshed carryover and says so
in its notes.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if hash == "" {
				return usageError{fmt.Errorf("--hash is required: pass the tapeHash the review showed")}
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			ctx, stop := interruptible(cmd)
			defer stop()
			res, err := svc.Commit(ctx, args[0], hash, target)
			var self *graft.TargetIsSourceError
			if errors.As(err, &self) {
				return usageError{errors.New(self.Usage("--target"))}
			}
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(res)
			}
			fmt.Fprintf(a.stdout, "committed: %s → %s (generation %d, txn %s)\n", res.Source, res.TargetID, res.Generation, res.TxnID)
			fmt.Fprintf(a.stdout, "  tape %d chars in %d events, %s\n", res.TapeChars, res.TapeEvents, res.TapeHash)
			fmt.Fprintf(a.stdout, "  drift check: %s\n", driftCheckText(res.DriftCheck))
			for _, n := range res.Notes {
				fmt.Fprintf(a.stdout, "note: %s\n", n)
			}
			fmt.Fprintf(a.stdout, "continue in %s; %s is retired (graft revert %s undoes this)\n", res.TargetID, res.Source, res.TargetID)
			return nil
		},
	}
	cmd.Flags().StringVar(&hash, "hash", "", "the review's tapeHash (required)")
	cmd.Flags().StringVar(&target, "target", "", "id of the new session (default <source>.g<generation>)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// driftCheckText says in words how the commit checked the review.
func driftCheckText(how string) string {
	switch how {
	case graft.DriftSealed:
		return "the source is the bytes the review read (same file, size and last 4 KiB): the reviewed tape was written"
	case graft.DriftRebuilt:
		return "the source was folded again and the tape rebuilt and compared with the review"
	}
	return how
}
