package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
)

func newGenCmd(a *app) *cobra.Command {
	def := gen.DefaultOptions()
	var (
		turns, events int
		seed          int64
		preset        string
		asJSON        bool
	)
	cmd := &cobra.Command{
		Use:   "gen <session>",
		Short: "Write a deterministic synthetic session shaped like real agent work",
		Long: `Writes a new session of synthetic agent work: human instructions (some with
hard constraints in English, Chinese and Russian), assistant messages, tool
calls and results (some failed, outputs from bytes to MiBs), todo lists,
sub-agent reports, and injected plugin/system/skill text that reads like
orders but is not human. The session ends inside an open last turn.

The same options give the same bytes. --preset seed is the original plugin's
real session (48 turns, 14,978 events); --preset large is at least 200,000
events and 1 GiB. --turns, --events and --seed override a preset's values.
An existing session id is refused. Progress goes to stderr when it is a
terminal.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if err := session.ValidID(id); err != nil {
				return err
			}
			opts := def
			if preset != "" {
				var err error
				if opts, err = gen.PresetOptions(preset); err != nil {
					return usageError{err}
				}
			}
			flags := cmd.Flags()
			if preset == "" || flags.Changed("turns") {
				opts.Turns = turns
			}
			if preset == "" || flags.Changed("events") {
				opts.Events = events
			}
			if preset == "" || flags.Changed("seed") {
				opts.Seed = seed
			}
			if err := opts.Validate(); err != nil {
				return usageError{err}
			}
			progress, err := terminalOrNil(a.stderr)
			if err != nil {
				return err
			}
			svc, err := a.service()
			if err != nil {
				return err
			}
			sum, err := svc.Generate(id, opts, progress)
			if err != nil {
				return err
			}
			if asJSON {
				return a.printJSON(sum)
			}
			preset := ""
			if sum.Preset != "" {
				preset = ", preset " + sum.Preset
			}
			_, err = fmt.Fprintf(a.stdout, "generated %s: %d events in %d turns, %.1f MiB (%d bytes), seed %d%s\n  %s\n",
				sum.Session, sum.Events, sum.Turns, float64(sum.Bytes)/(1<<20), sum.Bytes, sum.Seed, preset, sum.Path)
			return err
		},
	}
	cmd.Flags().IntVar(&turns, "turns", def.Turns, "number of turns (human instructions), ≥ 1")
	cmd.Flags().IntVar(&events, "events", def.Events, "exact number of events, ≥ 2 × turns")
	cmd.Flags().Int64Var(&seed, "seed", def.Seed, "seed: same seed, same bytes")
	cmd.Flags().StringVar(&preset, "preset", "", "size preset: "+strings.Join(gen.Presets, " or "))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

// terminalOrNil returns w when it is a terminal (a character device), nil
// otherwise: progress is for people watching, not for logs and pipes.
func terminalOrNil(w io.Writer) (io.Writer, error) {
	f, ok := w.(*os.File)
	if !ok {
		return nil, nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("gen: checking whether stderr is a terminal: %w", err)
	}
	if fi.Mode()&os.ModeCharDevice == 0 {
		return nil, nil
	}
	return f, nil
}
