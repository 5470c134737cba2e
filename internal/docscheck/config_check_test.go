package docscheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/graft-project/graft/config"
)

var envVarRE = regexp.MustCompile(`\$([A-Z_]+)`)

// probeChain checks a chain of places the document gives in order ("`A`,
// else `B`, else `C`"): for each place, a fresh directory sets up that
// place and every later one (each $VAR a path of its own, each --flag
// given), and the place graft reports (where) must be that one. With
// create, the file each place names is created first.
func probeChain(c *checker, d *mdDoc, line int, kind string, k *code, alts []string, create bool,
	where func(env map[string]string, dir string, args []string) (string, error)) {
	for i, alt := range alts {
		dir := filepath.Join(k.tmp, "chain", fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(kind, " ", "-"), line, i))
		cwd := filepath.Join(dir, "cwd")
		env := map[string]string{"HOME": filepath.Join(dir, "user")}
		var args []string
		expandAlt := func(a string) string {
			if strings.HasPrefix(a, "--") {
				f := strings.Fields(a)
				return filepath.Join(dir, f[len(f)-1])
			}
			a = envVarRE.ReplaceAllStringFunc(a, func(v string) string { return filepath.Join(dir, v[1:]) })
			switch {
			case strings.HasPrefix(a, "~/"):
				a = filepath.Join(env["HOME"], a[2:])
			case strings.HasPrefix(a, "./"):
				a = filepath.Join(cwd, a[2:])
			}
			return filepath.Clean(a)
		}
		if err := mkdirs(env["HOME"], cwd); err != nil {
			c.fact(kind, d, line, false, "%v", err)
			continue
		}
		for j := i; j < len(alts); j++ {
			for _, m := range envVarRE.FindAllStringSubmatch(alts[j], -1) {
				env[m[1]] = filepath.Join(dir, m[1])
			}
			if create && !strings.HasPrefix(alts[j], "--") {
				p := expandAlt(alts[j])
				if err := mkdirs(filepath.Dir(p)); err == nil {
					_ = os.WriteFile(p, nil, 0o600)
				}
			}
		}
		if strings.HasPrefix(alt, "--") {
			f := strings.Fields(alt)
			args = append(args, f[0], expandAlt(alt))
			if create {
				_ = os.WriteFile(expandAlt(alt), nil, 0o600)
			}
		}
		got, err := where(env, cwd, args)
		if !c.fact(kind, d, line, err == nil, "%s: %v", alt, err) {
			continue
		}
		c.fact(kind, d, line, filepath.Clean(got) == expandAlt(alt),
			"with %s and every later place set up, graft used %s, not %s", alt, got, expandAlt(alt))
	}
}

// configJSON is "graft config --json".
type configJSON struct {
	File   string `json:"file"`
	Values []struct {
		Key    string `json:"key"`
		Value  any    `json:"value"`
		Source string `json:"source"`
	} `json:"values"`
}

func (k *code) configReport(env map[string]string, dir string, args ...string) (configJSON, error) {
	var out configJSON
	r := k.run(env, dir, append([]string{"config", "--json"}, args...)...)
	if r.err != nil {
		return out, r.err
	}
	return out, json.Unmarshal([]byte(r.stdout), &out)
}

func (cj configJSON) value(key string) (any, string) {
	for _, v := range cj.Values {
		if v.Key == key {
			return v.Value, v.Source
		}
	}
	return nil, ""
}

// splitChain splits "`A`, else `B`" (or "`A` else `B`") into its places.
func splitChain(s string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`,? else `).Split(s, -1) {
		out = append(out, strings.Trim(strings.TrimSpace(p), "`"))
	}
	return out
}

