package tape

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/graft-project/graft/session"
)

// What an agent posts for people to read (a pull request's or an issue's
// body, a comment, a review, a release's notes) is its own account of the
// work: the change, how it was checked, what is left. The call's line
// shows its command up to a here-document ("gh pr create … <<'EOF' …"),
// so the fold carries the text itself with the assistant's messages,
// marked as posted and model-written (TestAPostedBodyIsCarriedAsTheAssistantsWords).

// ghPost matches a gh command that posts text.
var ghPost = regexp.MustCompile(`\bgh\s+(?:(?:pr|issue)\s+(?:create|edit|comment|review)|release\s+(?:create|edit)|api)\b`)

// bodyFlags are the flags whose value is the text a gh command posts;
// fieldFlags those whose value "body=…" is (gh api).
var (
	bodyFlags  = []string{"--body", "-b", "--notes", "-n"}
	fieldFlags = []string{"-f", "-F", "--field", "--raw-field"}
)

// postedBody is the gh command cmd runs that posts text ("gh pr create",
// "gh api") and that text: a here-document fed to it (--body-file -, -F
// -, --body "$(cat <<'EOF' … EOF)"), else the value of its --body, -b,
// --notes, -n, or gh api's -f body=…. Both are "" for any other command.
func postedBody(cmd string) (what, body string) {
	if !strings.Contains(cmd, "gh") {
		return "", "" // every shell call comes here: most name no gh
	}
	loc := ghPost.FindStringIndex(cmd)
	if loc == nil {
		return "", ""
	}
	what = strings.Join(strings.Fields(cmd[loc[0]:loc[1]]), " ")
	rest := cmd[loc[1]:]
	// A here-document on the command's line.
	lines := strings.Split(rest, "\n")
	if at, doc, _ := heredocBody(lines, 0); at >= 0 {
		seg := lines[0][:at]
		if !strings.Contains(seg, ";") && !strings.Contains(seg, "&&") && !strings.Contains(seg, "|") {
			for _, f := range []string{"--body-file -", "--body-file=-", "-F -", "--notes-file -", "--input -", "$(cat"} {
				if strings.Contains(seg, f) {
					return what, strings.TrimSpace(strings.Join(doc, "\n"))
				}
			}
		}
	}
	words := shellWords(rest)
	for k, w := range words {
		var v string
		switch {
		case k+1 < len(words) && slices.Contains(bodyFlags, w):
			v = words[k+1]
		case strings.HasPrefix(w, "--body=") || strings.HasPrefix(w, "--notes="):
			_, v, _ = strings.Cut(w, "=")
		case k+1 < len(words) && slices.Contains(fieldFlags, w) && strings.HasPrefix(words[k+1], "body="):
			v = strings.TrimPrefix(words[k+1], "body=")
		default:
			continue
		}
		if v = strings.TrimSpace(v); v != "" && !strings.HasPrefix(v, "$") { // "$b", "$(cat f)": text the command does not show
			return what, v
		}
	}
	return "", ""
}

// shellWords are the words of the simple command s opens with, as a shell
// reads them: split on blanks outside quotes, quotes taken off ('…'
// literal; "…" and bare words with their backslash escapes), up to the
// first ;, &, | or newline outside quotes.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in := false // a word is open
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				w.WriteByte(s[i])
				in = true
			}
		case c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|' || c == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
			if c != ' ' && c != '\t' {
				return words
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// postedTool is the body a tool call that posts text gives it (an MCP
// server's create_pull_request, add_issue_comment …: a "body" field),
// for a tool whose name says it posts; "" for any other.
func postedTool(name string, input json.RawMessage) string {
	n := strings.ToLower(name)
	if !strings.Contains(n, "pull_request") && !strings.Contains(n, "issue") && !strings.Contains(n, "comment") && !strings.Contains(n, "review") {
		return ""
	}
	var in struct {
		Body string `json:"body"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	return strings.TrimSpace(in.Body)
}

// maxPostedRunes bounds what the carryover keeps of a posted text, by
// its head and end (a body's summary opens it, its test plan or the AI
// note ends it): 1,000 runes, below a message's 1,500 (600 and 1,000
// carried alike; 1,500 cost three held-out facts, on the tuning cases
// the same).
const maxPostedRunes = 1000

// posted carries the text the call ev posts, if it posts one.
func (b *Builder) posted(ev *session.Event, in *callInput, shell bool) {
	var what, body string
	if shell {
		what, body = postedBody(in.command())
	} else if body = postedTool(ev.Tool.Name, ev.Tool.Input); body != "" {
		what = ev.Tool.Name
	}
	if body == "" {
		return
	}
	b.carry(paragraph{Seq: ev.Seq, Text: "(posted with " + what + ", model-written)\n" + clipHeadTail(body, maxPostedRunes, "", ev.Seq)})
}
