package tape

import (
	"strings"

	"github.com/graft-project/graft/session"
)

// Part is one block of a tape's text: its title and its text, the marker
// line included.
type Part struct {
	Title string
	Text  string
}

// SplitText splits a tape's text (Tape.Text: the blocks' texts joined by
// "\n\n") back into its blocks, in order. A block starts at a marker line
// ("[graft:tape <8 hex>] [<title>]", doc.go) at the start of the text or
// after a blank line; text before the first marker is no block.
func SplitText(text string) []Part {
	var parts []Part
	start, title := -1, ""
	for at := 0; at <= len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += at
		}
		if at == 0 || strings.HasSuffix(text[:at], "\n\n") {
			if t, ok := markerTitle(text[at:end]); ok {
				if start >= 0 {
					parts = append(parts, Part{Title: title, Text: text[start : at-2]})
				}
				start, title = at, t
			}
		}
		at = end + 1
	}
	if start >= 0 {
		parts = append(parts, Part{Title: title, Text: text[start:]})
	}
	return parts
}

// markerTitle is the title a block's marker line names.
func markerTitle(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, session.GraftMarker+" ")
	if !ok || len(rest) < shortHashLen+4 || !isHex(rest[:shortHashLen], shortHashLen) {
		return "", false
	}
	rest, ok = strings.CutPrefix(rest[shortHashLen:], "] [")
	if !ok || !strings.HasSuffix(rest, "]") || len(rest) < 2 {
		return "", false
	}
	return rest[:len(rest)-1], true
}
