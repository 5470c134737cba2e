package docscheck

import (
	"go/ast"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graft-project/graft/crashtest"
	"github.com/graft-project/graft/txn"
)

// runLabelRE is the line that precedes a figure from a run.
var runLabelRE = regexp.MustCompile("^Run: `([^`]+)`, (\\d{4}-\\d{2}-\\d{2})(?: \\d{2}:\\d{2} UTC)?, (.+)$")

// formatRE turns a Printf format into a regexp matching what it prints.
func formatRE(format string) *regexp.Regexp {
	q := regexp.QuoteMeta(format)
	q = strings.NewReplacer("%%", "%", "%d", `-?\d+`, "%s", `.*?`, "%v", `.*?`, "%q", `".*?"`, "%\\.1f", `[\d.]+`, "%\\.2f", `[\d.]+`).Replace(q)
	return regexp.MustCompile("^" + q + "$")
}

// lineFormats splits format strings into the formats of the lines they
// print; a line format with fewer than 10 characters besides its verbs
// ("%s: %v") would match any line, and is left out.
func lineFormats(formats []string) []*regexp.Regexp {
	verbs := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)
	var out []*regexp.Regexp
	for _, f := range formats {
		for _, l := range strings.Split(f, "\n") {
			if len(strings.TrimSpace(verbs.ReplaceAllString(l, ""))) >= 10 {
				out = append(out, formatRE(l))
			}
		}
	}
	return out
}

func matchesAny(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// clusterFormats are the lines bench/cmd/clusterbench prints, as
// prefixes: a table row's label or a note line starts with one of its
// format strings (the rest of a note is printed by the next calls).
func clusterFormats(src *goSource) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, f := range append(src.formats(), src.stringLiterals()...) {
		f = strings.TrimLeft(f, "\n")
		if len(f) < 8 {
			continue
		}
		re := formatRE(f)
		out = append(out, regexp.MustCompile(strings.TrimSuffix(re.String(), "$")))
	}
	return out
}

// checkClusterTable: a table of bench/cmd/clusterbench (headed "measure |
// workers"): its header and every row's label are ones clusterbench
// prints.
func checkClusterTable(c *checker, d *mdDoc, t mdTable, formats []*regexp.Regexp) {
	c.fact("figure label", d, t.line, matchesAny(formats, "| measure | workers |"), "clusterbench prints no header \"| measure | workers |\"")
	for _, r := range t.rows {
		label := strings.TrimSpace(r.cells[0])
		if label == "" {
			continue
		}
		c.fact("figure label", d, r.line, matchesAny(formats, label), "clusterbench prints no row %q", label)
	}
}

// benchRow is a row benchtable prints: row(label, target, …), hrow(…).
type benchRow struct {
	label, target *regexp.Regexp
	labelText     string
}

// benchRows reads the rows benchtable prints from its source.
func benchRows(src *goSource) []benchRow {
	var out []benchRow
	for _, f := range src.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			id, ok := call.Fun.(*ast.Ident)
			if !ok || (id.Name != "row" && id.Name != "hrow") {
				return true
			}
			l, ok1 := literalOrFormat(call.Args[0])
			t, ok2 := literalOrFormat(call.Args[1])
			if ok1 && ok2 {
				out = append(out, benchRow{label: formatRE(l), target: formatRE(t), labelText: l})
			}
			return true
		})
	}
	return out
}

// figure is a table or a code block that holds figures from a run.
type figure struct {
	line int
	kind string // "crash" or "bench"
	tbl  mdTable
	code codeBlock
}

