package hosts

import (
	"errors"

	"github.com/graft-project/graft/hosts/adapter"
)

// Errors of this package; callers match them with errors.Is.
var (
	ErrUnknownHost    = adapter.ErrUnknownHost
	ErrHostSessionID  = adapter.ErrHostSessionID
	ErrNoBinding      = errors.New("hosts: no binding")
	ErrBadBinding     = errors.New("hosts: unreadable binding")
	ErrNotTarget      = errors.New("hosts: not a graft target")
	ErrTargetNotLive  = errors.New("hosts: the graft target is not live")
	ErrExportExists   = errors.New("hosts: a host transcript exists at the export path")
	ErrBoundElsewhere = errors.New("hosts: the session continues in another host session")
	ErrBadCwd         = adapter.ErrBadCwd
	ErrNoTranscript   = adapter.ErrNoTranscript
	ErrCannotFollow   = errors.New("hosts: cannot follow this host's transcripts")
)
