package docscheck

import (
	"strings"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
)

// checkHosts: README's table of the hosts lists exactly the registry's, in
// its order, each with its adapter's title, program and resume command,
// whether its session file is appended to, and whether graft intercepts
// its compaction (a hook answer that stops it).
func checkHosts(c *checker, ds *docs, k *code) {
	d := ds.readme
	sec, ok := d.section("The hosts")
	if !c.fact("host table", d, 0, ok, `no section "The hosts"`) {
		return
	}
	t, ok := d.table(sec, "host", "program", "sessions", "resume", "graft's hooks go in", "compaction")
	if !c.fact("host table", d, sec.from, ok, "no table | host | program | sessions | resume | graft's hooks go in | compaction |") {
		return
	}
	ads := hosts.Adapters()
	c.fact("host table", d, t.line, len(t.rows) == len(ads), "the table has %d hosts, the registry %d (%s)", len(t.rows), len(ads), hosts.Names(", ", " and "))
	for i, row := range t.rows {
		if i >= len(ads) || len(row.cells) < 6 {
			continue
		}
		a := ads[i]
		names := codeSpans(row.cells[0])
		if !c.fact("host table", d, row.line, len(names) == 1 && names[0] == string(a.Name()), "row %d names %q, the registry's host %d is %s", i+1, row.cells[0], i+1, a.Name()) {
			continue
		}
		c.fact("host table", d, row.line, strings.HasPrefix(row.cells[1], a.Title()+" (`"+a.Program()+"`)"), "%s: program %q, the adapter says %s (`%s`)", a.Name(), row.cells[1], a.Title(), a.Program())
		appends := strings.HasSuffix(strings.TrimSpace(row.cells[2]), ", appended to")
		c.fact("host table", d, row.line, appends == (a.Growth() == adapter.Appends), "%s: sessions %q: appended to %v, the adapter's growth %d", a.Name(), row.cells[2], appends, a.Growth())
		resume := codeSpans(row.cells[3])
		c.fact("host table", d, row.line, len(resume) == 1 && resume[0] == a.ResumeCommand("<uuid>"), "%s: resume %q, the adapter's is %q", a.Name(), row.cells[3], a.ResumeCommand("<uuid>"))
		intercepted := strings.HasPrefix(row.cells[5], "intercepted")
		c.fact("host table", d, row.line, intercepted == (a.Hooks().Block != nil), "%s: compaction %q, but the adapter's hooks can stop it: %v", a.Name(), row.cells[5], a.Hooks().Block != nil)
	}
}
