package crashtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// outcome is what a case must end in once recovery ran.
type outcome int

const (
	// eitherWay: the injection may land before or after the commit point.
	eitherWay outcome = iota
	// sourceStays: rolled back; the source is usable, no target of it is.
	sourceStays
	// targetLive: rolled forward; expect.target is live.
	targetLive
)

// expect is what the checker holds a case to, besides the invariant.
type expect struct {
	tmpl    *template
	outcome outcome
	target  string // the target that must be live (targetLive)
	// damaged lists sessions the injection itself rewrote: they are exempt
	// from "the template's bytes, then appended graft marks".
	damaged []string
	// tornTarget: a live target may lack its last line (the torn-tail case).
	tornTarget bool
	// corruptRecord: the journal holds a record that cannot be read;
	// recovery must report it, fail, and leave it (scanned stays above 0).
	corruptRecord bool
	// beforeRecover runs after the first survey, before recovery (the
	// ENOSPC case frees the disk there).
	beforeRecover func() error
	recover       recoverer
}

// recoverer runs one recovery scan on a home.
type recoverer func(home string) (recoveryRun, error)

// recoveryRun is one scan as `graft recover --json` reports it.
type recoveryRun struct {
	Scanned       int      `json:"scanned"`
	RolledForward int      `json:"rolledForward"`
	RolledBack    int      `json:"rolledBack"`
	Busy          int      `json:"busy"`
	Errors        []string `json:"errors"`
	Exit          int      `json:"-"`
}

func (r recoveryRun) String() string {
	s := fmt.Sprintf("scanned %d", r.Scanned)
	if r.RolledForward > 0 {
		s += fmt.Sprintf(", forward %d", r.RolledForward)
	}
	if r.RolledBack > 0 {
		s += fmt.Sprintf(", back %d", r.RolledBack)
	}
	if r.Busy > 0 {
		s += fmt.Sprintf(", busy %d", r.Busy)
	}
	if r.Exit != 0 {
		s += fmt.Sprintf(", exit %d", r.Exit)
	}
	return s
}

// recoverWithBinary runs `graft recover --json` in a child process.
func (s *suite) recoverWithBinary(home string) (recoveryRun, error) {
	res, err := s.runChild(child{home: home, args: []string{"recover", "--json"}})
	if err != nil {
		return recoveryRun{}, err
	}
	var r recoveryRun
	if err := json.Unmarshal([]byte(res.stdout), &r); err != nil {
		return recoveryRun{}, fmt.Errorf("graft recover --json (exit %d) printed no report: %v; stderr: %s", res.exit, err, firstLine(res.stderr))
	}
	r.Exit = res.exit
	return r, nil
}

// recoverInProcess runs the scan through the graft package on the real
// filesystem, as graft recover does.
func recoverInProcess(home string) (recoveryRun, error) {
	svc, err := graft.Open(home, graft.Options{SkipRecovery: true})
	if err != nil {
		return recoveryRun{}, fmt.Errorf("opening %s for recovery: %w", home, err)
	}
	rep, err := svc.Recover(context.Background())
	if rep == nil {
		return recoveryRun{}, fmt.Errorf("recovery of %s did not run: %w", home, err)
	}
	_, exit := graft.CodeOf(err)
	return recoveryRun{Scanned: rep.Scanned, RolledForward: rep.RolledForward, RolledBack: rep.RolledBack, Busy: rep.Busy, Errors: rep.Errors, Exit: exit}, nil
}

// survey is what the store says about every session of a home, read-only.
type survey struct {
	ids     []string
	infos   map[string]*session.Info // nil: the log does not read
	unread  map[string]error         // why a log does not read
	refusal map[string]error         // why Store.Check refuses to resume it
}

