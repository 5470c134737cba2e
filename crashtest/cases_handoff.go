package crashtest

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// handoffHostSession is the Claude Code session every handoff case hands
// off: a transcript the suite writes (handoffTranscript).
const handoffHostSession = "3b0f6c1e-8a2d-4e6f-9c1b-5d7a2e4f6a80"

// handoffTranscript is a small Claude Code transcript: a few turns of a
// person asking and the assistant answering, one constraint among them.
func handoffTranscript(turns int) []byte {
	var b strings.Builder
	parent := "null"
	for k := 1; k <= turns; k++ {
		u, a := fmt.Sprintf("00000000-0000-4000-8000-%012d", 2*k), fmt.Sprintf("00000000-0000-4000-8000-%012d", 2*k+1)
		text := fmt.Sprintf("step %d: refactor the parser module, part %d", k, k)
		if k == 1 {
			text = "Refactor the parser module. Never push to main without running the tests."
		}
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":%q,"version":"2.1.38","type":"user","message":{"role":"user","content":%q},"uuid":%q,"timestamp":"2026-03-01T10:%02d:00.000Z"}`+"\n",
			parent, handoffHostSession, text, u, k)
		fmt.Fprintf(&b, `{"parentUuid":%q,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":%q,"version":"2.1.38","type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":%q}]},"uuid":%q,"timestamp":"2026-03-01T10:%02d:30.000Z"}`+"\n",
			u, handoffHostSession, fmt.Sprintf("Done with part %d of the parser refactor.", k), a, k)
		parent = fmt.Sprintf("%q", a)
	}
	return []byte(b.String())
}

// handoffCase is the layout of one handoff case: a graft home that follows
// a Claude Code transcript, the config dir the transcript lives in, and
// the working directory of the new host session.
type handoffCase struct {
	dir, home, claude, cwd, transcript string
	tmpl                               *template // the home after the follow: the source and its bytes
}

