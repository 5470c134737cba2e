package graft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/foldcache"
	"github.com/graft-project/graft/internal/nonnil"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
	"github.com/graft-project/graft/txn"
)

// DefaultTTL is how long a prepared review stays committable.
const DefaultTTL = 24 * time.Hour

// PrepareOptions shape the tape and the review.
type PrepareOptions struct {
	Tape         tape.Options
	AllowReslice bool
	TTL          time.Duration
}

// Review is what prepare returns for a person or an agent to approve.
type Review struct {
	PreparedID  string          `json:"preparedId"`
	Source      string          `json:"source"`
	BoundarySeq int64           `json:"boundarySeq"`
	LastSeq     int64           `json:"lastSeq"`
	Generation  int             `json:"generation"`
	Goal        []session.Quote `json:"goal"`
	Progress    string          `json:"progress"`
	// HostGoal is the goal the source's host kept for it (its /goal), nil
	// when none: the host keeps it per session; the target's inherit
	// carries an active one (tape.HostGoal.Carried), which an export to a
	// host that restores it from its session file hands on.
	HostGoal    *tape.HostGoal       `json:"hostGoal,omitempty"`
	Constraints []session.Constraint `json:"constraints"`
	// MoreConstraints counts, per session, the constraint sayings past
	// the tape's cap (tape.MaxConstraints) that Constraints does not list:
	// recall them there.
	MoreConstraints []session.More  `json:"moreConstraints,omitempty"`
	Leftovers       []tape.Leftover `json:"leftovers"`
	TapeChars       int             `json:"tapeChars"`
	CarryoverChars  int             `json:"carryoverChars"`
	TapeHash        string          `json:"tapeHash"`
	PrefixHash      string          `json:"prefixHash"`
	Warnings        []string        `json:"warnings"`
	Options         tape.Options    `json:"options"`
	// Cwd is the working directory the source's events last named (a host
	// records it): where the session worked.
	Cwd          string    `json:"cwd,omitempty"`
	AllowReslice bool      `json:"allowReslice,omitempty"`
	Expires      time.Time `json:"expires"`
	Tape         string    `json:"tape"`
}

// build folds the source once and builds its tape (foldcache.Cache.Build):
// from its scan index when that is valid, so a grown session costs its new
// tail.
func (s *Service) build(source string, opts tape.Options, leftovers []tape.Leftover) (*foldcache.Built, error) {
	return s.folds().Build(context.Background(), source, opts, leftovers)
}

// checkSource refuses sources that must not be grafted: abandoned or
// uncommitted targets always, retired sources unless allowReslice.
func (s *Service) checkSource(info *session.Info, allowReslice bool) error {
	if g, ok := info.Live(); ok {
		if !allowReslice {
			return &txn.AlreadyGraftedError{Source: info.ID, Target: g.Target}
		}
		return nil // a retired session was live when it was grafted
	}
	return s.store.Check(info)
}

func (s *Service) leftovers(source string) ([]tape.Leftover, error) {
	var out []tape.Leftover
	err := s.viewCatalog(func(db *catalog.DB) error {
		var err error
		out, err = leftoversIn(db, source)
		return err
	})
	if err != nil {
		// Prepare stores its review in the catalog: without a readable
		// one there is no review to commit, so it stops here.
		return nil, catalogNeeded(fmt.Sprintf("prepare of %s reads the leftovers of crashed grafts from catalog.db and stores its review there for commit", source), err)
	}
	return out, nil
}

// leftoversIn reads the leftovers of source from an open catalog.
func leftoversIn(db *catalog.DB, source string) ([]tape.Leftover, error) {
	var out []tape.Leftover
	ls, err := db.Leftovers(source)
	for _, l := range ls {
		out = append(out, tape.Leftover{Target: l.Target, Txn: l.Txn, State: l.State, Reason: l.Reason})
	}
	return out, err
}