func takeSurvey(home string) (*survey, error) {
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		return nil, err
	}
	ids, err := st.List()
	if err != nil {
		return nil, err
	}
	sv := &survey{ids: ids, infos: map[string]*session.Info{}, unread: map[string]error{}, refusal: map[string]error{}}
	for _, id := range ids {
		info, err := st.Info(id)
		if err != nil {
			sv.unread[id] = err
			continue
		}
		sv.infos[id] = info
		if err := st.Check(info); err != nil {
			sv.refusal[id] = err
		}
	}
	return sv, nil
}

func (sv *survey) usable(id string) bool {
	return sv.infos[id] != nil && sv.refusal[id] == nil
}

// targetsOf lists the sessions whose graft/origin names parent.
func (sv *survey) targetsOf(parent string) []string {
	var out []string
	for _, id := range sv.ids {
		if info := sv.infos[id]; info != nil && info.Origin != nil && info.Origin.Parent == parent {
			out = append(out, id)
		}
	}
	return out
}

// describe says in a word or two what state id is in.
func (sv *survey) describe(id string) string {
	if !slices.Contains(sv.ids, id) {
		return id + " absent"
	}
	if err := sv.unread[id]; err != nil {
		return id + " unreadable"
	}
	info := sv.infos[id]
	torn := ""
	if info.Torn != nil {
		torn = fmt.Sprintf(" (torn tail %dB ignored)", info.Torn.Bytes)
	}
	err := sv.refusal[id]
	switch {
	case err == nil && info.Origin != nil:
		return id + " live" + torn
	case err == nil:
		return id + " usable" + torn
	case errors.Is(err, session.ErrRetired):
		return id + " retired" + torn
	case errors.Is(err, session.ErrAbandoned):
		return id + " abandoned" + torn
	case errors.Is(err, session.ErrUncommitted):
		return id + " uncommitted" + torn
	}
	return fmt.Sprintf("%s refused (%v)", id, err)
}

// summary describes each source of tmpl and its targets.
func (sv *survey) summary(tmpl *template) string {
	var parts []string
	for _, src := range tmpl.sources {
		parts = append(parts, sv.describe(src))
		for _, t := range sv.targetsOf(src) {
			parts = append(parts, sv.describe(t))
		}
	}
	for _, id := range sv.ids {
		if _, ok := sv.unread[id]; ok && !slices.Contains(tmpl.sources, id) {
			parts = append(parts, id+" unreadable")
		}
	}
	return strings.Join(parts, ", ")
}

// checker collects what one case got wrong.
type checker struct {
	problems []string
}

func (c *checker) fail(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// invariant: for every source, the source or a target of it is usable.
func (c *checker) invariant(sv *survey, tmpl *template, when string) {
	for _, src := range tmpl.sources {
		if sv.usable(src) {
			continue
		}
		ok := false
		for _, t := range sv.targetsOf(src) {
			ok = ok || sv.usable(t)
		}
		if !ok {
			c.fail("%s: sourceUsable ∨ targetUsable is false for %s: %s", when, src, sv.reasons(src))
		}
	}
}

func (sv *survey) reasons(src string) string {
	why := func(id string) string {
		if err := sv.unread[id]; err != nil {
			return fmt.Sprintf("%s: %v", id, err)
		}
		if err := sv.refusal[id]; err != nil {
			return fmt.Sprintf("%s: %v", id, err)
		}
		return id + ": usable"
	}
	parts := []string{why(src)}
	for _, t := range sv.targetsOf(src) {
		parts = append(parts, why(t))
	}
	if len(parts) == 1 {
		parts = append(parts, "no target of it exists")
	}
	return strings.Join(parts, "; ")
}

// honest: a target whose commit point is not in its parent's log is not
// usable, and nothing the store judges unusable accepts an append.
func (c *checker) honest(sv *survey, home, when string) {
	for _, id := range sv.ids {
		info := sv.infos[id]
		if info == nil || info.Origin == nil {
			continue
		}
		parent := sv.infos[info.Origin.Parent]
		if (parent == nil || !parent.Committed(info.Origin.Txn, id)) && sv.usable(id) {
			c.fail("%s: %s is resumable but its parent %s holds no commit point for txn %s", when, id, info.Origin.Parent, info.Origin.Txn)
		}
	}
	var unusable []string
	for _, id := range sv.ids {
		if !sv.usable(id) {
			unusable = append(unusable, id)
		}
	}
	if len(unusable) == 0 {
		return
	}
	svc, err := graft.Open(home, graft.Options{SkipRecovery: true})
	if err != nil {
		c.fail("%s: opening %s to probe appends: %v", when, home, err)
		return
	}
	for _, id := range unusable {
		_, err := svc.Append(id, []session.Event{probeEvent()})
		switch {
		case err == nil:
			c.fail("%s: an append to %s was accepted although the store refuses to resume it", when, id)
		case !refusal(err):
			c.fail("%s: an append to %s failed for a reason other than its state: %v", when, id, err)
		}
	}
}

func probeEvent() session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "crashtest probe: resuming this session must be refused"}
}

