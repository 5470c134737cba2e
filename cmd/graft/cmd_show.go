package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/session"
)

func newShowCmd(a *app) *cobra.Command {
	var (
		from, to int64
		asJSON   bool
		full     bool
		prepared string
	)
	cmd := &cobra.Command{
		Use:   "show <session> | show --prepared <preparedId>",
		Short: "Print a session's events, or the tape of a prepared review",
		Long: `Prints the events of a session, one per line, readable by a person
(long texts are cut unless --full). --json prints the raw event lines (JSONL).
A torn last line is reported on stderr and skipped.

--prepared <preparedId> prints the whole tape of a review (--json: the review).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if prepared != "" {
				if len(args) != 0 {
					return usageError{fmt.Errorf("--prepared takes no session argument")}
				}
				svc, err := a.service()
				if err != nil {
					return err
				}
				rv, err := svc.PreparedReview(prepared)
				if err != nil {
					return err
				}
				if asJSON {
					return a.printJSON(rv)
				}
				_, err = fmt.Fprintln(a.stdout, rv.Tape)
				return err
			}
			if err := exactArgs(1)(cmd, args); err != nil {
				return err
			}
			switch {
			case from < 0:
				return usageError{fmt.Errorf("--from %d: seqs start at 1", from)}
			case to < 0:
				return usageError{fmt.Errorf("--to %d: seqs start at 1 (0: to the end)", to)}
			case to > 0 && from > to:
				return usageError{fmt.Errorf("--from %d is after --to %d: nothing to show", from, to)}
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			res, err := svc.Events(args[0], from, to, func(ev *session.Event, raw []byte) error {
				if asJSON {
					_, err := fmt.Fprintf(a.stdout, "%s\n", raw)
					return err
				}
				_, err := fmt.Fprintln(a.stdout, describe(ev, full))
				return err
			})
			if err != nil {
				return err
			}
			if res.Torn != nil {
				fmt.Fprintf(a.stderr, "warning: %s has a torn last line (%d bytes at offset %d), ignored; the next append repairs it\n", args[0], res.Torn.Bytes, res.Torn.Offset)
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&from, "from", 0, "first seq to print")
	cmd.Flags().Int64Var(&to, "to", 0, "last seq to print (0: to the end)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print raw JSONL event lines")
	cmd.Flags().BoolVar(&full, "full", false, "do not cut long texts")
	cmd.Flags().StringVar(&prepared, "prepared", "", "print the tape of this prepared review instead")
	return cmd
}

func clip(s string, n int, full bool) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if full || len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + fmt.Sprintf("… (%d chars)", len([]rune(s)))
}

// describe renders one event on one line for a person.
func describe(ev *session.Event, full bool) string {
	head := fmt.Sprintf("%6d  %-17s %-9s", ev.Seq, ev.Type, ev.Source.Kind)
	if (ev.Type == session.TypeToolCall || ev.Type == session.TypeToolResult) && ev.Tool == nil {
		return fmt.Sprintf("%s (no tool field)", head)
	}
	switch ev.Type {
	case session.TypeToolCall:
		// Input is raw JSON from the log: shown as it is, never re-encoded.
		return fmt.Sprintf("%s %s(%s) %s", head, ev.Tool.Name, ev.Tool.CallID, clip(string(ev.Tool.Input), 120, full))
	case session.TypeToolResult:
		status := "ok"
		if !ev.OKResult() {
			status = "FAILED"
		}
		return fmt.Sprintf("%s %s(%s) %s: %s", head, ev.Tool.Name, ev.Tool.CallID, status, clip(ev.Tool.Output, 120, full))
	case session.TypeTodoWrite:
		var parts []string
		for _, t := range ev.Todos {
			parts = append(parts, fmt.Sprintf("[%s] %s", t.Status, t.Content))
		}
		return fmt.Sprintf("%s %s", head, clip(strings.Join(parts, "; "), 160, full))
	case session.TypeSubagentReport:
		return fmt.Sprintf("%s %s: %s", head, ev.Agent, clip(ev.Text, 140, full))
	case session.TypeGraftOrigin:
		return fmt.Sprintf("%s txn=%s parent=%s boundary=%d generation=%d tape=%s", head, ev.Txn, ev.Parent, ev.ParentBoundary, ev.Generation, ev.TapeHash)
	case session.TypeGraftRetired, session.TypeGraftUnretired:
		return fmt.Sprintf("%s txn=%s target=%s", head, ev.Txn, ev.Target)
	case session.TypeGraftAbandoned:
		return fmt.Sprintf("%s txn=%s reason=%s", head, ev.Txn, ev.Reason)
	}
	return fmt.Sprintf("%s %s", head, clip(ev.Text, 160, full))
}