func figures(d *mdDoc) []figure {
	var out []figure
	for _, t := range d.tables(d.all()) {
		switch {
		case t.header[0] == "measure" && len(t.header) > 1 && t.header[1] == "workers":
			out = append(out, figure{line: t.line, kind: "cluster", tbl: t})
		case t.header[0] == "measure":
			out = append(out, figure{line: t.line, kind: "bench", tbl: t})
		case slices.Contains([]string{"category", "handoff", "host", "cases"}, t.header[0]) && (slices.Contains(t.header, "graft") && slices.Contains(t.header, "excerpt") ||
			slices.Contains(t.header, "graft misses") && (slices.Contains(t.header, "the excerpt has") || slices.Contains(t.header, "the tape holds part of the evidence"))):
			out = append(out, figure{line: t.line, kind: "fidelity", tbl: t})
		case t.header[0] == "budget" && slices.Contains(t.header, "all") && slices.Contains(t.header, "held out"):
			out = append(out, figure{line: t.line, kind: "sweep", tbl: t})
		case t.header[0] == "block" && slices.Contains(t.header, "carried only there"):
			out = append(out, figure{line: t.line, kind: "blocks", tbl: t})
		case strings.HasPrefix(t.header[0], "chain") && slices.Contains(t.header, "no handoff"):
			out = append(out, figure{line: t.line, kind: "chain", tbl: t})
		}
	}
	for _, b := range d.codeBlocks(d.all()) {
		for _, l := range b.lines {
			if b.info == "" && (strings.HasPrefix(l, "crash suite") || regexp.MustCompile(`^\d+ cases: `).MatchString(l)) {
				out = append(out, figure{line: b.line, kind: "crash", code: b})
				break
			}
		}
	}
	return out
}

// checkRunCommand checks that the command a figure came from exists: a
// make target, a Go program with its flags, or a graft command.
func checkRunCommand(c *checker, d *mdDoc, line int, k *code, cmd string) {
	f := strings.Fields(cmd)
	switch {
	case len(f) >= 2 && f[0] == "make":
		mk, err := os.ReadFile(filepath.Join(k.root, "Makefile"))
		for _, target := range f[1:] {
			c.fact("figure command", d, line, err == nil && regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(target)+`:`).Match(mk), "the Makefile has no target %s", target)
		}
	case len(f) >= 3 && f[0] == "go" && f[1] == "run":
		src, err := parsePackage(filepath.Join(k.root, f[2]), false)
		if !c.fact("figure command", d, line, err == nil && src.packageName() == "main", "%s is no main package (%v)", f[2], err) {
			return
		}
		flags := src.flagNames()
		for _, a := range f[3:] {
			if strings.HasPrefix(a, "-") {
				name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
				c.fact("figure command", d, line, flags[name], "go run %s has no flag -%s", f[2], name)
			}
		}
	case len(f) >= 2 && f[0] == "graft":
		invs := invocations(cmd)
		if c.fact("figure command", d, line, len(invs) == 1, "%q names no graft command", cmd) {
			checkInvocation(c, d, line, k, invs[0])
		}
	default:
		c.fact("figure command", d, line, false, "%q is no make target, go run or graft command", cmd)
	}
}

