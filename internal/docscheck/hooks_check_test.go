package docscheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/graft-project/graft/hookinstall"
	"github.com/graft-project/graft/hosts/codex"
)

// installResult is "graft hook install … --json".
type installResult struct {
	File    string `json:"file"`
	Command string `json:"command"`
	Changed bool   `json:"changed"`
}

// installedHook is one entry graft wrote into a settings file.
type installedHook struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// readHooks parses a host's settings file: event → graft's entries.
func readHooks(file string) (map[string][]installedHook, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []installedHook `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	out := map[string][]installedHook{}
	for ev, groups := range s.Hooks {
		for _, g := range groups {
			out[ev] = append(out[ev], g.Hooks...)
		}
	}
	return out, nil
}

func (k *code) install(env map[string]string, dir string, args ...string) (installResult, error) {
	var res installResult
	r := k.run(env, dir, append(args, "--json")...)
	if r.err != nil {
		return res, r.err
	}
	return res, json.Unmarshal([]byte(r.stdout), &res)
}

func checkHooks(c *checker, ds *docs, k *code) {
	d := ds.readme
	sec, ok := d.section("Hooks")
	if !c.fact("hook event", d, 0, ok, `no section "Hooks"`) {
		return
	}
	// Install into a fresh project, with --home and --config as the README's
	// command line shows them.
	dir := filepath.Join(k.tmp, "hooks")
	project := filepath.Join(dir, "project")
	env := map[string]string{"HOME": filepath.Join(dir, "user"), "CODEX_HOME": filepath.Join(dir, "codex")}
	cfg := filepath.Join(dir, "config.toml")
	home := filepath.Join(dir, "home")
	if err := mkdirs(project, env["HOME"]); err != nil || os.WriteFile(cfg, nil, 0o600) != nil {
		c.fact("hook install", d, sec.from, false, "setting up: %v", err)
		return
	}
	res, err := k.install(env, project, "--home", home, "--config", cfg, "hook", "install", "claude-code")
	if !c.fact("hook install", d, sec.from, err == nil, "graft hook install claude-code: %v", err) {
		return
	}
	installed, err := readHooks(res.File)
	if !c.fact("hook install", d, sec.from, err == nil, "reading what graft hook install wrote: %v", err) {
		return
	}

	// The table of events: hookinstall.Events, in order, and what install writes.
	t, ok := d.table(sec, "event", "what graft does")
	if c.fact("hook event", d, sec.from, ok, `no table "| event | what graft does |"`) {
		var events []string
		for _, row := range t.rows {
			for _, s := range codeSpans(row.cells[0]) {
				events = append(events, s)
				c.fact("hook event", d, row.line, contains(hookinstall.Events, s), "%s is not in hookinstall.Events %v", s, hookinstall.Events)
				c.fact("hook event", d, row.line, len(installed[s]) == 1, "graft hook install wrote %d entries for %s", len(installed[s]), s)
			}
		}
		c.fact("hook event", d, t.line, strings.Join(events, " ") == strings.Join(hookinstall.Events, " "),
			"the table lists %v; hookinstall.Events (what install writes, in order) is %v", events, hookinstall.Events)
		for ev := range installed {
			c.fact("hook event", d, t.line, contains(events, ev), "graft hook install wrote %s, which the table does not list", ev)
		}
	}

	// "The timeout is 60 s for PreCompact and 15 s for the others."
	line, m := d.findLine(sec, regexp.MustCompile(`timeout is (\d+) s for (\w+) and (\d+) s for the`))
	if c.fact("hook timeout", d, sec.from, m != nil, `no "The timeout is N s for E and M s for the others"`) {
		_, para := d.paragraph(line)
		if pm := regexp.MustCompile(`timeout is (\d+) s for (\w+) and (\d+) s for the\s+others`).FindStringSubmatch(para); c.fact("hook timeout", d, line, pm != nil, "the sentence does not end \"for the others\"") {
			for _, ev := range hookinstall.Events {
				want := atoi(pm[3])
				if ev == pm[2] {
					want = atoi(pm[1])
				}
				got := -1
				if len(installed[ev]) > 0 {
					got = installed[ev][0].Timeout
				}
				c.fact("hook timeout", d, line, got == want, "graft hook install wrote timeout %d for %s, the README says %d", got, ev, want)
			}
		}
	}

	// "`<graft> [--home H] [--config F] hook claude-code`": the command installed.
	line, m = d.findLine(sec, regexp.MustCompile("`(<graft> [^`]*hook claude-code)`"))
	if c.fact("hook command", d, sec.from, m != nil, "no \"`<graft> … hook claude-code`\"") {
		want := m[1]
		bin, _ := filepath.EvalSymlinks(k.bin)
		want = strings.NewReplacer("<graft>", bin, "[--home H]", "--home "+home, "[--config F]", "--config "+cfg).Replace(want)
		c.fact("hook command", d, line, res.Command == want, "graft --home H --config F hook install claude-code wrote the command %q, the README's form gives %q", res.Command, want)
		for _, ev := range hookinstall.Events {
			got := ""
			if len(installed[ev]) > 0 {
				got = installed[ev][0].Command
			}
			c.fact("hook command", d, line, got == res.Command, "%s runs %q, not the command install reported", ev, got)
		}
	}

	// The install block: each host's settings file, and the flags that choose another.
	for _, b := range d.codeBlocks(sec) {
		for i, l := range b.lines {
			lm := regexp.MustCompile(`^graft hook install ([a-z-]+)\s+#\s*([^;]+)(?:;(.*))?$`).FindStringSubmatch(l)
			if lm == nil {
				continue
			}
			line := b.line + 1 + i
			host := lm[1]
			probeChain(c, d, line, "hook file", k, splitChain(strings.TrimSpace(lm[2])), false, func(env map[string]string, dir string, args []string) (string, error) {
				r, err := k.install(env, dir, append([]string{"hook", "install", host}, args...)...)
				return r.File, err
			})
			// "--local (settings.local.json)": that flag writes that file.
			for _, fm := range regexp.MustCompile(`--([a-z-]+) \(([^)]+)\)`).FindAllStringSubmatch(lm[3], -1) {
				pdir := filepath.Join(dir, "flag-"+fm[1])
				if mkdirs(pdir) != nil {
					continue
				}
				r, err := k.install(env, pdir, "hook", "install", host, "--"+fm[1])
				c.fact("hook file", d, line, err == nil && filepath.Base(r.File) == fm[2], "graft hook install %s --%s wrote %s (%v), not %s", host, fm[1], r.File, err, fm[2])
			}
		}
	}

	// Backups: "<file>.graft-backup (then .graft-backup.1, …)"; installing twice changes nothing.
	line, m = d.findLine(sec, regexp.MustCompile("`<file>(\\.graft-backup)` \\(then `(\\.graft-backup\\.1)`"))
	if c.fact("hook backup", d, sec.from, m != nil, "no \"`<file>.graft-backup` (then `.graft-backup.1`\"") {
		pdir := filepath.Join(dir, "backup")
		file := filepath.Join(pdir, ".claude", "settings.json")
		if mkdirs(filepath.Dir(file)) == nil && os.WriteFile(file, []byte(`{"model": "x"}`+"\n"), 0o600) == nil {
			_, err1 := k.install(env, pdir, "hook", "install", "claude-code")
			_, err2 := os.Stat(file + m[1])
			c.fact("hook backup", d, line, err1 == nil && err2 == nil, "installing into an existing file left no %s (%v, %v)", filepath.Base(file)+m[1], err1, err2)
			again, err := k.install(env, pdir, "hook", "install", "claude-code")
			c.fact("hook backup", d, line, err == nil && !again.Changed, "installing twice changed the file (%v)", err)
			r := k.run(env, pdir, "hook", "uninstall", "claude-code")
			_, err3 := os.Stat(file + m[2])
			c.fact("hook backup", d, line, r.err == nil && err3 == nil, "a second change (uninstall) left no %s (%v, %v)", filepath.Base(file)+m[2], r.err, err3)
		}
	}

	// Codex's trust: the flag the README names is the one install prints.
	for _, s := range d.spansOf(sec) {
		if strings.HasPrefix(s.text, "--dangerously") {
			c.fact("hook codex trust", d, s.line, strings.Contains(codex.TrustNote, s.text), "graft hook install codex says %q, without %s", codex.TrustNote, s.text)
		}
	}
}
