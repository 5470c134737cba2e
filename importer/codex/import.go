package codex

import (
	"context"
	"time"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Options of Import.
type Options struct {
	Store *session.Store
	Home  string
	// Path is the rollout, ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl.
	Path string
	// ID is the session to import into; empty: importer.DefaultID(Path).
	ID           string
	KeepThinking bool
	// Progress, when set, is called with bytes read and the rollout's size.
	Progress func(read, total int64)
	// Ctx, when set, cancels the import (importer.Options.Ctx).
	Ctx context.Context
	// LockWait bounds each wait for the session's lock (importer.Options).
	LockWait time.Duration
}

// Import imports a Codex rollout into session o.ID incrementally
// (importer.Run).
func Import(o Options) (*importer.Summary, error) {
	id := o.ID
	if id == "" {
		var err error
		if id, err = importer.DefaultID(o.Path); err != nil {
			return nil, err
		}
	}
	return importer.Run(importer.Options{Store: o.Store, Home: o.Home, ID: id, Source: o.Path, Progress: o.Progress, Ctx: o.Ctx, LockWait: o.LockWait},
		NewMapper(Config{KeepThinking: o.KeepThinking}))
}