func checkFigures(c *checker, ds *docs, k *code) {
	crashSrc, err1 := parsePackage(filepath.Join(k.root, "crashtest"), false)
	benchSrc, err2 := parsePackage(filepath.Join(k.root, "bench", "cmd", "benchtable"), false)
	clusterSrc, err3 := parsePackage(filepath.Join(k.root, "bench", "cmd", "clusterbench"), false)
	if !c.fact("figure label", ds.readme, 0, err1 == nil && err2 == nil && err3 == nil, "parsing crashtest, benchtable and clusterbench: %v %v %v", err1, err2, err3) {
		return
	}
	clusterLines := clusterFormats(clusterSrc)
	crashLines := lineFormats(crashSrc.formats())
	rows := benchRows(benchSrc)
	benchLines := lineFormats(append(benchSrc.formats(), benchSrc.callArgs("p")...))
	mk, _ := os.ReadFile(filepath.Join(k.root, "Makefile"))
	soak := regexp.MustCompile(`(?m)^\t.*crashtest --soak (\d+)`).FindSubmatch(mk)

	for _, d := range []*mdDoc{ds.readme, ds.bench} {
		figs := figures(d)
		c.fact("figure run label", d, 0, len(figs) > 0, "no figure found (a table headed \"measure\" or a block ending \"crash suite: …\")")
		type label struct {
			line int
			cmd  string
			used bool
		}
		var labels []*label
		for i, l := range d.lines {
			if !strings.HasPrefix(l, "Run: ") || d.code[i] {
				continue
			}
			m := runLabelRE.FindStringSubmatch(l)
			if !c.fact("figure run label", d, i+1, m != nil, "a Run: line is \"Run: `<command>`, <YYYY-MM-DD>[ HH:MM UTC], <machine>\"") {
				continue
			}
			labels = append(labels, &label{line: i + 1, cmd: m[1]})
			checkRunCommand(c, d, i+1, k, m[1])
			day, err := time.Parse("2006-01-02", m[2])
			c.fact("figure run label", d, i+1, err == nil && !day.After(time.Now()), "%s is no date of a run that happened", m[2])
			c.fact("figure run label", d, i+1, len(strings.TrimSpace(m[3])) > 3, "no machine")
		}
		for _, fg := range figs {
			var lab *label
			for _, l := range labels {
				if l.line < fg.line {
					lab = l
				}
			}
			if !c.fact("figure run label", d, fg.line, lab != nil, "a figure with no Run: line before it (the command, the date, the machine)") {
				continue
			}
			lab.used = true
			switch fg.kind {
			case "crash":
				checkCrashFigure(c, d, fg.code, lab.cmd, crashLines, soak)
			case "bench":
				checkBenchTable(c, d, fg.tbl, rows, benchLines, ds.bench)
			case "cluster":
				checkClusterTable(c, d, fg.tbl, clusterLines)
			case "fidelity":
				checkFidelityTable(c, d, fg.tbl, lab.cmd, k.root)
			case "sweep":
				checkSweepTable(c, d, fg.tbl, lab.cmd, k.root)
			case "blocks":
				checkBlockTable(c, d, fg.tbl, lab.cmd, k.root)
			case "chain":
				c.fact("figure run label", d, fg.line, lab.cmd == "make fidelity-chain", "a table of chains under a Run: line of %q, not make fidelity-chain", lab.cmd)
			}
		}
		for _, l := range labels {
			c.fact("figure run label", d, l.line, l.used, "a Run: line with no figure after it")
		}
		// "Machine: …" and "Medians of …" lines: as benchtable prints them.
		if d == ds.bench {
			for i, l := range d.lines {
				if (strings.HasPrefix(l, "Machine: ") || strings.HasPrefix(l, "Medians of ")) && !d.code[i] {
					c.fact("figure label", d, i+1, matchesAny(benchLines, l) || matchesAny(clusterLines, l), "neither benchtable nor clusterbench prints such a line: %q", l)
				}
			}
		}
	}

	// make soak's count and the suite's default, as the README states them.
	d := ds.readme
	for _, re := range []string{"([\\d,]+) in `make soak`", "`make soak` does ([\\d,]+) random"} {
		line, m := findPara(d, regexp.MustCompile(re))
		if c.fact("crash suite count", d, 0, m != nil && soak != nil, "no %q, or no --soak in the Makefile's soak target", re) {
			c.fact("crash suite count", d, line, atoi(m[1]) == atoi(string(soak[1])), "says %s; make soak runs --soak %s", m[1], soak[1])
		}
	}
	line, m := d.findLine(d.all(), regexp.MustCompile(`^\| random kills \| SIGKILL at a random instant of a commit \((\d+);`))
	if c.fact("crash suite count", d, 0, m != nil, "no row \"| random kills | … (N; …\"") {
		c.fact("crash suite count", d, line, atoi(m[1]) == crashtest.DefaultRandomKills, "says %s; crashtest.DefaultRandomKills is %d", m[1], crashtest.DefaultRandomKills)
	}
}

// checkCrashFigure: a run of the crash suite, as graft crashtest prints it.
func checkCrashFigure(c *checker, d *mdDoc, b codeBlock, cmd string, formats []*regexp.Regexp, soak [][]byte) {
	text := strings.Join(b.lines, "\n")
	for i, l := range b.lines {
		if strings.TrimSpace(l) != "" {
			c.fact("figure label", d, b.line+1+i, matchesAny(formats, l), "graft crashtest prints no such line: %q", l)
		}
	}
	get := func(re string) []string { return regexp.MustCompile(re).FindStringSubmatch(text) }
	cases, summary := get(`(?m)^(\d+) cases: `), get(`(?m)^crash suite: (\d+) passed, (\d+) failed$`)
	if c.fact("figure label", d, b.line, cases != nil && summary != nil, "no \"N cases: …\" and \"crash suite: N passed, M failed\"") {
		c.fact("crash suite count", d, b.line, cases[1] == summary[1] && summary[2] == "0", "%s cases, %s passed, %s failed", cases[1], summary[1], summary[2])
	}
	if p := get(`crash points (\d+)/(\d+)`); c.fact("crash-point count", d, b.line, p != nil, "no \"crash points N/M\"") {
		c.fact("crash-point count", d, b.line, atoi(p[1]) == len(txn.Points) && atoi(p[2]) == len(txn.Points), "crash points %s/%s; len(txn.Points) is %d", p[1], p[2], len(txn.Points))
	}
	if r := get(`random kills (\d+)`); c.fact("crash suite count", d, b.line, r != nil, "no \"random kills N\"") {
		want := crashtest.DefaultRandomKills
		if m := regexp.MustCompile(`--soak (\d+)`).FindStringSubmatch(cmd); m != nil {
			want = atoi(m[1])
		} else if strings.Contains(cmd, "make soak") && soak != nil {
			want = atoi(string(soak[1]))
		}
		c.fact("crash suite count", d, b.line, atoi(r[1]) == want, "random kills %s; %s runs %d", r[1], cmd, want)
	}
}