func checkConfig(c *checker, ds *docs, k *code) {
	d := ds.readme
	sec, ok := d.section("Configuration")
	if !c.fact("config", d, 0, ok, `no section "Configuration"`) {
		return
	}
	configFile := func(env map[string]string, dir string, args []string) (string, error) {
		r, err := k.configReport(env, dir, args...)
		return r.File, err
	}

	// Where the file is.
	line, m := d.findLine(sec, regexp.MustCompile("The file is$|The file is "))
	if c.fact("config file", d, sec.from, m != nil, `no "The file is …"`) {
		_, para := d.paragraph(line)
		text := para[strings.Index(para, "The file is ")+len("The file is "):]
		text = text[:strings.Index(text, ". ")]
		probeChain(c, d, line, "config file", k, splitChain(text), true, configFile)
	}

	// Which source wins.
	line, m = d.findLine(sec, regexp.MustCompile(`a flag on the command line wins over`))
	if c.fact("config precedence", d, sec.from, m != nil, `no "a flag on the command line wins over …"`) {
		_, para := d.paragraph(line)
		want := regexp.MustCompile("a flag on the command line wins over the environment \\(`GRAFT_HOME` for `dataDir`\\), which wins over the file, which wins over the default")
		if c.fact("config precedence", d, line, want.MatchString(para), "the order is not flag, environment (GRAFT_HOME for dataDir), file, default") {
			dir := filepath.Join(k.tmp, "precedence")
			file := filepath.Join(dir, "config.toml")
			if err := mkdirs(filepath.Join(dir, "user")); err == nil && os.WriteFile(file, []byte(fmt.Sprintf("dataDir = %q\n", filepath.Join(dir, "file-home"))), 0o600) == nil {
				for _, x := range []struct {
					env  map[string]string
					args []string
					src  string
				}{
					{map[string]string{"GRAFT_HOME": filepath.Join(dir, "env-home")}, []string{"--home", filepath.Join(dir, "flag-home")}, "flag --home"},
					{map[string]string{"GRAFT_HOME": filepath.Join(dir, "env-home")}, nil, "env GRAFT_HOME"},
					{map[string]string{}, nil, "file " + file + ":1"},
				} {
					x.env["HOME"], x.env["GRAFT_CONFIG"] = filepath.Join(dir, "user"), file
					r, err := k.configReport(x.env, "", x.args...)
					_, src := r.value("dataDir")
					c.fact("config precedence", d, line, err == nil && src == x.src, "dataDir came from %q (%v), want %q", src, err, x.src)
				}
			}
		}
	}

	// The error a bad key gives: "config: ~/.config/graft/config.toml:3: unknown key "budgett"".
	line, m = d.findLine(sec, regexp.MustCompile("`(config: ~/(\\S+):(\\d+): unknown key \"(\\w+)\")`"))
	if c.fact("config error", d, sec.from, m != nil, "no example of the error an unknown key gives") {
		dir := filepath.Join(k.tmp, "config-error")
		env := map[string]string{"HOME": filepath.Join(dir, "user")}
		p := filepath.Join(env["HOME"], m[2])
		text := strings.Repeat("# a comment\n", atoi(m[3])-1) + m[4] + " = 1\n"
		if mkdirs(filepath.Dir(p)) == nil && os.WriteFile(p, []byte(text), 0o600) == nil {
			r := k.run(env, "", "--home", filepath.Join(dir, "home"), "status")
			msg := strings.Replace(m[1], "~/", env["HOME"]+"/", 1)
			c.fact("config error", d, line, strings.Contains(r.stderr, msg), "graft status said %q, not %q", strings.TrimSpace(r.stderr), msg)
			c.fact("config error", d, line, r.exit == 2, "graft status exited %d, not 2", r.exit)
		}
	}

	// The table of keys.
	t, ok := d.table(sec, "key", "type, default", "what it sets")
	if !c.fact("config key", d, sec.from, ok, `no table "| key | type, default | what it sets |"`) {
		return
	}
	keys := config.Keys()
	defaults, err := k.configReport(map[string]string{"HOME": filepath.Join(k.tmp, "config-defaults")}, "")
	c.fact("config default", d, t.line, err == nil, "graft config --json: %v", err)
	root, prepare := k.tree["graft"], k.tree["graft prepare"]
	for i, row := range t.rows {
		names := codeSpans(row.cells[0])
		if !c.fact("config key", d, row.line, len(names) == 1, "the row names %d keys", len(names)) {
			continue
		}
		key := names[0]
		want := "(none)"
		if i < len(keys) {
			want = keys[i]
		}
		if !c.fact("config key", d, row.line, key == want, "row %d is %s; config.Keys()[%d] is %s (config.Keys(): %v)", i+1, key, i, want, keys) {
			continue
		}
		typ, def := row.cells[1], ""
		if j := strings.LastIndex(typ, ", "); j >= 0 {
			typ, def = typ[:j], typ[j+2:]
		}
		def = strings.TrimSpace(regexp.MustCompile(`\s*\(.*\)$`).ReplaceAllString(def, ""))
		if strings.Contains(def, " else ") {
			probeChain(c, d, row.line, "config default", k, splitChain(def), false, func(env map[string]string, dir string, args []string) (string, error) {
				r, err := k.configReport(env, dir, args...)
				v, _ := r.value(key)
				s, _ := v.(string)
				return s, err
			})
		} else {
			v, _ := defaults.value(key)
			b, _ := json.Marshal(v)
			c.fact("config default", d, row.line, string(b) == strings.Trim(def, "`"), "the default of %s is %s, the row says %s", key, b, def)
		}
		checkConfigRange(c, d, row.line, k, key, typ)
		for _, s := range codeSpans(t.cell(row, "what it sets")) {
			for _, fm := range regexp.MustCompile(`--([a-z][a-z-]*)`).FindAllStringSubmatch(s, -1) {
				f, ok := prepare.flag(fm[1])
				if !ok {
					f, ok = root.flag(fm[1])
				}
				if c.fact("config flag", d, row.line, ok, "neither graft prepare nor graft has a flag --%s", fm[1]) {
					c.fact("config flag", d, row.line, strings.Contains(f.Usage, "config key "+key), "--%s's help does not say \"config key %s\": %q", fm[1], key, f.Usage)
				}
			}
		}
	}
	c.fact("config key", d, t.line, len(t.rows) == len(keys), "the table has %d keys, config.Keys() %d", len(t.rows), len(keys))
}

