package tape

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// "Address the PR feedback" is a turn an agent is given every day: it
// fetches the pull request's review comments (gh api
// repos/o/r/pulls/N/comments, …/reviews, …/issues/N/comments, gh pr view
// --json comments,reviews, a GraphQL query of its review threads), and
// each comment is an item of the turn's work. The key lines of such an
// output are its comments, not its JSON's last line (a comment's code
// suggestion, its link).

// reviewComments are the comments of an output that is GitHub's (objects
// with a text "body" and an author, "user" or "author", its "login" or,
// slimmed with --jq, the login itself; or with a place in a file's diff,
// onALine), those on a file's line first, a resolved thread's last of
// them, and the text after the JSON ("" at the output's end: a script that
// prints the comments, then its own verdict, "PR #1067: no failing checks
// detected."); nil when out is none. An array cut short (the output's
// head) gives the comments before the cut; pages printed one after
// another (gh api --paginate) are read in turn, and objects one a line as
// long as each holds comments. The JSON starts the output or one of its
// first lines (after a script's "Output:"). out is the output without a
// host's header (withoutHeader), as keyLinesSkipping reads it.
func reviewComments(out string) (found []reviewComment, rest string) {
	body := strings.TrimSpace(out)
	for k := 0; k < maxJSONHeadLines && body != "" && body[0] != '[' && body[0] != '{'; k++ {
		i := strings.IndexByte(body, '\n')
		if i < 0 {
			return nil, ""
		}
		body = strings.TrimLeft(body[i+1:], " \t\r")
	}
	if body == "" || body[0] != '[' && body[0] != '{' || len(body) > maxJSONOutput || !strings.Contains(body, `"body"`) {
		return nil, ""
	}
	dec := json.NewDecoder(strings.NewReader(body))
	end := len(body) // where the JSON read ends: the text after it is the rest
	for body[0] == '{' && dec.More() {
		// An object, or one a line (JSON Lines: gh … --jq '.[] | {…}'),
		// as long as each holds comments: the rest, another command's
		// JSON among them, is read for its key lines.
		var v any
		if dec.Decode(&v) != nil {
			break
		}
		n := len(found)
		collectComments(v, &found)
		if len(found) == n {
			break
		}
		end = int(dec.InputOffset())
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
		end = int(dec.InputOffset())
	}
	if len(found) == 0 {
		return nil, ""
	}
	rest = strings.TrimSpace(body[min(end, len(body)):])
	// The comments on a file's line first, a resolved thread's last of
	// them: what is left to do before what is done.
	slices.SortStableFunc(found, func(a, b reviewComment) int { return a.rank() - b.rank() })
	return found, rest
}

// maxJSONHeadLines is how many lines before the JSON reviewComments reads
// past ("Script completed", "Wall time …", "Output:", "---RESULT 1---").
const maxJSONHeadLines = 4

// commentLines are the key lines of the first n of cs: one each, the most
// to do last, since an older call's quote keeps its last key lines.
func commentLines(cs []reviewComment, n int) []string {
	cs = slices.Clone(cs[:min(n, len(cs))])
	slices.SortStableFunc(cs, func(a, b reviewComment) int { return b.rank() - a.rank() })
	lines := make([]string, len(cs))
	for k, c := range cs {
		lines[k] = firstLine(c.String(), keyLineRunes)
	}
	return lines
}

// reviewComment is one comment of a fetch, with its title; of a review
// thread's first comment, the thread's id and whether it is resolved.
type reviewComment struct {
	login, path, line, state, title string
	thread                          string
	resolved                        bool
}

// rank orders the comments by what is left to do: on a file's line and
// not resolved 0, on a file's line 1, the others 2.
func (c reviewComment) rank() int {
	switch {
	case c.path != "" && !c.resolved:
		return 0
	case c.path != "":
		return 1
	}
	return 2
}

func (c reviewComment) String() string {
	who := c.login
	if who == "" {
		who = "comment" // its author left out of the fetch
	}
	switch {
	case c.path != "" && c.line != "":
		who += " on " + c.path + ":" + c.line
	case c.path != "":
		who += " on " + c.path
	case c.state != "":
		who += " (" + c.state + ")"
	}
	var tail string
	if c.thread != "" {
		state := "unresolved"
		if c.resolved {
			state = "resolved"
		}
		tail = " (thread " + c.thread + ", " + state + ")"
	}
	// The title is clipped, not the thread's id after it: the key line
	// is at most keyLineRunes.
	room := max(keyLineRunes/4, keyLineRunes-utf8.RuneCountInString(who)-2-utf8.RuneCountInString(tail))
	return who + ": " + firstLine(c.title, room) + tail
}

// lineOf is v's "line" or "original_line" ("originalLine"), "" for none.
func lineOf(v map[string]any) string {
	for _, k := range []string{"line", "original_line", "originalLine"} {
		if n, ok := v[k].(float64); ok && n > 0 {
			return strconv.FormatInt(int64(n), 10)
		}
	}
	return ""
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
			if login != "" || onALine(v) { // a comment on a file's line needs no author to be one
				if title := commentTitle(text); title != "" {
					c := reviewComment{login: login, title: title, line: lineOf(v)}
					c.path, _ = v["path"].(string)
					c.state, _ = v["state"].(string)
					*found = append(*found, c)
				}
				return
			}
		}
		if resolved, ok := v["isResolved"].(bool); ok {
			// A review thread (GraphQL's reviewThreads): its first
			// comment is the finding, with the thread's id, state and
			// place; the replies under it are the thread's own.
			var cs []reviewComment
			collectComments(v["comments"], &cs)
			if len(cs) > 0 {
				c := cs[0]
				c.thread, _ = v["id"].(string)
				c.resolved = resolved
				if p, _ := v["path"].(string); c.path == "" && p != "" {
					c.path, c.line = p, lineOf(v)
				}
				*found = append(*found, c)
			}
			return
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			collectComments(v[k], found)
		}
	}
}

// onALine: v names a file and a place in its diff, as a review comment
// does ("path" and "line", "diff_hunk", "position"): not a request's path
// and body in a log.
func onALine(v map[string]any) bool {
	if _, ok := v["path"].(string); !ok {
		return false
	}
	for _, k := range []string{"line", "original_line", "diff_hunk", "position", "start_line"} {
		if _, ok := v[k]; ok {
			return true
		}
	}
	return false
}

// authorLogin is the "login" of a "user" or "author" object, or the
// value itself where a --jq left the login alone; "" for none.
func authorLogin(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
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
		t = strings.TrimSpace(strings.ReplaceAll(strings.TrimLeft(t, "#> "), "**", ""))
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
