package journal

import (
	"errors"
	"fmt"
)

// Sentinels. The typed error below matches ErrCorruptRecord with errors.Is.
var (
	// ErrNotFound: no record for the txn id (also wraps fs.ErrNotExist).
	ErrNotFound = errors.New("journal: record not found")
	// ErrCorruptRecord: a record file that does not parse or validate.
	ErrCorruptRecord = errors.New("journal: corrupt record")
	// ErrUnreadableDir: the .txn directory could not be listed. Never read
	// as "no records".
	ErrUnreadableDir = errors.New("journal: cannot read journal directory")
	// ErrInvalidRecord: a record refused by Validate before it is written.
	ErrInvalidRecord = errors.New("journal: invalid record")
)

// CorruptRecordError names a record file that does not parse or validate.
// The file is left in place as evidence.
type CorruptRecordError struct {
	Path string
	Err  error
}

func (e CorruptRecordError) Error() string {
	return fmt.Sprintf("journal: corrupt record %s: %v", e.Path, e.Err)
}

func (e CorruptRecordError) Unwrap() []error { return []error{ErrCorruptRecord, e.Err} }
