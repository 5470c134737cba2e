package tape

import (
	"fmt"
	"strings"
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
	if !strings.HasPrefix(body, "```") {  // else an empty block: "```text\n```"
		i := strings.Index(body, "\n```")
		if i < 0 {
			return "", "", false // the block never closes
		}
		input, body = strings.TrimSpace(body[:i]), body[i+1:]
	}
	// The template's first line of its own: past the fence's end, the
	// line asking to consider the input, and headings.
	for l := range strings.SplitSeq(body, "\n") {
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
// the words typed after the command, then the template named by its
// first line and its seq (not by its size: the fold keeps a long
// instruction's head and end only, maxHumanRunes).
func commandTemplateQuote(input, first string, seq int64) string {
	var b strings.Builder
	if input != "" {
		b.WriteString(input)
		b.WriteString("\n")
	} else {
		b.WriteString("(nothing typed after the command)\n")
	}
	fmt.Fprintf(&b, "(then a command's template, recall seq=%d", seq)
	if first != "" {
		fmt.Fprintf(&b, ": %s", firstLine(first, templateRunes))
	}
	b.WriteString(")")
	return b.String()
}