// refusal reports whether err is the store refusing a session for its
// state or its damage (not an I/O failure of the probe itself).
func refusal(err error) bool {
	for _, want := range []error{session.ErrRetired, session.ErrAbandoned, session.ErrUncommitted, session.ErrCorrupt, session.ErrSeq, session.ErrNotFound} {
		if errors.Is(err, want) {
			return true
		}
	}
	return false
}

// bytesKept: every log of the template still starts with its template
// bytes, followed only by complete graft marks of the allowed kinds (and at
// most a torn last line, which the store ignores).
func (c *checker) bytesKept(home string, exp expect) []string {
	var notes []string
	for id, want := range exp.tmpl.logs {
		if slices.Contains(exp.damaged, id) {
			continue
		}
		path := filepath.Join(home, "sessions", id+session.Ext)
		got, err := os.ReadFile(path)
		if err != nil {
			c.fail("the log of %s is gone or unreadable: %v", id, err)
			continue
		}
		if !bytes.HasPrefix(got, want) {
			n := 0
			for n < len(got) && n < len(want) && got[n] == want[n] {
				n++
			}
			c.fail("%s changed: its first %d bytes are not the template's (first difference at byte %d)", id, len(want), n)
			continue
		}
		allowed := []string{session.TypeGraftRetired, session.TypeGraftUnretired}
		if id == exp.tmpl.target {
			allowed = []string{session.TypeGraftAbandoned}
		}
		rest := got[len(want):]
		for len(rest) > 0 {
			k := bytes.IndexByte(rest, '\n')
			if k < 0 {
				notes = append(notes, fmt.Sprintf("%s: torn tail of %d bytes", id, len(rest)))
				break
			}
			var ev session.Event
			if err := json.Unmarshal(rest[:k], &ev); err != nil {
				c.fail("%s: an appended line does not parse: %v", id, err)
				break
			}
			if !slices.Contains(allowed, ev.Type) {
				c.fail("%s: %s was appended to it (only %s may be)", id, ev.Type, strings.Join(allowed, ", "))
			}
			rest = rest[k+1:]
		}
	}
	return notes
}

// noShell: once no record is left, every session the template does not
// hold carries a graft/origin or a graft/abandoned. One with neither is a
// shell of a rolled-back graft that recovery did not remove: it names no
// transaction, and it takes the target id.
func (c *checker) noShell(sv *survey, tmpl *template) {
	for _, id := range sv.ids {
		if _, ok := tmpl.logs[id]; ok {
			continue
		}
		if info := sv.infos[id]; info != nil && info.Origin == nil && info.Abandoned == nil {
			c.fail("after recovery: %s is a shell without graft/origin (%d events, torn tail %v) and no record is left to remove it", id, info.Events, info.Torn != nil)
		}
	}
}

