package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
)

func init() { commands = append(commands, newGenCmd) }

// genSummary is what graft gen reports.
type genSummary struct {
	Session string `json:"session"`
	Path    string `json:"path"`
	Events  int64  `json:"events"`
	Turns   int    `json:"turns"`
	Bytes   int64  `json:"bytes"`
	Seed    int64  `json:"seed"`
	Preset  string `json:"preset,omitempty"`
}

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
			st, err := a.openStore()
			if err != nil {
				return err
			}
			sum, err := generate(st, id, opts, progress)
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

// generate streams the session into a new log. On failure the partial log
// is left as written (the store never deletes a log) and the error names it.
func generate(st *session.Store, id string, opts gen.Options, progress io.Writer) (genSummary, error) {
	path := st.Path(id)
	w, err := st.CreateWriter(id)
	if err != nil {
		if errors.Is(err, session.ErrExists) {
			return genSummary{}, fmt.Errorf("gen: %w; generate under another id", err)
		}
		return genSummary{}, fmt.Errorf("gen: creating %s: %w", id, err)
	}
	turns := 0
	meter := progressMeter{out: progress, fs: st, path: path, id: id}
	genErr := gen.Generate(opts, func(ev *session.Event) error {
		if ev.IsHumanInstruction() {
			turns++
		}
		if err := w.Write(ev); err != nil {
			return err
		}
		return meter.tick(w.Events())
	})
	closeErr := w.Close()
	if err := errors.Join(genErr, closeErr, meter.done()); err != nil {
		return genSummary{}, fmt.Errorf("gen %s: %w (the partial log %s is left as written, %d events)", id, err, path, w.Events())
	}
	fi, err := st.FS.Lstat(path)
	if err != nil {
		return genSummary{}, fmt.Errorf("gen %s: written, but reading its size: %w", id, err)
	}
	return genSummary{Session: id, Path: path, Events: w.Events(), Turns: turns, Bytes: fi.Size(), Seed: opts.Seed, Preset: opts.Preset}, nil
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

// progressMeter rewrites one stderr line at most every 200 ms: events so far
// and the MiB the log has on disk (which trails the writer's buffer).
type progressMeter struct {
	out     io.Writer // nil: no progress
	fs      *session.Store
	path    string
	id      string
	last    time.Time
	printed bool
}

func (m *progressMeter) tick(events int64) error {
	if m.out == nil || events%1024 != 0 || time.Since(m.last) < 200*time.Millisecond {
		return nil
	}
	m.last = time.Now()
	fi, err := m.fs.FS.Lstat(m.path)
	if err != nil {
		return fmt.Errorf("gen: reading the size of %s for progress: %w", m.path, err)
	}
	m.printed = true
	_, err = fmt.Fprintf(m.out, "\rgen %s: %d events, %.1f MiB written", m.id, events, float64(fi.Size())/(1<<20))
	return err
}

// done ends the progress line.
func (m *progressMeter) done() error {
	if !m.printed {
		return nil
	}
	_, err := fmt.Fprintln(m.out)
	return err
}
