package hookinstall

import (
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/codex"
)

// The hosts the tests name, and what Codex's adapter says on install.
const (
	ClaudeCode     = hosts.ClaudeCode
	Codex          = hosts.Codex
	CodexTrustNote = codex.TrustNote
)
