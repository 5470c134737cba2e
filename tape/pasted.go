package tape

import (
	"strings"
)

// People who run out of a window paste the old session's screen into a new
// one. The fold keeps the head and end of such a paste (maxHumanRunes), and
// the person's own prompts in its middle, the requests and corrections of
// the work pasted, were lost with the rest. pastedPrompts finds them by how
// the hosts' terminals show a prompt:
//
//   - OpenCode ends each of the agent's turns with a footer line,
//     "▣  Build · <model> · <time>" (the agent, the model, how long or
//     "interrupted"); the user's next prompt follows it, up to the agent's
//     "Thinking:" or "+ Thought" line or the next tool line.
//   - Claude Code starts the assistant's lines with "⏺" (or "●") and its
//     tool outputs with "⎿"; on such a screen, a line starting with "> " or
//     "❯ " at the margin is the user's prompt, its wrapped lines indented
//     under it.
//
// A prompt's lines are joined by spaces; the newest keptPrompts are kept,
// each clipped to promptRunes.
const (
	keptPrompts = 12
	promptRunes = 300
	// promptLines bounds one prompt after an OpenCode footer: a screen
	// whose next turn shows no "Thinking:" line ends it there.
	promptLines = 6
)

// pastedAt is the prompts found in the human instruction at Seq.
type pastedAt struct {
	Seq     int64    `json:"seq"`
	Prompts []string `json:"prompts"`
}

// pastedPrompts reads a pasted screen in one pass: sayings are all the
// person's prompts it shows, whole, one a line (what gives constraints:
// the rest of a screen is the agent's words and its tools' output);
// prompts the newest keptPrompts, each clipped to promptRunes (what the
// Goal lists). Both are empty when text is no host's screen.
func pastedPrompts(text string) (sayings string, prompts []string) {
	var sb strings.Builder
	screenPrompts(text, func(p string) {
		sb.WriteString(p)
		sb.WriteByte('\n')
		prompts = append(prompts, clipLine(p, promptRunes))
		if len(prompts) > 2*keptPrompts {
			prompts = append(prompts[:0], prompts[len(prompts)-keptPrompts:]...)
		}
	})
	if len(prompts) > keptPrompts {
		prompts = prompts[len(prompts)-keptPrompts:]
	}
	return sb.String(), prompts
}

// screenPrompts calls each with every prompt of the person's the pasted
// screen in text shows, oldest first, its lines joined by spaces; none
// when text is no host's screen.
func screenPrompts(text string, each func(prompt string)) {
	// Two passes over the lines, as substrings of text: a paste of many MB
	// costs no copy and no list of its lines.
	lines := func(yield func(string) bool) {
		for l := range strings.SplitSeq(text, "\n") {
			if !yield(strings.TrimSuffix(l, "\r")) {
				return
			}
		}
	}
	claude := isClaudeScreen(lines)
	var parts []string
	const (
		none = iota
		openCode
		claudePrompt
	)
	state := none
	flush := func() {
		if p := strings.Join(parts, " "); p != "" {
			each(p)
		}
		parts, state = parts[:0], none
	}
	for line := range lines {
		switch state {
		case openCode:
			if len(parts) < promptLines && !endsOpenCodePrompt(line) {
				if p := strings.TrimSpace(line); p != "" {
					parts = append(parts, p)
				}
				continue
			}
			flush()
		case claudePrompt:
			if strings.HasPrefix(line, "  ") && !strings.HasPrefix(strings.TrimSpace(line), "⎿") {
				parts = append(parts, strings.TrimSpace(line))
				continue
			}
			flush()
		}
		switch {
		case isOpenCodeFooter(line):
			state = openCode
		case claude && (strings.HasPrefix(line, "> ") || strings.HasPrefix(line, "❯ ")):
			state = claudePrompt
			parts = append(parts, strings.TrimSpace(line[strings.IndexByte(line, ' '):]))
		}
	}
	flush()
}

// isOpenCodeFooter: "▣  Build · Big Pickle · 4m 32s", indented or not.
func isOpenCodeFooter(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "▣ ") && strings.Count(t, " · ") >= 2
}

// endsOpenCodePrompt: the agent's next turn has begun (its thinking, a
// tool line, the composer's frame) or the next footer.
func endsOpenCodePrompt(line string) bool {
	t := strings.TrimSpace(line)
	if isOpenCodeFooter(t) {
		return true
	}
	for _, p := range []string{"Thinking:", "+ Thought", "┃", "╹", "→ ", "← ", "$ ", "✱ ", "⚙ ", "% "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// isClaudeScreen: an assistant line ("⏺ …" or "● …") and a tool output
// line ("⎿ …") as Claude Code's terminal shows them.
func isClaudeScreen(lines func(func(string) bool)) bool {
	var said, tool bool
	for l := range lines {
		said = said || strings.HasPrefix(l, "⏺ ") || strings.HasPrefix(l, "● ")
		tool = tool || strings.HasPrefix(strings.TrimSpace(l), "⎿")
		if said && tool {
			return true
		}
	}
	return false
}
