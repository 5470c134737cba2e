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

func pastedPrompts(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	add := func(parts []string) {
		if p := strings.Join(parts, " "); p != "" {
			out = append(out, clipLine(p, promptRunes))
		}
	}
	claude := isClaudeScreen(lines)
	for k := 0; k < len(lines); k++ {
		line := lines[k]
		switch {
		case isOpenCodeFooter(line):
			var parts []string
			for k+1 < len(lines) && len(parts) < promptLines && !endsOpenCodePrompt(lines[k+1]) {
				k++
				if p := strings.TrimSpace(lines[k]); p != "" {
					parts = append(parts, p)
				}
			}
			add(parts)
		case claude && (strings.HasPrefix(line, "> ") || strings.HasPrefix(line, "❯ ")):
			parts := []string{strings.TrimSpace(line[strings.IndexByte(line, ' '):])}
			for k+1 < len(lines) && strings.HasPrefix(lines[k+1], "  ") && !strings.HasPrefix(strings.TrimSpace(lines[k+1]), "⎿") {
				k++
				parts = append(parts, strings.TrimSpace(lines[k]))
			}
			add(parts)
		}
	}
	if len(out) > keptPrompts {
		out = out[len(out)-keptPrompts:]
	}
	return out
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
func isClaudeScreen(lines []string) bool {
	var said, tool bool
	for _, l := range lines {
		said = said || strings.HasPrefix(l, "⏺ ") || strings.HasPrefix(l, "● ")
		tool = tool || strings.HasPrefix(strings.TrimSpace(l), "⎿")
		if said && tool {
			return true
		}
	}
	return false
}
