package docscheck

import (
	"regexp"
	"strings"
)

// invocation is "graft <words> … --flags" as a document writes it.
type invocation struct {
	words [][]string // each word after "graft", with its alternatives ("claude-code|codex")
	flags []string   // flag names, without "--"
}

var (
	cliWordRE = regexp.MustCompile(`^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*$`)
	cliFlagRE = regexp.MustCompile(`^[\[(]*--([a-z][a-z0-9-]*)`)
)

// invocations finds each "graft" followed by at least one command word in
// s, a code span or a line of a shell block; the flags after it, up to the
// next "graft", are its flags.
func invocations(s string) []invocation {
	toks := strings.Fields(s)
	var out []invocation
	for i := 0; i < len(toks); i++ {
		if toks[i] != "graft" {
			continue
		}
		var inv invocation
		j := i + 1
		for ; j < len(toks) && cliWordRE.MatchString(toks[j]); j++ {
			inv.words = append(inv.words, strings.Split(toks[j], "|"))
		}
		k := j
		for ; k < len(toks) && toks[k] != "graft"; k++ {
			if m := cliFlagRE.FindStringSubmatch(toks[k]); m != nil {
				inv.flags = append(inv.flags, m[1])
			}
		}
		if len(inv.words) > 0 {
			out = append(out, inv)
		}
		i = k - 1
	}
	return out
}

// resolved is one expansion of an invocation: the command it names and
// the words left over as its arguments.
type resolved struct {
	words string // the expansion, "hook install claude-code"
	cmd   *cliCommand
	args  []string
	err   string // why it names no command
}

// expand returns every combination of the alternatives.
func expand(words [][]string) [][]string {
	out := [][]string{nil}
	for _, alts := range words {
		var next [][]string
		for _, o := range out {
			for _, a := range alts {
				next = append(next, append(append([]string(nil), o...), a))
			}
		}
		out = next
	}
	return out
}

// resolve walks the command tree along each expansion of words: a word
// that is a subcommand descends; the first one that is not is an argument
// (with the rest) when the command has no available subcommand, else an
// error. "help X" resolves X, which must be a command or a help topic.
func (k *code) resolve(words [][]string) []resolved {
	var out []resolved
	for _, ws := range expand(words) {
		r := resolved{words: strings.Join(ws, " ")}
		if ws[0] == "help" && len(ws) > 1 {
			if c := k.tree["graft "+strings.Join(ws[1:], " ")]; c != nil && !c.Hidden {
				r.cmd = c
			} else {
				r.err = `"graft ` + r.words + `": graft has no command or help topic "` + strings.Join(ws[1:], " ") + `"`
			}
			out = append(out, r)
			continue
		}
		cur := k.tree["graft"]
		for i, w := range ws {
			if c := k.tree[cur.Path+" "+w]; c != nil && !c.Hidden {
				cur = c
				continue
			}
			if !cur.leaf(k.tree) {
				r.err = `"graft ` + r.words + `": "` + cur.Path + `" has no command "` + w + `" (it has ` + strings.Join(availableSubs(k, cur), ", ") + `)`
			} else {
				r.args = ws[i:]
			}
			break
		}
		r.cmd = cur
		out = append(out, r)
	}
	return out
}

func availableSubs(k *code, c *cliCommand) []string {
	var out []string
	for _, s := range c.Subcommands {
		if sc := k.tree[c.Path+" "+s]; sc != nil && sc.Available {
			out = append(out, s)
		}
	}
	return out
}

// checkInvocation checks that inv names commands that exist, with flags
// they have; it returns the commands it resolved to.
func checkInvocation(c *checker, d *mdDoc, line int, k *code, inv invocation) []resolved {
	var ok []resolved
	for _, r := range k.resolve(inv.words) {
		if !c.fact("CLI command", d, line, r.err == "", "%s", r.err) {
			continue
		}
		ok = append(ok, r)
		for _, f := range inv.flags {
			_, has := r.cmd.flag(f)
			c.fact("CLI flag", d, line, has, `"%s" has no flag --%s`, r.cmd.Path, f)
		}
	}
	return ok
}

// docInvocations returns every graft invocation a document writes: in its
// prose code spans and in its shell code blocks (```sh) (comments included: they
// name the flags of the command on their line).
func docInvocations(d *mdDoc) []struct {
	line int
	inv  invocation
} {
	var out []struct {
		line int
		inv  invocation
	}
	for _, s := range d.spansOf(d.all()) {
		for _, inv := range invocations(s.text) {
			out = append(out, struct {
				line int
				inv  invocation
			}{s.line, inv})
		}
	}
	for _, b := range d.codeBlocks(d.all()) {
		if b.info != "sh" && b.info != "bash" {
			continue
		}
		for i, l := range b.lines {
			if strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			for _, inv := range invocations(l) {
				out = append(out, struct {
					line int
					inv  invocation
				}{b.line + 1 + i, inv})
			}
		}
	}
	return out
}