// outcomeHeld checks the case's outcome and that a live target holds its
// whole tape.
func (c *checker) outcomeHeld(sv *survey, exp expect) {
	src := exp.tmpl.source()
	switch exp.outcome {
	case sourceStays:
		if !sv.usable(src) {
			c.fail("expected %s usable (rolled back), but: %s", src, sv.reasons(src))
		}
		for _, t := range sv.targetsOf(src) {
			if sv.usable(t) {
				c.fail("expected no live target of %s, but %s is live", src, t)
			}
		}
	case targetLive:
		if !sv.usable(exp.target) {
			c.fail("expected %s live (committed), but: %s", exp.target, sv.reasons(src))
		}
	}
	for _, id := range sv.ids {
		info := sv.infos[id]
		if info == nil || info.Origin == nil || !sv.usable(id) || exp.tornTarget {
			continue
		}
		if info.Events < info.Origin.TapeEvents || info.Torn != nil {
			c.fail("live target %s does not hold its whole tape: %d of %d events, torn tail %v", id, info.Events, info.Origin.TapeEvents, info.Torn != nil)
		}
	}
}

// check is the checker run after every case: the invariant and honesty
// before recovery, recovery twice, then the invariant, honesty, the
// expected outcome and the template's bytes again. It returns what it saw
// and what was wrong.
func check(home string, exp expect) (observed string, problems []string) {
	c := &checker{}
	before, err := takeSurvey(home)
	if err != nil {
		return "", []string{fmt.Sprintf("surveying %s: %v", home, err)}
	}
	c.invariant(before, exp.tmpl, "before recovery")
	c.honest(before, home, "before recovery")
	if exp.beforeRecover != nil {
		if err := exp.beforeRecover(); err != nil {
			c.fail("before recovery: %v", err)
		}
	}

	first, err := exp.recover(home)
	if err != nil {
		c.fail("recovery #1: %v", err)
	}
	second, err2 := exp.recover(home)
	if err2 != nil {
		c.fail("recovery #2: %v", err2)
	}
	if err == nil && err2 == nil {
		if exp.corruptRecord {
			if first.Exit == 0 || len(first.Errors) == 0 {
				c.fail("recovery #1 must report the corrupt record and exit non-zero: %s, errors %q", first, first.Errors)
			}
			if second.Exit == 0 || second.Scanned == 0 || second.RolledBack+second.RolledForward > 0 {
				c.fail("recovery #2 must find the corrupt record still there, untouched, and exit non-zero: %s", second)
			}
		} else {
			if first.Exit != 0 || first.Busy > 0 {
				c.fail("recovery #1 did not resolve everything: %s, errors %q", first, first.Errors)
			}
			if second.Scanned != 0 || second.Exit != 0 {
				c.fail("recovery #2 must find scanned=0: %s, errors %q", second, second.Errors)
			}
		}
	}

	after, err := takeSurvey(home)
	if err != nil {
		c.fail("surveying %s after recovery: %v", home, err)
		return "", c.problems
	}
	c.invariant(after, exp.tmpl, "after recovery")
	c.honest(after, home, "after recovery")
	c.outcomeHeld(after, exp)
	if !exp.corruptRecord && err == nil && err2 == nil && second.Scanned == 0 {
		c.noShell(after, exp.tmpl)
	}
	notes := c.bytesKept(home, exp)

	observed = fmt.Sprintf("before: %s; recovery: %s, then %s; after: %s", before.summary(exp.tmpl), first, second, after.summary(exp.tmpl))
	if len(notes) > 0 {
		observed += "; " + strings.Join(notes, "; ")
	}
	return observed, c.problems
}

// judge fills a row's observed and result from check plus the case's own
// findings.
func judge(r *Row, observed string, problems []string) {
	r.Observed = observed
	r.Result = Pass
	if len(problems) > 0 {
		r.Result = Fail
		r.Observed = "FAILED: " + strings.Join(problems, " | ") + " — " + observed
	}
}