// newHandoffCase writes the transcript and follows it into the home
// in-process, as the hooks would have: the source session and its binding.
func (s *suite) newHandoffCase(dir string) (*handoffCase, error) {
	c := &handoffCase{dir: dir, home: filepath.Join(dir, "home"), claude: filepath.Join(dir, "claude"), cwd: filepath.Join(dir, "cwd")}
	proj := filepath.Join(c.claude, "projects", "-w")
	for _, d := range []string{c.home, proj, c.cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	c.transcript = filepath.Join(proj, handoffHostSession+".jsonl")
	if err := os.WriteFile(c.transcript, handoffTranscript(s.cfg.Turns+2), 0o600); err != nil {
		return nil, err
	}
	svc, err := graft.Open(c.home, graft.Options{})
	if err != nil {
		return nil, err
	}
	fr, err := svc.Follow(hosts.ClaudeCode, c.transcript, "", "", nil)
	if err != nil {
		return nil, fmt.Errorf("following the case's transcript: %w", err)
	}
	c.tmpl = &template{home: c.home, sources: []string{fr.Session}, reviews: map[string]review{}}
	if err := c.tmpl.readLogs(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *handoffCase) args() []string {
	return []string{"handoff", "claude-code", "--transcript", c.transcript, "--cwd", c.cwd, "--yes", "--json"}
}

func (c *handoffCase) env() []string { return []string{"CLAUDE_CONFIG_DIR=" + c.claude} }

// handoffPoints are the instants of a handoff the suite kills it at: every
// commit point of the file store, then every step of the export.
func handoffPoints() []txn.Point {
	var out []txn.Point
	for _, p := range txn.Points {
		if strings.HasPrefix(string(p), "commit/") {
			out = append(out, p)
		}
	}
	return append(out, txn.ExportPoints...)
}

// handoffJobs kill `graft handoff --yes` at every instant of
// handoffPoints. Before the commit point the handoff rolls back and the
// old host session still works; at or after it, once recovery ran, the
// new host session exists and is bound.
func (s *suite) handoffJobs() []job {
	var jobs []job
	for _, p := range handoffPoints() {
		o := sourceStays
		if slices.Contains(txn.ExportPoints, p) || pointOutcome(p) == targetLive {
			o = targetLive
		}
		fam := familyHandoff + "/rolled-back"
		if o == targetLive {
			fam = familyHandoff + "/rolled-forward"
		}
		r := Row{Family: fam, Case: "handoff at " + string(p), Injection: fmt.Sprintf("SIGKILL at %s of graft handoff --yes", p)}
		if o == sourceStays {
			r.Expected = "handoff rolled back: the source usable, the old host session follows into it; recovery twice → scanned=0"
		} else {
			r.Expected = "handoff rolled forward: the target live and exported, its host session bound; recovery twice → scanned=0"
		}
		jobs = append(jobs, job{run: func() []Row {
			return []Row{s.inDir(r, func(r Row, dir string) Row { return s.killHandoff(r, dir, p, o) })}
		}})
	}
	return append(jobs, s.handoffRandomJobs()...)
}

func (s *suite) killHandoff(r Row, dir string, p txn.Point, o outcome) Row {
	c, err := s.newHandoffCase(dir)
	if err != nil {
		return failed(r, err)
	}
	res, err := s.runChild(child{home: c.home, args: c.args(), killAt: p, env: c.env()})
	if err != nil {
		return failed(r, err)
	}
	if !res.reached {
		r.Result, r.Observed = Fail, fmt.Sprintf("FAILED: the child never reached %s (%s)", p, res)
		return r
	}
	r.Point = p
	exp := expect{tmpl: c.tmpl, outcome: o, recover: s.recoverWithBinary}
	if o == targetLive {
		exp.target = c.tmpl.source() + ".g2"
	}
	observed, problems := check(c.home, exp)
	more, seen := c.hostsHold()
	judge(&r, observed+"; "+seen, append(problems, more...))
	return r
}

// hostsHold is the handoff's own invariant, after recovery: either the
// old host session still works (its source is usable and following its
// transcript goes on in it) or the new one exists and is bound (the live
// target has an exported host session whose file is there, whole). No
// temporary file of an export is left in the host's folders, and every
// transcript there other than the source's is bound to a live target: an
// unbound one would be imported as a new lineage when resumed.
func (c *handoffCase) hostsHold() (problems []string, seen string) {
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	svc, err := graft.Open(c.home, graft.Options{SkipRecovery: true})
	if err != nil {
		return []string{fmt.Sprintf("opening the home: %v", err)}, ""
	}
	defer svc.Close()
	src := c.tmpl.source()
	sv, err := takeSurvey(c.home)
	if err != nil {
		return []string{err.Error()}, ""
	}
	all, err := svc.Bindings().List()
	if err != nil {
		return []string{fmt.Sprintf("listing the host sessions: %v", err)}, ""
	}
	exported := map[string]hosts.Binding{} // by path
	var live string
	for _, t := range sv.targetsOf(src) {
		if sv.usable(t) {
			live = t
		}
	}
	for _, b := range all {
		if b.Role == hosts.RoleExported {
			exported[b.Path] = b
		}
	}
	switch {
	case live != "":
		var b *hosts.Binding
		for _, x := range hosts.OfSession(all, live) {
			if x.Role == hosts.RoleExported {
				b = &x
			}
		}
		if b == nil {
			fail("the target %s is live but no host session continues it: no host can resume the work", live)
			break
		}
		fi, err := os.Stat(b.Path)
		if err != nil || fi.Size() < b.Bytes {
			fail("the host session %s of %s: %v (the binding says %d bytes)", b.HostSessionID, live, err, b.Bytes)
		}
		if !strings.HasPrefix(b.Path, c.claude+string(filepath.Separator)) {
			fail("the host session of %s was written to %s, outside the handoff's config dir %s", live, b.Path, c.claude)
		}
		seen = fmt.Sprintf("host: %s exported as %s", live, b.HostSessionID)
	case sv.usable(src):
		fr, err := svc.Follow(hosts.ClaudeCode, c.transcript, "", "", nil)
		switch {
		case err != nil:
			fail("the old host session does not follow any more: %v", err)
		case fr.Session != src || fr.HandedOffTo != "":
			fail("the old host session follows into %s (handed off to %q), want %s", fr.Session, fr.HandedOffTo, src)
		}
		seen = "host: the old host session follows into " + src
	default:
		fail("neither the old host session nor a new one can go on")
	}
	err = filepath.WalkDir(c.claude, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		switch {
		case strings.HasPrefix(name, ".graft-export"):
			fail("an export's temporary file is left in the host's folder: %s", p)
		case p == c.transcript:
		case strings.HasSuffix(name, session.Ext):
			b, ok := exported[p]
			if !ok {
				fail("%s is a host transcript bound to no graft session: resumed, it would start a new lineage", p)
			} else if !sv.usable(b.Session) {
				fail("%s continues %s, which cannot be resumed", p, b.Session)
			}
		default:
			fail("an unexpected file in the host's folder: %s", p)
		}
		return nil
	})
	if err != nil {
		fail("walking %s: %v", c.claude, err)
	}
	return problems, seen
}

// DefaultHandoffKills is how many handoffs the handoff group kills at a
// random instant (a soak run: a tenth of its random kills, at least this).
const DefaultHandoffKills = 40

func (s *suite) handoffKills() int {
	return max(DefaultHandoffKills, s.cfg.RandomKills/10)
}

// handoffRandomJobs kill `graft handoff --yes` after a delay drawn
// uniformly from [start, end): start the median time a child takes to
// reach commit/locked, end the median duration of an unkilled handoff, so
// the kills land in the commit and the export. A handoff that exited 0
// before its kill must have left its target live and exported.
func (s *suite) handoffRandomJobs() []job {
	start, end, err := s.measureHandoff()
	if err != nil {
		return []job{{run: func() []Row {
			return []Row{failed(Row{Family: familyHandoffKill, Case: "handoff random kill", Injection: "(not run)"}, err)}
		}}}
	}
	rng := rand.New(rand.NewPCG(uint64(s.cfg.Seed), 0x68616e646f6666))
	var jobs []job
	for k := 1; k <= s.handoffKills(); k++ {
		delay := start + time.Duration(rng.Int64N(int64(end-start)))
		r := Row{
			Family: familyHandoffKill, Case: fmt.Sprintf("handoff random kill #%d", k),
			Injection: fmt.Sprintf("SIGKILL %s after the start of graft handoff --yes, drawn from [%s, %s) (seed %d)", delay.Round(time.Microsecond), start.Round(100*time.Microsecond), end.Round(100*time.Microsecond), s.cfg.Seed),
			Expected:  "killed: the old host session follows into the source, or the target is live and bound to a host session; finished first: the latter",
		}
		jobs = append(jobs, job{run: func() []Row {
			return []Row{s.inDir(r, func(r Row, dir string) Row { return s.killHandoffAfter(r, dir, delay) })}
		}})
	}
	return jobs
}

func (s *suite) killHandoffAfter(r Row, dir string, delay time.Duration) Row {
	c, err := s.newHandoffCase(dir)
	if err != nil {
		return failed(r, err)
	}
	res, err := s.runChild(child{home: c.home, args: c.args(), killAfter: delay, env: c.env()})
	if err != nil {
		return failed(r, err)
	}
	exp := expect{tmpl: c.tmpl, outcome: eitherWay, recover: s.recoverWithBinary}
	var problems []string
	switch {
	case res.killed:
	case res.exit == 0:
		exp.outcome, exp.target = targetLive, c.tmpl.source()+".g2"
	default:
		problems = append(problems, fmt.Sprintf("the handoff failed on its own before the kill: %s", res))
	}
	observed, more := check(c.home, exp)
	hp, seen := c.hostsHold()
	judge(&r, res.String()+"; "+observed+"; "+seen, append(append(problems, more...), hp...))
	return r
}

// measureHandoff returns the median, over three runs each, of the time a
// handoff takes to reach commit/locked and of an unkilled handoff.
func (s *suite) measureHandoff() (start, end time.Duration, err error) {
	return measureSpan("a handoff", 3, func(at txn.Point) (childResult, string, error) {
		dir, err := s.caseDir("measure-handoff")
		if err != nil {
			return childResult{}, "", err
		}
		c, err := s.newHandoffCase(dir)
		if err != nil {
			return childResult{}, dir, err
		}
		res, err := s.runChild(child{home: c.home, args: c.args(), killAt: at, env: c.env()})
		return res, dir, err
	})
}
