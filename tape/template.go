package tape

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/anchors"
	"github.com/graft-project/graft/session"
)

// commandTemplate reads a human instruction that is a command's template
// as its command expanded it (Spec Kit's /speckit.* commands, on every
// host: "## User Input", the words the user typed after the command in a
// fenced block, then the command's own instructions): the words typed and
// the template's first line of its own. ok is false for anything else,
// and for a text shorter than pastedBytes (a person types a heading and a
// fence too) but one the fold clipped from a longer one (clipQuote: its
// cut mark stands for the rest).
func commandTemplate(text string) (input, first string, ok bool) {
	input, first, _, _, ok = readTemplate(text)
	return input, first, ok
}

// readTemplate is commandTemplate with where in text it read: firstAt,
// the byte offset of the template's first line of its own (-1 when it
// has none), and closeAt, that of the line that closes the block of the
// words typed.
func readTemplate(text string) (input, first string, firstAt, closeAt int, ok bool) {
	if len(text) < pastedBytes && !strings.Contains(text, cutMark) {
		return "", "", -1, -1, false
	}
	t := strings.TrimLeft(text, " \t\r\n")
	head, rest, found := strings.Cut(t, "\n")
	if !found || !strings.EqualFold(strings.TrimSpace(strings.TrimLeft(head, "#")), "user input") || !strings.HasPrefix(head, "#") {
		return "", "", -1, -1, false
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	if !strings.HasPrefix(rest, "```") {
		return "", "", -1, -1, false
	}
	_, body, _ := strings.Cut(rest, "\n") // past the fence's opening line
	if !strings.HasPrefix(body, "```") {  // else an empty block: "```text\n```"
		i := strings.Index(body, "\n```")
		if i < 0 {
			return "", "", -1, -1, false // the block never closes
		}
		input, body = strings.TrimSpace(body[:i]), body[i+1:]
	}
	closeAt = len(text) - len(body)
	// The template's first line of its own: past the fence's end, the
	// line asking to consider the input, and headings.
	at := closeAt
	for l := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "```") || strings.Contains(strings.ToLower(t), "consider the user input") {
			at += len(l) + 1
			continue
		}
		return input, t, at + strings.Index(l, t), closeAt, true
	}
	return input, "", -1, closeAt, true
}

// templateHeadEnd is the byte offset in text, a command's template as
// commandTemplate reads it, just past the template's first line of its
// own (its first templateRunes runes; Spec Kit's opens by repeating the
// typed words whole), or past the line that closes the typed words'
// block when it has none: the part of it the Goal quotes once the
// command's turn is answered. The line's end goes with it, so that a cut
// mark after it opens a line of its own. It is -1 when text is no such
// template.
func templateHeadEnd(text string) int {
	_, first, at, closeAt, ok := readTemplate(text)
	if !ok {
		return -1
	}
	if at < 0 {
		at, first = closeAt, firstLine(text[closeAt:], len(text))
	}
	if r := []rune(first); len(r) > templateRunes {
		return at + len(string(r[:templateRunes]))
	}
	end := at + len(first)
	if j := strings.IndexByte(text[end:], '\n'); j >= 0 {
		end += j + 1
	}
	return end
}

// templateClip is text cut to n runes for a command's template whose
// typed words run past the head clipHeadTail keeps: its head then reaches
// the end of those words and the template's first line of its own
// (templateHeadEnd), so that the Goal reads the template as one
// (commandTemplate) and quotes the person's words whole, while the
// template's end still has a fifth of the room. ok is false where that
// does not apply: text fits n, is no such template, its head is no longer
// than clipHeadTail's, or would leave the end less than a fifth.
func templateClip(text string, n int, seq int64) (string, bool) {
	if _, cut := prefixRunes(text, n); !cut {
		return "", false
	}
	end := templateHeadEnd(text)
	if end < 0 {
		return "", false
	}
	mark := clipMark("", seq)
	head := utf8.RuneCountInString(text[:end])
	def, _ := headTailRunes(n, mark)
	if head <= def || head > n-n/5 {
		return "", false
	}
	r := []rune(text)
	tail := max(0, n-head-utf8.RuneCountInString(mark))
	return string(r[:head]) + mark + string(r[len(r)-tail:]), true
}

