package claudecode

import (
	"encoding/json"
	"strconv"
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

// prLink imports a pull request the host linked to the session (pr-link:
// prNumber, prUrl, prRepository): a system event naming it.
func (m *Mapper) prLink(raw []byte, ln *line, out *importer.Output) {
	var pr struct {
		Number json.Number `json:"prNumber"`
		URL    string      `json:"prUrl"`
	}
	if err := json.Unmarshal(raw, &pr); err != nil {
		out.Warn("pr-link does not decode (%v); not read", err)
		return
	}
	if pr.URL == "" {
		out.Warn("pr-link without a pull request URL; not read")
		return
	}
	ev := m.event(ln, session.TypeSystem, session.Source{Kind: session.KindSystem, Name: "pr-link"})
	url := importer.Clip(pr.URL, 2048)
	ev.Meta[session.MetaPullRequest] = url
	ev.Text = "pull request linked to the session: " + url
	if n, err := strconv.Atoi(pr.Number.String()); err == nil && n > 0 {
		ev.Meta["prNumber"] = strconv.Itoa(n)
		ev.Text = "pull request #" + strconv.Itoa(n) + " linked to the session: " + url
	}
	out.Emit(ev)
}
