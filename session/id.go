package session

import (
	"fmt"
	"regexp"
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidID refuses every id that is not ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$,
// before any file is touched: "..", "a/b", "", NUL, 129 characters.
func ValidID(id string) error {
	if !idPattern.MatchString(id) {
		return fmt.Errorf("%w %q: want 1-128 characters of [A-Za-z0-9._-], starting with a letter or digit", ErrInvalidID, id)
	}
	return nil
}
