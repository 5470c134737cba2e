package tape

import (
	"fmt"
	"slices"
	"strings"
)

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

// pullRequest is a pull request the host linked to the session.
type pullRequest struct {
	URL    string `json:"url"`
	Number string `json:"number,omitempty"`
	Seq    int64  `json:"seq"`
}

// keptPullRequests bounds the linked pull requests the fold keeps;
// maxPullRequestRunes the URL of each.
const (
	keptPullRequests    = 5
	maxPullRequestRunes = 300
)

// linkPullRequest records a pull request the host linked, once: a link
// said again moves to the end with its newer seq.
func (b *Builder) linkPullRequest(url, number string, seq int64) {
	st := &b.st
	st.PullRequests = slices.DeleteFunc(st.PullRequests, func(p pullRequest) bool { return p.URL == url })
	st.PullRequests = append(st.PullRequests, pullRequest{URL: url, Number: number, Seq: seq})
	if len(st.PullRequests) > keptPullRequests {
		st.PullRequests = slices.Clone(st.PullRequests[len(st.PullRequests)-keptPullRequests:])
	}
}

// pullRequestsLine names the pull requests the host linked to the
// session, newest first: "" when it linked none.
func (b *Builder) pullRequestsLine() string {
	prs := b.st.PullRequests
	if len(prs) == 0 {
		return ""
	}
	var parts []string
	for k := len(prs) - 1; k >= 0; k-- {
		p := prs[k]
		part := p.URL
		if p.Number != "" {
			part = "#" + p.Number + " " + p.URL
		}
		parts = append(parts, fmt.Sprintf("%s (seq=%d)", part, p.Seq))
	}
	return "Pull requests the host linked to the session, newest first: " + strings.Join(parts, ", ") + "."
}
