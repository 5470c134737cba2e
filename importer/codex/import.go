package codex

import (
	"github.com/graft-project/graft/importer"
)

// Options of Import.
type Options = importer.FileOptions

// Import imports a Codex rollout into session o.ID incrementally
// (importer.Run).
func Import(o Options) (*importer.Summary, error) {
	return importer.RunFile(o, NewMapper(Config{KeepThinking: o.KeepThinking}))
}
