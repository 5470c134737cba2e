package importer

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/session"
)

// maxDefaultID leaves room in the 128-character id for the ".agent-<name>"
// suffix of sub-sessions.
const maxDefaultID = 100

// DefaultID derives a session id from a transcript file name: the base name
// without its extension, every character outside [A-Za-z0-9._-] replaced by
// '-', leading characters that cannot start an id removed, cut to 100
// characters. A name with nothing left is an error asking for --id.
func DefaultID(path string) (string, error) {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	id := strings.TrimLeft(b.String(), "._-")
	if len(id) > maxDefaultID {
		id = id[:maxDefaultID]
	}
	if err := session.ValidID(id); err != nil {
		return "", fmt.Errorf("importer: cannot derive a session id from file name %q: %w; pass one with --id", filepath.Base(path), err)
	}
	return id, nil
}
