package graft

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/graft-project/graft/gen"
	"github.com/graft-project/graft/session"
)

// Generated is what Generate wrote (graft gen's summary).
type Generated struct {
	Session string `json:"session"`
	Path    string `json:"path"`
	Events  int64  `json:"events"`
	Turns   int    `json:"turns"`
	Bytes   int64  `json:"bytes"`
	Seed    int64  `json:"seed"`
	Preset  string `json:"preset,omitempty"`
}

// Generate writes a new session id of synthetic agent work (package gen),
// streamed into its log; an existing session is refused (session.ErrExists).
// progress, when not nil, gets one line rewritten at most every 200 ms (the
// events so far and the MiB on disk), ended with a newline. On failure the
// partial log is left as written (the store never deletes a log) and the
// error names it.
func (s *Service) Generate(id string, opts gen.Options, progress io.Writer) (*Generated, error) {
	st := s.store
	path := st.Path(id)
	w, err := st.CreateWriter(id)
	if err != nil {
		if errors.Is(err, session.ErrExists) {
			return nil, fmt.Errorf("gen: %w; generate under another id", err)
		}
		return nil, fmt.Errorf("gen: creating %s: %w", id, err)
	}
	turns := 0
	meter := progressMeter{out: progress, st: st, path: path, id: id}
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
		return nil, fmt.Errorf("gen %s: %w (the partial log %s is left as written, %d events)", id, err, path, w.Events())
	}
	fi, err := st.FS.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("gen %s: written, but reading its size: %w", id, err)
	}
	return &Generated{Session: id, Path: path, Events: w.Events(), Turns: turns, Bytes: fi.Size(), Seed: opts.Seed, Preset: opts.Preset}, nil
}

// progressMeter rewrites one line at most every 200 ms: events so far and
// the MiB the log has on disk (which trails the writer's buffer).
type progressMeter struct {
	out     io.Writer // nil: no progress
	st      *session.Store
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
	fi, err := m.st.FS.Lstat(m.path)
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
