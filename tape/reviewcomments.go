package tape

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// "Address the PR feedback" is a turn an agent is given every day: it
// fetches the pull request's review comments (gh api
// repos/o/r/pulls/N/comments, …/reviews, …/issues/N/comments, gh pr view
// --json comments,reviews, a GraphQL query of its review threads), and
// each comment is an item of the turn's work. The key lines of such an
// output are its comments, not its JSON's last line (a comment's code
// suggestion, its link).

// reviewCommentLines are the key lines of an output that is GitHub's
// comments (objects with a text "body" and an author, "user" or "author",
// with its "login"), at most maxKeyLines, those on a file's line first,
// each "<login> on <path>:<line>: <title>", a review's "<login>
// (<state>): <title>"; nil when out is none. An array cut short (the
// output's head) gives the comments before the cut; pages printed one
// after another (gh api --paginate) are read in turn.
func reviewCommentLines(out string) []string {
	cs, _ := reviewComments(out)
	return cs
}

// reviewComments is reviewCommentLines and the text after the JSON it
// read ("" at the output's end): a script that prints the comments, then
// its own verdict ("PR #1067: no failing checks detected.").
func reviewComments(out string) (lines []string, rest string) {
	body := strings.TrimSpace(withoutHeader(out))
	if body == "" || body[0] != '[' && body[0] != '{' || len(body) > maxJSONOutput || !strings.Contains(body, `"body"`) {
		return nil, ""
	}
	var found []reviewComment
	dec := json.NewDecoder(strings.NewReader(body))
	if body[0] == '{' {
		var v any
		if dec.Decode(&v) != nil {
			return nil, ""
		}
		collectComments(v, &found)
	}
	for body[0] == '[' {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			break
		}
		for dec.More() {
			var v any
			if dec.Decode(&v) != nil {
				break // cut short: the comments before the cut
			}
			collectComments(v, &found)
		}
		if _, err := dec.Token(); err != nil { // the array's end, then the next page
			break
		}
	}
	if len(found) == 0 {
		return nil, ""
	}
	rest = strings.TrimSpace(body[min(int(dec.InputOffset()), len(body)):])
	slices.SortStableFunc(found, func(a, b reviewComment) int {
		switch {
		case a.path != "" && b.path == "":
			return -1
		case a.path == "" && b.path != "":
			return 1
		}
		return 0
	})
	for _, c := range found {
		if len(lines) == maxKeyLines {
			break
		}
		lines = append(lines, firstLine(c.String(), keyLineRunes))
	}
	return lines, rest
}

// reviewComment is one comment of a fetch, with its title.
type reviewComment struct {
	login, path, line, state, title string
}

func (c reviewComment) String() string {
	who := c.login
	switch {
	case c.path != "" && c.line != "":
		who += " on " + c.path + ":" + c.line
	case c.path != "":
		who += " on " + c.path
	case c.state != "":
		who += " (" + c.state + ")"
	}
	return who + ": " + c.title
}

// collectComments appends the comments v holds, in the order of its
// arrays and, in an object, of its keys sorted.
func collectComments(v any, found *[]reviewComment) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			collectComments(e, found)
		}
	case map[string]any:
		if text, ok := v["body"].(string); ok {
			login := authorLogin(v["user"])
			if login == "" {
				login = authorLogin(v["author"])
			}
			if login != "" {
				if title := commentTitle(text); title != "" {
					c := reviewComment{login: login, title: title}
					c.path, _ = v["path"].(string)
					c.state, _ = v["state"].(string)
					for _, k := range []string{"line", "original_line"} {
						if n, ok := v[k].(float64); ok && n > 0 {
							c.line = strconv.FormatInt(int64(n), 10)
							break
						}
					}
					*found = append(*found, c)
				}
				return
			}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			collectComments(v[k], found)
		}
	}
}

// authorLogin is the "login" of a "user" or "author" object, "" for none.
func authorLogin(v any) string {
	m, _ := v.(map[string]any)
	login, _ := m["login"].(string)
	return login
}

// commentTitle is what a comment's body says first: its first line that
// is a heading or bold ("### Invalid argv passes has_command", "**Only
// fall back for inherited providers.**") or text, of at least two words,
// past the badges and labels review bots open with (HTML, images, a row of
// "_🟠 Major_" tags); "" when the body says nothing before its code.
func commentTitle(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(stripTags(l))
		if strings.HasPrefix(t, "```") {
			return ""
		}
		if t == "" || strings.HasPrefix(t, "![") || strings.HasPrefix(t, "[![") || tagRow(t) {
			continue
		}
		t = strings.TrimSpace(strings.ReplaceAll(strings.TrimLeft(t, "#>"), "**", ""))
		t = strings.TrimSpace(strings.Trim(t, "_*"))
		if words(t) >= 2 {
			return t
		}
	}
	return ""
}

// stripTags is l without its HTML tags and comments ("<img …>", "<!--
// … -->"); a "<" with no ">" after it stays.
func stripTags(l string) string {
	if !strings.Contains(l, "<") {
		return l
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(l, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(l[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(l[:i])
		l = l[i+j+1:]
	}
	b.WriteString(l)
	return b.String()
}

// tagRow: a line of labels only, each in underscores ("_🎯 Functional
// Correctness_ | _🟠 Major_").
func tagRow(t string) bool {
	for part := range strings.SplitSeq(t, "|") {
		p := strings.TrimSpace(part)
		if len(p) < 2 || p[0] != '_' || p[len(p)-1] != '_' {
			return false
		}
	}
	return true
}

// words counts the runs of letters in t.
func words(t string) int {
	n, in := 0, false
	for _, r := range t {
		letter := unicode.IsLetter(r)
		if letter && !in {
			n++
		}
		in = letter
	}
	return n
}
