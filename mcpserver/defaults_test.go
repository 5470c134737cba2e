package mcpserver

import (
	"testing"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/tape"
)

// Options.Defaults (config.toml's tape options in "graft mcp") are the
// options of a graft_prepare call that leaves them out; an option the call
// sets wins, and tier and recentTurns go together.
func TestPrepareDefaults(t *testing.T) {
	f := newFixture(t, Options{Defaults: tape.Options{RecentTurns: 2, Budget: 8000}}, graft.Options{})
	for _, tc := range []struct {
		args        map[string]any
		tier        string
		recentTurns int
		budget      int
	}{
		{map[string]any{"source": "s"}, "", 2, 8000},
		{map[string]any{"source": "s", "budget": 12000}, "", 2, 12000},
		{map[string]any{"source": "s", "tier": "B"}, "B", 0, 8000},
		{map[string]any{"source": "s", "recentTurns": 1}, "", 1, 8000},
	} {
		rv := f.prepare(tc.args)
		if rv.Tier != tc.tier && !(tc.tier == "" && rv.Tier == tape.TierA) {
			t.Errorf("%v: tier %q, want %q", tc.args, rv.Tier, tc.tier)
		}
		if rv.RecentTurns != tc.recentTurns || rv.Budget != tc.budget {
			t.Errorf("%v: recentTurns %d budget %d, want %d %d", tc.args, rv.RecentTurns, rv.Budget, tc.recentTurns, tc.budget)
		}
	}
	// The zero Defaults are tape's own.
	g := newFixture(t, Options{}, graft.Options{})
	if rv := g.prepare(nil); rv.RecentTurns != 0 || (rv.Budget != 0 && rv.Budget != tape.DefaultBudget) {
		t.Errorf("no defaults: recentTurns %d budget %d", rv.RecentTurns, rv.Budget)
	}
}
