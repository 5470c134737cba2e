package tape

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// commandTemplate reads a human instruction that is a command's template
// as its command expanded it (Spec Kit's /speckit.* commands, on every
// host: "## User Input", the words the user typed after the command in a
// fenced block, then the command's own instructions): the words typed and
// the template's first line of its own. ok is false for anything else,
// and for a text shorter than pastedBytes (a person types a heading and a
// fence too).
func commandTemplate(text string) (input, first string, ok bool) {
	if len(text) < pastedBytes {
		return "", "", false
	}
	t := strings.TrimLeft(text, " \t\r\n")
	head, rest, found := strings.Cut(t, "\n")
	if !found || !strings.EqualFold(strings.TrimSpace(strings.TrimLeft(head, "#")), "user input") || !strings.HasPrefix(head, "#") {
		return "", "", false
	}
	rest = strings.TrimLeft(rest, " \t\r\n")
	if !strings.HasPrefix(rest, "```") {
		return "", "", false
	}
	_, body, _ := strings.Cut(rest, "\n") // past the fence's opening line
	end := strings.Index(body, "\n```")
	if end < 0 {
		if !strings.HasPrefix(body, "```") {
			return "", "", false
		}
		end = -1 // an empty block: "```text\n```"
	}
	if end >= 0 {
		input, rest = strings.TrimSpace(body[:end]), body[end+4:]
	} else {
		rest = body[3:]
	}
	// The template's first line of its own: past the fence's end, the
	// line asking to consider the input, and headings.
	for l := range strings.SplitSeq(rest, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "```") || strings.Contains(strings.ToLower(l), "consider the user input") {
			continue
		}
		first = l
		break
	}
	return input, first, true
}

// templateRunes bounds the template's first line the Goal quotes.
const templateRunes = 240

// commandTemplateQuote is what the Goal quotes of a command's template:
// the words typed after the command, then the template named by its first
// line, its size and its seq.
func commandTemplateQuote(input, first string, full string, seq int64) string {
	var b strings.Builder
	if input != "" {
		b.WriteString(input)
		b.WriteString("\n")
	} else {
		b.WriteString("(nothing typed after the command)\n")
	}
	fmt.Fprintf(&b, "(then a command's template, %d characters, recall seq=%d", utf8.RuneCountInString(full), seq)
	if first != "" {
		fmt.Fprintf(&b, ": %s", firstLine(first, templateRunes))
	}
	b.WriteString(")")
	return b.String()
}
