package tape

import "strings"

// maxMarkerRunes bounds a merge-conflict marker line a file entry keeps.
const maxMarkerRunes = 80

// conflictMarkers are the first "<<<<<<<" and the last ">>>>>>>" marker
// lines of a text that holds a whole merge conflict (the two, and a
// "=======" line between): what git left in a file for someone to
// resolve, and which sides (HEAD, main, a path). Nil otherwise.
func conflictMarkers(text string) []string {
	var first, last string
	sep := false
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimRight(l, " \r")
		switch {
		case first == "" && (l == "<<<<<<<" || strings.HasPrefix(l, "<<<<<<< ")):
			first = l
		case first != "" && l == "=======":
			sep = true
		case sep && (l == ">>>>>>>" || strings.HasPrefix(l, ">>>>>>> ")):
			last = l
		}
	}
	if last == "" {
		return nil
	}
	return []string{clipLine(first, maxMarkerRunes), clipLine(last, maxMarkerRunes)}
}