// checkConfigRange probes the values a row's type allows: "0–5" takes 0
// and 5 and refuses -1 and 6; "≥ 0" takes 0 and refuses -1; `"A"` or `"B"`
// takes each.
func checkConfigRange(c *checker, d *mdDoc, line int, k *code, key, typ string) {
	type probe struct {
		value string
		ok    bool
	}
	var probes []probe
	if m := regexp.MustCompile(`(-?\d+)–(\d+)`).FindStringSubmatch(typ); m != nil {
		lo, hi := atoi(m[1]), atoi(m[2])
		probes = []probe{{fmt.Sprint(lo), true}, {fmt.Sprint(hi), true}, {fmt.Sprint(lo - 1), false}, {fmt.Sprint(hi + 1), false}}
	} else if m := regexp.MustCompile(`≥ (\d+)`).FindStringSubmatch(typ); m != nil {
		probes = []probe{{m[1], true}, {fmt.Sprint(atoi(m[1]) - 1), false}}
	} else {
		for _, s := range codeSpans(typ) {
			if strings.HasPrefix(s, `"`) {
				probes = append(probes, probe{s, true})
			}
		}
	}
	for i, p := range probes {
		dir := filepath.Join(k.tmp, "config-range", fmt.Sprintf("%s-%d", key, i))
		env := map[string]string{"HOME": filepath.Join(dir, "user"), "GRAFT_HOME": filepath.Join(dir, "home")}
		if mkdirs(env["GRAFT_HOME"]) != nil || os.WriteFile(filepath.Join(env["GRAFT_HOME"], "config.toml"), []byte(key+" = "+p.value+"\n"), 0o600) != nil {
			continue
		}
		r := k.run(env, "", "config")
		c.fact("config range", d, line, (r.exit == 0) == p.ok, "%s = %s: graft config exited %d (%s), the row says %s is %s",
			key, p.value, r.exit, strings.TrimSpace(r.stderr), p.value, map[bool]string{true: "allowed", false: "out of range"}[p.ok])
	}
}