// checkBenchTable: a table of benchmark figures. Its header starts as
// benchtable prints one; each row's label (the README may end it early, at
// a clause) and target are one of benchtable's rows. A README table's
// figure is in BENCHMARKS.md's row of the same label.
func checkBenchTable(c *checker, d *mdDoc, t mdTable, rows []benchRow, lines []*regexp.Regexp, bench *mdDoc) {
	c.fact("figure label", d, t.line, matchesAny(lines, "| "+t.header[0]+" | "+t.header[1]+" |"), "benchtable prints no header %q", "| "+t.header[0]+" | "+t.header[1]+" |")
	for _, r := range t.rows {
		label, target := r.cells[0], strings.TrimSpace(strings.ReplaceAll(r.cells[1], "—", ""))
		var row *benchRow
		for i := range rows {
			if rows[i].label.MatchString(label) || (d != bench && shortLabel(rows[i], label)) {
				row = &rows[i]
				break
			}
		}
		if !c.fact("figure label", d, r.line, row != nil, "benchtable prints no row %q", label) {
			continue
		}
		c.fact("figure label", d, r.line, row.target.MatchString(target), "benchtable's target of %q is %q, not %q", row.labelText, row.target, target)
		if d != bench {
			c.fact("figure value", d, r.line, figureIn(r.cells[len(r.cells)-1], row, bench), "%q is not a figure of BENCHMARKS.md's row %q", firstFigure(r.cells[len(r.cells)-1]), row.labelText)
		}
	}
}

// shortLabel: label is row's label cut at a clause (before " (", ", " or
// "; ") or a Sprintf'd label with its numbers.
func shortLabel(row benchRow, label string) bool {
	full := row.labelText
	if !strings.HasPrefix(full, label) || len(label) < 8 {
		return false
	}
	rest := full[len(label):]
	return strings.HasPrefix(rest, " (") || strings.HasPrefix(rest, ", ") || strings.HasPrefix(rest, "; ")
}

var figureRE = regexp.MustCompile(`(\d+(?:\.\d+)?)\s?(×|%|ms|MiB|s\b)?`)

func firstFigure(cell string) string {
	m := figureRE.FindString(strings.ReplaceAll(cell, ",", ""))
	return strings.TrimSpace(m)
}

// figureIn: the first figure of cell (with its unit) is, at its precision,
// one of the figures of BENCHMARKS.md's rows of that label.
func figureIn(cell string, row *benchRow, bench *mdDoc) bool {
	m := figureRE.FindStringSubmatch(strings.ReplaceAll(cell, ",", ""))
	if m == nil {
		return false
	}
	want, _ := strconv.ParseFloat(m[1], 64)
	decimals := 0
	if i := strings.Index(m[1], "."); i >= 0 {
		decimals = len(m[1]) - i - 1
	}
	scale := math.Pow(10, float64(decimals))
	for _, t := range bench.tables(bench.all()) {
		for _, r := range t.rows {
			if !row.label.MatchString(r.cells[0]) {
				continue
			}
			for _, cell := range r.cells[2:] {
				for _, g := range figureRE.FindAllStringSubmatch(strings.ReplaceAll(cell, ",", ""), -1) {
					v, _ := strconv.ParseFloat(g[1], 64)
					if g[2] == m[2] && math.Round(v*scale) == math.Round(want*scale) {
						return true
					}
				}
			}
		}
	}
	return false
}