// clipInstruction is clipHeadTail for a human instruction the fold keeps
// (maxHumanRunes), but for a command's template: templateClip.
func clipInstruction(text string, n int, seq int64) string {
	if s, ok := templateClip(text, n, seq); ok {
		return s
	}
	return clipHeadTail(text, n, "", seq)
}

// clipQuote is what the fold keeps of an instruction as a quote, within
// maxQuoteRunes (the first goal a later generation inherits, the latest
// instructions): a command's template keeps the words typed after it
// whole (templateClip), as the Goal's clip does
// (TestTheFirstGoalsQuoteKeepsATemplatesTypedWordsWhole); other text its
// head and its end, the cut naming a pasted log's first error line.
func clipQuote(text string, seq int64) string {
	if s, ok := templateClip(text, maxQuoteRunes, seq); ok {
		return s
	}
	return clipHumanText(text, maxQuoteRunes, seq)
}

// templateRunes bounds the template's first line the Goal quotes.
const templateRunes = 240

// commandTemplateQuote is what the Goal quotes of a command's template:
// the words typed after the command, then the template named by its
// first line and its seq (not by its size: the fold keeps a long
// instruction's head and end only, maxHumanRunes); a template said in
// another session (a first goal a later generation inherits) is recalled
// in that session (sess, "" for the tape's own).
func commandTemplateQuote(input, first, sess string, seq int64) string {
	var b strings.Builder
	if input != "" {
		b.WriteString(input)
		b.WriteString("\n")
	} else {
		b.WriteString("(nothing typed after the command)\n")
	}
	b.WriteString("(then a command's template, recall ")
	if sess != "" {
		b.WriteString(sessionLabel(sess) + " ")
	}
	fmt.Fprintf(&b, "seq=%d", seq)
	if first != "" {
		fmt.Fprintf(&b, ": %s", firstLine(first, templateRunes))
	}
	b.WriteString(")")
	return b.String()
}

// commandText is what the Goal shows of the text a command the person
// typed expanded to: Claude Code writes it as a user line of its own
// after the command (isMeta), Codex as a <skill> block, both imported as
// kind "skill". It is the host's words (a command's or a skill's file),
// not the user's, but the person asked for it by typing the command: the
// mode the work runs in ("Explore mode is for research and thinking, not
// implementing"). First is its first line of its own, Rule its first
// saying that states a rule (anchors.Sayings), each at most templateRunes.
type commandText struct {
	Seq   int64  `json:"seq"` // the instruction's
	At    int64  `json:"at"`  // the command text's
	First string `json:"first,omitempty"`
	Rule  string `json:"rule,omitempty"`
}

// commandText keeps the command's text ev when it opens the turn of the
// person's instruction: nothing of the agent's came between them. A
// skill the agent loaded itself (after its own tool call) is no
// instruction of the person's (TestTheGoalShowsTheCommandsTextItsFirstRule).
func (b *Builder) commandText(ev *session.Event) {
	st := &b.st
	o := &st.Open
	if st.Boundary == 0 || o.Start != st.Boundary || o.ToolCalls > 0 || len(o.Messages) != 1 || !o.Messages[0].Human {
		return
	}
	if n := len(st.CommandTexts); n > 0 && st.CommandTexts[n-1].Seq == st.Boundary {
		return // the command's first text says what it is
	}
	first, rule := commandTextLines(ev.Text)
	if first == "" && rule == "" {
		return
	}
	st.CommandTexts = keepLast(append(st.CommandTexts, commandText{Seq: st.Boundary, At: ev.Seq, First: first, Rule: rule}), keptHumans)
}

