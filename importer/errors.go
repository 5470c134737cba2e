package importer

import (
	"errors"
	"fmt"
)

// Sentinels, grouped by the step that fails. Errors returned by Run wrap
// them with the session, the source and the numbers that disagree.
var (
	// Opening.
	ErrBusy     = errors.New("importer: another import into this session is running")
	ErrNoCursor = errors.New("importer: no import cursor")
	ErrCursor   = errors.New("importer: unreadable import cursor")
	// ErrStateFile: the cursor's state file is missing or is not the one
	// the cursor names (a crash between writing it and the cursor): Run
	// sets the cursor aside, with a warning, and reads the source again.
	ErrStateFile = errors.New("importer: the import cursor's state file does not match it")
	// ErrCursorSum: the cursor is damaged, its checksum does not match
	// its bytes, or it is not JSON at all: an ErrCursor, which Run sets
	// aside as it does a state file that does not match.
	ErrCursorSum    = fmt.Errorf("%w: damaged (not JSON, or its checksum does not match its bytes)", ErrCursor)
	ErrFormat       = errors.New("importer: cursor was written by another importer")
	ErrSettings     = errors.New("importer: import settings differ from the ones the cursor was written with")
	ErrNotRegular   = errors.New("importer: source is not a regular file")
	ErrSessionGone  = errors.New("importer: session was removed after events were imported into it")
	ErrSessionShort = errors.New("importer: session holds fewer events than the cursor recorded")
	// ErrNotTranscript: a first import of a file none of whose first lines
	// is a record of the mapper's host (Recognizer); nothing is written.
	ErrNotTranscript = errors.New("importer: the file holds no record of the host's format")

	// Checking the source against the cursor.
	ErrSourceShortened = errors.New("importer: source is shorter than the part already imported")
	ErrSourceRewritten = errors.New("importer: source was rewritten: the part already imported changed")

	// Checking the session against the source.
	ErrSessionDiverged = errors.New("importer: session holds events this import did not write")
)

// ErrUnknownTranscript: a file imported without its host's name whose
// host its first lines do not tell (Detect); nothing is written.
var ErrUnknownTranscript = errors.New("importer: the file's host cannot be told from its first lines")
