package hosts

import "errors"

// Errors of this package; callers match them with errors.Is.
var (
	ErrUnknownHost    = errors.New("hosts: unknown host")
	ErrHostSessionID  = errors.New("hosts: bad host session id")
	ErrNoBinding      = errors.New("hosts: no binding")
	ErrBadBinding     = errors.New("hosts: unreadable binding")
	ErrNotTarget      = errors.New("hosts: not a graft target")
	ErrTargetNotLive  = errors.New("hosts: the graft target is not live")
	ErrExportExists   = errors.New("hosts: a host transcript exists at the export path")
	ErrBoundElsewhere = errors.New("hosts: the session continues in another host session")
	ErrBadCwd         = errors.New("hosts: bad working directory")
	ErrNoTranscript   = errors.New("hosts: no transcript")
)
