package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/session"
)

func init() { commands = append(commands, newStatusCmd) }

// sessionStatus is one row of graft status.
type sessionStatus struct {
	ID         string        `json:"id"`
	State      string        `json:"state"`
	Events     int           `json:"events"`
	LastSeq    int64         `json:"lastSeq"`
	Generation int           `json:"generation"`
	Parent     string        `json:"parent,omitempty"`
	Target     string        `json:"target,omitempty"`
	Torn       *session.Torn `json:"torn,omitempty"`
	Error      string        `json:"error,omitempty"`
}

func statusOf(st *session.Store, id string) sessionStatus {
	row := sessionStatus{ID: id}
	info, err := st.Info(id)
	if err != nil {
		row.State, row.Error = "unreadable", err.Error()
		return row
	}
	row.Events, row.LastSeq, row.Generation, row.Torn = info.Events, info.LastSeq, info.Generation(), info.Torn
	row.State = string(info.State())
	if info.Origin != nil {
		row.Parent = info.Origin.Parent
	}
	if g, ok := info.Live(); ok {
		row.Target = g.Target
	}
	if row.State == string(session.StateActive) {
		if err := st.Check(info); err != nil {
			row.State, row.Error = "uncommitted", err.Error()
		}
	}
	return row
}

func newStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List sessions with their state and event count",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.openStore()
			if err != nil {
				return err
			}
			ids, err := st.List()
			if err != nil {
				return err
			}
			rows := make([]sessionStatus, 0, len(ids))
			for _, id := range ids {
				rows = append(rows, statusOf(st, id))
			}
			if asJSON {
				return a.printJSON(map[string]any{"home": a.home, "sessions": rows})
			}
			if len(rows) == 0 {
				fmt.Fprintf(a.stdout, "no sessions in %s\n", a.home)
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SESSION\tSTATE\tEVENTS\tGEN\tPARENT\tTARGET")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", r.ID, r.State, r.Events, r.Generation, dash(r.Parent), dash(r.Target))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, r := range rows {
				if r.Error != "" {
					fmt.Fprintf(a.stdout, "%s: %s\n", r.ID, r.Error)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
