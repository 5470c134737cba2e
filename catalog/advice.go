package catalog

import "errors"

// Advice says what to do about a failure to use catalog.db, as a suffix
// for its message ("" when the error says it: a damaged catalog's names
// the rebuild).
func Advice(err error) string {
	switch {
	case errors.Is(err, ErrCorrupt):
		return ""
	case errors.Is(err, ErrBusy):
		return "; retry when that graft process is done"
	case NotWritable(err):
		return "; make catalog.db readable and writable by this user (its mode, its owner, or a read-only mount)"
	case errors.Is(err, ErrFormat):
		return "; use the graft that wrote it, or move it aside and run graft recover --rebuild-catalog"
	case errors.Is(err, ErrCorruptValue):
		return "; graft recover --rebuild-catalog derives lineage, leftovers and the indexes again from the logs"
	}
	return ""
}

// Problem is err's message with what to do about it (Advice).
func Problem(err error) string { return err.Error() + Advice(err) }
