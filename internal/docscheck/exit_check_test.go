package docscheck

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/graft-project/graft/graft"
)

func checkExitCodes(c *checker, ds *docs, k *code) {
	codes := graft.ExitCodes()
	lo, hi := codes[0].Exit, codes[0].Exit
	byName := map[string]int{}
	byExit := map[int]string{}
	table := ds.readme // the table's facts are the code's own; mismatches name the README's range line below
	rangeLine, _ := ds.readme.findLine(ds.readme.all(), regexp.MustCompile("a typed error"))
	for i, e := range codes {
		lo, hi = min(lo, e.Exit), max(hi, e.Exit)
		_, dupName := byName[string(e.Code)]
		c.fact("exit-code table", table, rangeLine, !dupName, "graft.ExitCodes() holds the code %s twice", e.Code)
		other, dupExit := byExit[e.Exit]
		c.fact("exit-code table", table, rangeLine, !dupExit, "graft.ExitCodes() gives exit %d to %s and %s", e.Exit, other, e.Code)
		c.fact("exit-code table", table, rangeLine, e.Exit == codes[0].Exit+i, "graft.ExitCodes(): %s is exit %d, not %d: the range has a gap", e.Code, e.Exit, codes[0].Exit+i)
		byName[string(e.Code)], byExit[e.Exit] = e.Exit, string(e.Code)
	}

	// README: "`0` success, `1` error, `2` usage, `10`–`51` a typed error".
	d := ds.readme
	line, m := d.findLine(d.all(), regexp.MustCompile("`(\\d+)`–`(\\d+)` a typed error"))
	if c.fact("exit-code range", d, 0, m != nil, "no \"`N`–`M` a typed error\"") {
		c.fact("exit-code range", d, line, atoi(m[1]) == lo && atoi(m[2]) == hi,
			"says %s–%s, graft.ExitCodes() runs %d–%d", m[1], m[2], lo, hi)
	}
	help := parseDoc("graft help exit-codes", k.exitCodesHelp)
	helpRows := map[string][]string{} // exit → fields
	for _, l := range help.lines {
		f := strings.Fields(l)
		if len(f) >= 2 {
			if _, err := strconv.Atoi(f[0]); err == nil {
				helpRows[f[0]] = f
			}
		}
	}
	line, m = d.findLine(d.all(), regexp.MustCompile("`0` \\w+, `1` \\w+,"))
	if c.fact("exit-code range", d, 0, m != nil, "no \"`0` success, `1` error, `2` usage\"") {
		_, para := d.paragraph(line)
		pm := regexp.MustCompile("`0` (\\w+), `1` (\\w+),\\s+`2` (\\w+)").FindStringSubmatch(para)
		if c.fact("exit-code range", d, line, pm != nil, "no \"`0` …, `1` …, `2` …\" in the paragraph") {
			for i, word := range pm[1:] {
				f := helpRows[strconv.Itoa(i)]
				c.fact("exit-code range", d, line, f != nil && (f[1] == word || f[2] == word),
					"calls exit %d %q; graft help exit-codes: %q", i, word, strings.Join(f, " "))
			}
		}
	}

	// graft --help: "10-51 name a typed error".
	rh := parseDoc("cmd/graft/root.go (graft --help)", k.rootHelp)
	line, m = rh.findLine(rh.all(), regexp.MustCompile(`(\d+)-(\d+) name a typed error`))
	if c.fact("exit-code range", rh, 0, m != nil, `no "N-M name a typed error"`) {
		c.fact("exit-code range", rh, line, atoi(m[1]) == lo && atoi(m[2]) == hi,
			"says %s-%s, graft.ExitCodes() runs %d-%d", m[1], m[2], lo, hi)
	}
	// graft help exit-codes lists every code, and 0, 1, 2.
	for _, e := range codes {
		f := helpRows[strconv.Itoa(e.Exit)]
		c.fact("exit-code table", help, 0, f != nil && f[1] == string(e.Code), "exit %d is not %s", e.Exit, e.Code)
	}
	for _, n := range []string{"0", "1", "2"} {
		c.fact("exit-code table", help, 0, helpRows[n] != nil, "no row for exit %s", n)
	}

	// DESIGN §8.1: "`10` and above a typed error".
	dd := ds.design
	line, m = dd.findLine(dd.all(), regexp.MustCompile("`(\\d+)` and above a typed error"))
	if c.fact("exit-code range", dd, 0, m != nil, "no \"`N` and above a typed error\"") {
		c.fact("exit-code range", dd, line, atoi(m[1]) == lo, "says %s and above, graft.ExitCodes() starts at %d", m[1], lo)
	}
	// DESIGN §5.3: every code it names is one.
	if sec, ok := dd.section("5.3 Errors"); c.fact("exit code", dd, 0, ok, `no section "5.3 Errors"`) {
		n := 0
		for _, s := range dd.spansOf(sec) {
			if regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`).MatchString(s.text) {
				n++
				_, ok := byName[s.text]
				c.fact("exit code", dd, s.line, ok, "%s is no code of graft.ExitCodes()", s.text)
			}
		}
		c.fact("exit code", dd, sec.from, n >= 5, "§5.3 names %d codes; the list was not found", n)
	}
	// "(`symlink_refused`, exit 33)" anywhere.
	re := regexp.MustCompile("`([a-z_]+)`, exit (\\d+)")
	for _, d := range ds.all() {
		for i, l := range d.lines {
			for _, m := range re.FindAllStringSubmatch(l, -1) {
				got, ok := byName[m[1]]
				c.fact("exit code", d, i+1, ok && got == atoi(m[2]), "%s is exit %d in graft.ExitCodes(), not %s", m[1], got, m[2])
			}
		}
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		return -1
	}
	return n
}