// Prepare builds the tape of source and stores the review for commit. It
// checks ctx before each phase and as it folds the log: a cancelled prepare
// returns ctx's error (errors.Is context.Canceled) and stores nothing.
func (s *Service) Prepare(ctx context.Context, source string, o PrepareOptions) (*Review, error) {
	if err := session.ValidID(source); err != nil {
		return nil, err
	}
	if err := o.Tape.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidOptions, err)
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if err := cancelled(ctx, "prepare of "+source); err != nil {
		return nil, err
	}
	lo, err := s.leftovers(source)
	if err != nil {
		return nil, err
	}
	bt, err := s.folds().Build(ctx, source, o.Tape, lo)
	if err != nil {
		return nil, err
	}
	if err := s.checkSource(bt.Info, o.AllowReslice); err != nil {
		return nil, err
	}
	t := bt.Tape
	now := s.Now()
	rv := &Review{
		PreparedID: catalog.NewPreparedID(now), Source: source,
		BoundarySeq: t.BoundarySeq, LastSeq: t.LastSeq, Generation: t.Generation,
		Goal: nonnil.Slice(t.Goal), Progress: t.Progress, HostGoal: t.HostGoal, Constraints: nonnil.Slice(t.Constraints), MoreConstraints: t.MoreConstraints,
		Leftovers: nonnil.Slice(t.Leftovers), TapeChars: t.TapeChars, CarryoverChars: t.CarryoverChars,
		TapeHash: t.TapeHash, PrefixHash: t.PrefixHash, Warnings: nonnil.Slice(t.Warnings),
		Options: o.Tape, AllowReslice: o.AllowReslice, Expires: now.Add(o.TTL).UTC(), Tape: t.Text, Cwd: t.Cwd,
	}
	if _, ok := bt.Info.Live(); ok {
		rv.Warnings = append(rv.Warnings, "the source is already retired: this is a re-slice; the new target will be a sibling of the existing one")
	}
	if err := cancelled(ctx, "prepare of "+source); err != nil {
		return nil, err
	}
	strays, err := s.strays(source)
	if err != nil {
		return nil, err
	}
	rv.Warnings = append(rv.Warnings, strays...)
	raw, err := json.Marshal(rv)
	if err != nil {
		return nil, err
	}
	// A sealed review keeps the tape it showed: a commit that finds the
	// source still the same bytes writes it without folding the log again.
	seal, sealed, err := bt.Seal()
	if err != nil {
		return nil, fmt.Errorf("graft: review %s: %w", rv.PreparedID, err)
	}
	// The last boundary: past it the review is stored whole.
	if err := cancelled(ctx, "prepare of "+source); err != nil {
		return nil, err
	}
	err = s.cat().With(func(db *catalog.DB) error {
		// Reviews are not kept for ever: the expired ones go (a hook past
		// autoGraft prepares one a turn). A purge that fails leaves them
		// and says so; the new review is stored all the same.
		if _, perr := db.PurgeExpired(now); perr != nil {
			s.degrade("expired reviews were not purged from catalog.db: %s", catalog.Problem(perr))
		}
		return db.PutReview(catalog.Prepared{
			ID: rv.PreparedID, Source: source,
			Tier: o.Tape.Tier, RecentTurns: o.Tape.RecentTurns, AutoTier: o.Tape.AutoTier, Budget: o.Tape.Budget,
			AllowReslice: o.AllowReslice, BoundarySeq: t.BoundarySeq, LastSeq: t.LastSeq,
			Generation: t.Generation, PrefixHash: t.PrefixHash, TapeHash: t.TapeHash,
			TapeChars: t.TapeChars, CarryoverChars: t.CarryoverChars, Review: raw,
			Created: now.UTC(), Expires: rv.Expires, Seal: seal,
		}, sealed)
	})
	if err != nil {
		return nil, catalogNeeded(fmt.Sprintf("the review of %s could not be stored in catalog.db, where commit reads it", source), err)
	}
	return rv, nil
}

// PurgeReviews deletes the expired reviews from catalog.db and says how
// many (graft recover; every prepare purges them too, through the expiry
// index: this reads every review, those an older graft stored without a
// key too, and indexes them anew).
func (s *Service) PurgeReviews() (int, error) {
	n := 0
	err := s.cat().With(func(db *catalog.DB) error {
		var err error
		n, err = db.PurgeExpiredFull(s.Now())
		return err
	})
	return n, err
}

// PreparedReview returns a stored review (expired or used ones too).
func (s *Service) PreparedReview(id string) (*Review, error) {
	var rv Review
	err := s.viewCatalog(func(db *catalog.DB) error {
		p, err := db.PeekPrepared(id)
		if err != nil {
			return err
		}
		return json.Unmarshal(p.Review, &rv)
	})
	if errors.Is(err, catalog.ErrUnknownPrepared) {
		return nil, err
	}
	if err != nil {
		return nil, catalogNeeded(fmt.Sprintf("review %s is kept only in catalog.db, which cannot be read", id), err)
	}
	return &rv, nil
}

// strays names the host sessions that were used after their graft session
// was handed off, the work now going on in source: their new lines are in
// no session, and the person should know before handing off again.
func (s *Service) strays(source string) ([]string, error) {
	all, err := s.Bindings().List()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, b := range all {
		if b.Stray != nil && b.Stray.Target == source {
			out = append(out, fmt.Sprintf("%s session %s (graft session %s) was used after it was handed off: %d line(s), %d bytes of %s are not merged into %s (seen %s)",
				b.Host, b.HostSessionID, b.Session, b.Stray.Lines, b.Stray.Bytes, b.Path, source, b.Stray.Seen))
		}
	}
	return out, nil
}

// DefaultTarget names the next generation of source: <base>.g<N>, with a
// -2, -3 … suffix when taken (re-slices).
func (s *Service) DefaultTarget(source string, generation int) (string, error) {
	base := source
	if i := strings.LastIndex(base, ".g"); i > 0 {
		rest := base[i+2:]
		if j := strings.IndexByte(rest, '-'); j >= 0 {
			rest = rest[:j]
		}
		if rest != "" && strings.Trim(rest, "0123456789") == "" {
			base = base[:i]
		}
	}
	if len(base) > 110 {
		base = base[:110]
	}
	for n := 1; n < 1000; n++ {
		id := fmt.Sprintf("%s.g%d", base, generation)
		if n > 1 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		exists, err := s.store.Exists(id)
		if err != nil {
			return "", err
		}
		if !exists {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: no free target id for %s", txn.ErrTargetExists, source)
}