func checkCLI(c *checker, ds *docs, k *code) {
	// Every "graft …" any document writes.
	for _, d := range ds.all() {
		for _, x := range docInvocations(d) {
			checkInvocation(c, d, x.line, k, x.inv)
		}
	}

	// The README's CLI table: each row's commands, their literal arguments
	// (in the command's usage line) and the flags its text names; and every
	// command of the tree in a row.
	d := ds.readme
	sec, ok := d.section("The CLI")
	if !c.fact("CLI table", d, 0, ok, `no section "The CLI"`) {
		return
	}
	t, ok := d.table(sec, "command", "what it does")
	if !c.fact("CLI table", d, sec.from, ok, `no table with the header "| command | what it does |" in the section "The CLI"`) {
		return
	}
	covered := map[string]bool{}
	for _, row := range t.rows {
		var cmds []resolved
		for _, s := range codeSpans(row.cells[0]) {
			if !strings.HasPrefix(s, "graft ") {
				s = "graft " + s
			}
			invs := invocations(s)
			if !c.fact("CLI command", d, row.line, len(invs) == 1, "%q names no command", s) {
				continue
			}
			for _, r := range k.resolve(invs[0].words) { // checked with every invocation above
				if r.err != "" {
					continue
				}
				cmds = append(cmds, r)
				covered[r.cmd.Path] = true
				for _, a := range r.args {
					c.fact("CLI argument", d, row.line, strings.Contains(r.cmd.Use, a),
						`"%s" is not in the usage of "%s" (%q)`, a, r.cmd.Path, r.cmd.Use)
				}
			}
		}
		for _, s := range codeSpans(t.cell(row, "what it does")) {
			m := cliFlagRE.FindStringSubmatch(s)
			if m == nil {
				continue
			}
			for _, r := range cmds {
				_, has := r.cmd.flag(m[1])
				c.fact("CLI flag", d, row.line, has, `"%s" has no flag --%s`, r.cmd.Path, m[1])
			}
		}
	}
	for _, cmd := range k.commands {
		if !cmd.Available || !cmd.leaf(k.tree) || cmd.Path == "graft" {
			continue
		}
		c.fact("CLI table coverage", d, t.line, covered[cmd.Path], `"%s" is in no row of the CLI table`, cmd.Path)
	}

	// Help topics: each is named as "graft help <topic>".
	for _, cmd := range k.commands {
		if !cmd.HelpTopic || cmd.Hidden {
			continue
		}
		topic := strings.TrimPrefix(cmd.Path, "graft ")
		c.fact("CLI help topic", d, 0, strings.Contains(d.text(), "`graft help "+topic+"`"),
			"the help topic %q is never named as `graft help %s`", topic, topic)
	}

	checkDesignCLIList(c, ds.design, k)
}

// checkDesignCLIList: DESIGN §8.1 lists the commands ("`graft` (cobra)
// with `--home` on every command: `append`, `show`, `status` (`--lineage`),
// …"): each exists, each flag is its command's, and every command is listed.
func checkDesignCLIList(c *checker, d *mdDoc, k *code) {
	sec, ok := d.section("8.1 CLI")
	if !c.fact("CLI list", d, 0, ok, `no section "8.1 CLI"`) {
		return
	}
	line, m := d.findLine(sec, regexp.MustCompile("with `--home` on every command:"))
	if !c.fact("CLI list", d, sec.from, m != nil, "no sentence \"with `--home` on every command: …\"") {
		return
	}
	_, has := k.tree["graft"].flag("home")
	c.fact("CLI flag", d, line, has, "graft has no flag --home")
	_, para := d.paragraph(line)
	list := para[strings.Index(para, "on every command:"):]
	if i := strings.Index(list, "The README"); i > 0 {
		list = list[:i]
	}
	listed := map[string]bool{}
	var last *cliCommand
	for _, s := range codeSpans(list) {
		if m := cliFlagRE.FindStringSubmatch(s); m != nil {
			if last != nil {
				_, has := last.flag(m[1])
				c.fact("CLI flag", d, line, has, `"%s" has no flag --%s`, last.Path, m[1])
			}
			continue
		}
		cmd := k.tree["graft "+s]
		if strings.HasPrefix(s, "help ") {
			cmd = k.tree["graft "+strings.TrimPrefix(s, "help ")]
		}
		c.fact("CLI list", d, line, cmd != nil, "graft has no command %q", s)
		if cmd != nil {
			listed[cmd.Path] = true
			last = cmd
		}
	}
	for _, s := range k.tree["graft"].Subcommands {
		cmd := k.tree["graft "+s]
		if !cmd.Available || s == "completion" { // cobra's own
			continue
		}
		c.fact("CLI list", d, line, listed[cmd.Path], `"%s" is not in the list of commands`, cmd.Path)
	}
}
