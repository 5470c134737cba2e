package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/session"
)

func newAppendCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "append <session>",
		Short: "Append JSONL events from stdin to a session (created if missing)",
		Long: `Reads one JSON event per line on stdin and appends them to the session,
creating it if it does not exist. seq and ts are assigned when absent; a given
seq must be the next one. The whole batch is checked before anything is
written: a line that is not UTF-8 (or escapes a lone UTF-16 surrogate, which
would be read as U+FFFD) and a todo status other than pending, in_progress
or completed are refused, naming the line and its byte offset (exit 34). Appends to retired, abandoned or uncommitted sessions are refused
with the session to use instead. The batch is all or nothing: when writing it
fails (a full disk: exit 19), none of it is kept, and the retry appends it
once.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if err := session.ValidID(id); err != nil {
				return err
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			var evs []session.Event
			lr := session.NewLineReader(a.stdin, 0, 1)
			for {
				line, off, num, err := lr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var torn *session.TornTailError
				if errors.As(err, &torn) {
					err = nil // stdin's last line may lack a newline
				}
				if err != nil {
					return fmt.Errorf("reading stdin: %w", err)
				}
				if len(line) == 0 {
					if torn != nil {
						break
					}
					continue
				}
				if err := checkRaw(line, num, off); err != nil {
					return err
				}
				var ev session.Event
				if err := json.Unmarshal(line, &ev); err != nil {
					return fmt.Errorf("stdin line %d: %w", num, err)
				}
				if err := checkTodos(&ev, num, off); err != nil {
					return err
				}
				evs = append(evs, ev)
				if torn != nil {
					break
				}
			}
			if len(evs) == 0 {
				return usageError{errors.New("no events on stdin")}
			}
			// Through the service: it waits for the session's lock, so an
			// append never lands in the middle of a commit or revert.
			out, err := svc.Append(id, evs)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(map[string]any{"session": id, "appended": len(out), "firstSeq": out[0].Seq, "lastSeq": out[len(out)-1].Seq})
			}
			fmt.Fprintf(a.stdout, "appended %d event(s) to %s (seq %d..%d)\n", len(out), id, out[0].Seq, out[len(out)-1].Seq)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
