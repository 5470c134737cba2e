package codex

import "strings"

// Memory citations (doc.go, "Memory citations"): Codex asks its model to
// end an answer that used a memory with one <oai-mem-citation> block, for
// programmatic parsing, and takes the block out of the text it shows.

const (
	memCiteOpen  = "<oai-mem-citation>"
	memCiteClose = "</oai-mem-citation>"
	// maxMemoryCitationRunes bounds what meta memoryCitations keeps.
	maxMemoryCitationRunes = 2000
)

// withoutMemoryCitations is text without its <oai-mem-citation> blocks
// (each on lines of its own, outside a fenced code block) and the entries
// they cite (their <citation_entries>, one per line); text unchanged and
// "" when it has none.
func withoutMemoryCitations(text string) (string, string) {
	if !strings.Contains(text, memCiteOpen) {
		return text, ""
	}
	lines := strings.Split(text, "\n")
	var kept, cited []string
	fence, in, entries := "", false, false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case in:
			switch t {
			case memCiteClose:
				in = false
			case "<citation_entries>":
				entries = true
			case "</citation_entries>":
				entries = false
			default:
				if entries && t != "" {
					cited = append(cited, t)
				}
			}
			continue
		case fence == "" && t == memCiteOpen:
			in = true
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if fence == "" {
				fence = t[:3]
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
		}
		kept = append(kept, l)
	}
	if in || len(kept) == len(lines) {
		return text, "" // an open block with no end is text
	}
	return strings.TrimRight(strings.Join(kept, "\n"), " \t\n"), clipRunes(strings.Join(cited, "\n"), maxMemoryCitationRunes)
}

// clipRunes is s cut to at most n runes.
func clipRunes(s string, n int) string {
	k := 0
	for i := range s {
		if k == n {
			return s[:i]
		}
		k++
	}
	return s
}
