package tape

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	// DefaultBudget is the rune budget of a whole tape text when
	// Options.Budget is 0.
	DefaultBudget = 16000
	// MinBudget leaves room for the parts a budget never cuts: the skeleton
	// turn, the marker lines and labels, the anchor line and the cut lines
	// (about 2,200 runes with every block cut to its cut line).
	MinBudget = 4000
	// MaxBudget bounds what the builder keeps for the open turn and for
	// replay, so its memory does not grow with the session.
	MaxBudget = 100000
	// MaxRecentTurns is the most closed turns a tape can replay; the
	// builder keeps the message texts of that many.
	MaxRecentTurns = 5
)

// Tiers of replay (docs/DESIGN.md §4.3).
const (
	TierA = "A" // zero replay
	TierB = "B" // the last closed turn verbatim
)

// Options shape a tape. The zero value is tier A with the default budget.
type Options struct {
	Tier        string // "A" (default, zero replay) or "B" (last closed turn verbatim)
	RecentTurns int    // >0: replay this many closed turns (overrides Tier)
	AutoTier    bool   // unfinished todos or a failure in the open turn → tier B
	Budget      int    // runes of the whole tape text; 0 → DefaultBudget
	// Continues, when set, says the session goes on in another host
	// than the one the source ran in (graft handoff --to): the Handoff
	// block tells the agent which project instruction files to read.
	Continues *Continuation `json:",omitempty"`
}

// Continuation is where a tape's session goes on when that is another host
// than the source's: Unread are the project's instruction files (their
// names in the project, CLAUDE.md) that From read into its model's context
// and To does not, so that their rules reach the new session only if its
// agent reads them.
type Continuation struct {
	From, To string   // the hosts as people name them: "Claude Code", "Codex"
	Unread   []string `json:",omitempty"`
}

// maxUnread bounds Continuation.Unread (a host reads a few instruction
// files); maxNameRunes one name in a Continuation, a host's or a file's.
const (
	maxUnread    = 8
	maxNameRunes = 200
)

// ErrOptions is wrapped by every error of Options.Validate.
var ErrOptions = errors.New("tape: bad options")

// Validate checks every field, naming the bad one.
func (o Options) Validate() error {
	switch o.Tier {
	case "", TierA, TierB:
	default:
		return fmt.Errorf("%w: tier %q: want %q or %q", ErrOptions, o.Tier, TierA, TierB)
	}
	if o.RecentTurns < 0 || o.RecentTurns > MaxRecentTurns {
		return fmt.Errorf("%w: recentTurns %d: want 0..%d", ErrOptions, o.RecentTurns, MaxRecentTurns)
	}
	if o.Budget != 0 && (o.Budget < MinBudget || o.Budget > MaxBudget) {
		return fmt.Errorf("%w: budget %d: want 0 (default %d) or %d..%d runes", ErrOptions, o.Budget, DefaultBudget, MinBudget, MaxBudget)
	}
	if c := o.Continues; c != nil {
		if !oneLine(c.From, maxNameRunes) || !oneLine(c.To, maxNameRunes) {
			return fmt.Errorf("%w: continues: from %q, to %q: want two host names of one line each", ErrOptions, c.From, c.To)
		}
		if len(c.Unread) > maxUnread {
			return fmt.Errorf("%w: continues: %d unread instruction files: want at most %d", ErrOptions, len(c.Unread), maxUnread)
		}
		for _, f := range c.Unread {
			if !oneLine(f, maxNameRunes) {
				return fmt.Errorf("%w: continues: unread instruction file %q: want a name of one line, at most %d runes", ErrOptions, f, maxNameRunes)
			}
		}
	}
	return nil
}

// oneLine: s is not empty, has no line break and at most n runes.
func oneLine(s string, n int) bool {
	return strings.TrimSpace(s) != "" && !strings.ContainsAny(s, "\r\n") && utf8.RuneCountInString(s) <= n
}

// resolved fills the defaults, so that options meaning the same tape hash
// the same (Budget 0 and 16000, Tier "" and "A").
func (o Options) resolved() Options {
	if o.Tier == "" {
		o.Tier = TierA
	}
	if o.Budget == 0 {
		o.Budget = DefaultBudget
	}
	return o
}
