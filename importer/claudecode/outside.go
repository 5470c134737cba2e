package claudecode

import (
	"strings"

	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// attachmentEditedFile is the attachment Claude Code writes when a file
// its model read changed outside the model's tools (the person, a
// formatter, a merge): its model is told the file changed, and shown the
// lines around the change.
const attachmentEditedFile = "edited_text_file"

// maxSnippetRunes bounds the lines of a changed file an event keeps.
const maxSnippetRunes = 4000

// changedOutside names the file on ev (session.MetaChangedOutside) and
// puts the snippet in its text without the line numbers the host put
// before each line ("12\t").
func changedOutside(ev *session.Event, file, snippet string) {
	file = importer.Clip(file, 4096)
	ev.Meta[session.MetaChangedOutside] = file
	lines := strings.Split(snippet, "\n")
	for k, l := range lines {
		if n, rest, ok := strings.Cut(l, "\t"); ok && n != "" && strings.Trim(n, "0123456789 ") == "" {
			lines[k] = rest
		}
	}
	ev.Text = "changed outside the agent: " + file
	if body := strings.TrimSpace(strings.Join(lines, "\n")); body != "" {
		if r := []rune(body); len(r) > maxSnippetRunes {
			body = string(r[:maxSnippetRunes]) + "…"
		}
		ev.Text += "\n" + body
	}
}