// commandTextLines are a command's text's first line of its own (its
// front matter's description, else the first past
// blank lines, HTML comments, tags, headings, list items (a command's
// context it ran a command for: "- Current commit: …"), Claude Code's "Base
// directory for this skill:" and the "ARGUMENTS:" line that repeats what
// was typed) and its first saying that states a rule other than that
// line; "" where there is none.
func commandTextLines(text string) (first, rule string) {
	text, description := frontMatter(text)
	if first = firstLine(description, templateRunes); first == "" {
		first = firstOwnLine(text)
	}
	for s := range anchors.Sayings(text) {
		if s = firstLine(s, templateRunes); s != first && !strings.Contains(first, s) {
			rule = s
			break
		}
	}
	return first, rule
}

// firstOwnLine is the first line of a command's text past those that are
// not its own (commandTextLines), within templateRunes.
func firstOwnLine(text string) string {
	for l := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") || strings.HasPrefix(t, "Base directory for this skill:") || strings.HasPrefix(t, "ARGUMENTS:") {
			continue
		}
		return firstLine(t, templateRunes)
	}
	return ""
}

// frontMatter is text without the YAML front matter a command file opens
// with ("---", its "key: value" lines, "---": Qwen Code 0.5.0 sent the
// file so), and the matter's description, which says what the command
// is; text as it is and "" when it opens with none.
func frontMatter(text string) (body, description string) {
	rest, open := strings.CutPrefix(strings.TrimLeft(text, " \t\r\n"), "---")
	if open {
		rest, open = strings.CutPrefix(strings.TrimLeft(rest, " \t\r"), "\n")
	}
	if !open {
		return text, ""
	}
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return text, ""
	}
	for l := range strings.SplitSeq(rest[:end], "\n") {
		if v, found := strings.CutPrefix(strings.TrimSpace(l), "description:"); found {
			description = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	body = rest[end+len("\n---"):]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		return body[i+1:], description
	}
	return "", description
}

// commandTextNote is the line the Goal shows under the instruction q:
// its command's text (of this session's, the fold's; of one handed on,
// the one it came with, cited in its session), or "".
func (b *Builder) commandTextNote(q session.Quote) string {
	c := b.commandOf(q)
	if c == nil {
		return ""
	}
	s := fmt.Sprintf("\n↳ then the command's text, %s (the host's words, not the user's): %s", b.seqIn(q.Origin, c.At), c.First)
	if c.Rule != "" {
		s += " ⏎ its first rule: " + c.Rule
	}
	return s
}

// heldQuote is the fold's copy of the quote q handed on (the first goal
// or one of Humans), q itself when the fold holds none: the tape's Goal
// quotes are copies without the command's text and the picks.
func (b *Builder) heldQuote(q session.Quote) session.Quote {
	if fg := b.st.FirstGoal; fg != nil && fg.Origin == q.Origin {
		return *fg
	}
	for _, h := range b.st.Humans {
		if h.Origin == q.Origin {
			return h
		}
	}
	return q
}

// seqIn cites seq of the session of o: "seq=N", or "gen 1 seq=N" for a
// session before this one.
func (b *Builder) seqIn(o session.Origin, seq int64) string {
	at := fmt.Sprintf("seq=%d", seq)
	if sess := b.ref(o); sess != "" {
		at = sessionLabel(sess) + " " + at
	}
	return at
}

// commandOf is the command's text the instruction q ran: of this
// session's, the fold's (CommandTexts); of one handed on, the one it came
// with (inherit: command); nil for none.
func (b *Builder) commandOf(q session.Quote) *session.CommandText {
	if q.Origin.Session != b.st.SessionID {
		if q.Command != nil {
			return q.Command
		}
		return b.heldQuote(q).Command
	}
	for _, c := range b.st.CommandTexts {
		if c.Seq == q.Origin.Seq {
			return &session.CommandText{At: c.At, First: c.First, Rule: c.Rule}
		}
	}
	return nil
}
