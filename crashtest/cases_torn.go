package crashtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// tornJobs cut the committed target at every offset of its last line, and
// the journal record of a crashed commit at every offset.
func (s *suite) tornJobs() []job {
	return append(s.tornTargetJobs(), s.tornRecordJobs()...)
}

// tornTargetJobs: after a completed commit the target loses the end of its
// last line (a disk that lost the tail). The source is retired and stays
// so: the store reports the torn tail and ignores it, the target still
// reads and stays live, and its next append keeps the cut bytes in
// <target>.jsonl.broken and goes on.
func (s *suite) tornTargetJobs() []job {
	data := s.done.logs[caseTarget]
	start := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	var jobs []job
	for cut := start; cut < len(data); cut++ {
		jobs = append(jobs, job{run: func() []Row { return []Row{s.tornTarget(data, start, cut)} }})
	}
	return jobs
}

func (s *suite) tornTarget(data []byte, start, cut int) Row {
	r := Row{Family: familyTornTarget, Case: fmt.Sprintf("torn target @%d", cut),
		Injection: fmt.Sprintf("committed target cut to %d bytes (its last line spans %d–%d)", cut, start, len(data)),
		Expected:  "torn tail reported and ignored; target reads and stays live; next append keeps the cut bytes in .broken"}
	return s.inCase(r, s.done, func(r Row, home string) Row { return s.cutTarget(r, home, data, start, cut) })
}

func (s *suite) cutTarget(r Row, home string, data []byte, start, cut int) Row {
	path := filepath.Join(home, "sessions", caseTarget+session.Ext)
	if err := os.Truncate(path, int64(cut)); err != nil {
		return failed(r, err)
	}
	observed, problems := check(home, expect{tmpl: s.done, outcome: targetLive, target: caseTarget, damaged: []string{caseTarget}, tornTarget: true, recover: recoverInProcess})
	problems = append(problems, resumeTornTarget(home, path, data[start:cut])...)
	judge(&r, observed, problems)
	return r
}

// resumeTornTarget appends to the live torn target: the append must be
// accepted, the torn bytes kept in .broken, and the log whole again.
func resumeTornTarget(home, path string, torn []byte) []string {
	svc, err := graft.Open(home, graft.Options{SkipRecovery: true})
	if err != nil {
		return []string{fmt.Sprintf("opening %s: %v", home, err)}
	}
	if _, err := svc.Append(caseTarget, []session.Event{{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: "crashtest: resuming the live target after its tail was torn"}}); err != nil {
		return []string{fmt.Sprintf("the live target refused an append after its tail was torn: %v", err)}
	}
	var problems []string
	if len(torn) > 0 {
		kept, err := os.ReadFile(path + ".broken")
		if err != nil {
			problems = append(problems, fmt.Sprintf("the torn bytes were not kept: %v", err))
		} else if !bytes.Equal(kept, torn) {
			problems = append(problems, fmt.Sprintf(".broken holds %d bytes, not the %d torn ones", len(kept), len(torn)))
		}
	}
	st, err := session.OpenStore(svc.FS, svc.Home)
	if err != nil {
		return append(problems, fmt.Sprintf("the sessions directory does not open: %v", err))
	}
	info, err := st.Info(caseTarget)
	if err != nil {
		return append(problems, fmt.Sprintf("the target does not read after the append: %v", err))
	}
	if info.Torn != nil {
		problems = append(problems, "the target still has a torn tail after the append")
	}
	return problems
}

// tornRecord is a journal record that a commit killed at point leaves,
// cut at every offset (every stride-th when sampled) by tornRecordJobs.
type tornRecord struct {
	family string
	point  txn.Point
	state  journal.State
	// outcome once recovery ran: a corrupt record is left, so whether the
	// graft is live is judged from the source alone, as ever.
	outcome outcome
	// why says, for the row, why that outcome holds.
	why string
	// sampled records are cut at every stride-th offset in CI (and at
	// their end); the TARGET_FLUSHED record always at every offset.
	sampled bool
}

var tornRecords = []tornRecord{
	{family: familyTornRecord, point: txn.CommitJournalFlushed, state: journal.TargetFlushed, outcome: sourceStays,
		why: "source usable (no commit point in it)"},
	{family: familyTornPreparing, point: txn.CommitJournalPrepared, state: journal.Preparing, outcome: sourceStays, sampled: true,
		why: "source usable; no target was created"},
	{family: familyTornVerified, point: txn.CommitJournalVerified, state: journal.ColdVerified, outcome: sourceStays, sampled: true,
		why: "source usable (verified, but the commit point was never written)"},
	{family: familyTornRetired, point: txn.CommitSourceRetired, state: journal.ColdVerified, outcome: targetLive, sampled: true,
		why: "target live: the source holds the retire, and liveness is judged from the source"},
}

// tornRecordJobs: a commit killed at a record's point leaves that one
// record, which is cut at every offset (sampled records: every stride-th
// offset and the last two before the closing brace onwards). A cut record
// is corrupt: recovery reports it, leaves it byte for byte as evidence and
// exits non-zero on every run, and the graft stays as the source says:
// rolled back before the commit point (the uncommitted target is not
// resumable), live once the source holds graft/retired (lineage is then
// not recorded until someone removes the evidence). A cut that keeps the
// whole JSON object (only the final newline goes) is a readable record,
// resolved as usual.
func (s *suite) tornRecordJobs() []job {
	var jobs []job
	for _, tr := range tornRecords {
		jobs = append(jobs, s.tornRecordKindJobs(tr)...)
	}
	return jobs
}

func (s *suite) tornRecordKindJobs(tr tornRecord) []job {
	crashed, rec, err := s.crashedTemplate(tr.point, tr.state)
	if err != nil {
		return []job{{run: func() []Row {
			return []Row{failed(Row{Family: tr.family, Case: fmt.Sprintf("torn %s record", tr.state), Injection: fmt.Sprintf("SIGKILL at %s", tr.point)}, err)}
		}}}
	}
	whole := len(bytes.TrimRight(rec, "\n\t "))
	stride := 1
	if tr.sampled {
		stride = s.cfg.TornRecordStride
	}
	var jobs []job
	for _, cut := range tornOffsets(len(rec), whole, stride) {
		jobs = append(jobs, job{run: func() []Row { return []Row{s.tornRecordCase(tr, crashed, rec, cut, cut >= whole)} }})
	}
	return jobs
}

// tornOffsets are the cuts of a record of n bytes whose JSON ends at
// whole: every stride-th offset from 0, and every offset from whole-2 on
// (the last bytes of the object, and the cut that drops only the newline).
func tornOffsets(n, whole, stride int) []int {
	if stride < 1 {
		panic(fmt.Sprintf("crashtest: torn record stride %d (Run sets it to at least 1)", stride))
	}
	var cuts []int
	for cut := 0; cut < n; cut++ {
		if cut%stride == 0 || cut >= whole-2 {
			cuts = append(cuts, cut)
		}
	}
	return cuts
}

// crashedTemplate is the template after a commit killed at point, which
// must leave one record in state, and the bytes of that record.
func (s *suite) crashedTemplate(point txn.Point, state journal.State) (*template, []byte, error) {
	home := filepath.Join(s.work, "template-crashed-"+safeName(string(point)))
	if err := copyTree(s.tmpl.home, home); err != nil {
		return nil, nil, err
	}
	res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), killAt: point})
	if err != nil {
		return nil, nil, err
	}
	if !res.reached {
		return nil, nil, fmt.Errorf("making a crashed home: the child never reached %s (%s)", point, res)
	}
	got, err := onlyRecord(home)
	if err != nil {
		return nil, nil, fmt.Errorf("the home killed at %s: %w", point, err)
	}
	if got.State != state {
		return nil, nil, fmt.Errorf("the home killed at %s holds a %s record, want %s", point, got.State, state)
	}
	rec, err := recordPath(home)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		return nil, nil, err
	}
	t := &template{home: home, sources: s.tmpl.sources, reviews: s.tmpl.reviews}
	// The crashed home's logs are the prepared template's: the commit at
	// most appended graft/retired to the source, which the checker allows,
	// and the target is not the template's.
	t.logs = map[string][]byte{s.tmpl.source(): s.tmpl.logs[s.tmpl.source()]}
	return t, data, nil
}

// recordPath is the one record file of a crashed home.
func recordPath(home string) (string, error) {
	dir := filepath.Join(home, journal.DirName)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(ents) != 1 {
		return "", fmt.Errorf("expected one record in %s, found %d entries", dir, len(ents))
	}
	return filepath.Join(dir, ents[0].Name()), nil
}

func (s *suite) tornRecordCase(tr tornRecord, crashed *template, rec []byte, cut int, readable bool) Row {
	r := Row{Family: tr.family, Case: fmt.Sprintf("torn %s record @%d", tr.state, cut),
		Injection: fmt.Sprintf("SIGKILL at %s; its %s record cut to %d of %d bytes", tr.point, tr.state, cut, len(rec)),
		Expected:  "corrupt record reported and left as evidence, recover exits non-zero; " + tr.why}
	if readable {
		r.Expected = "still a whole record, resolved: " + pointText(tr.point, tr.outcome) + "; scanned=0 after"
	}
	return s.inCase(r, crashed, func(r Row, home string) Row { return s.cutRecord(r, home, tr, crashed, rec, cut, readable) })
}

func (s *suite) cutRecord(r Row, home string, tr tornRecord, crashed *template, rec []byte, cut int, readable bool) Row {
	path, err := recordPath(home)
	if err != nil {
		return failed(r, err)
	}
	if err := os.Truncate(path, int64(cut)); err != nil {
		return failed(r, err)
	}
	recover := s.recoverWithBinary
	if s.tornRecordRecoverer != nil {
		recover = s.tornRecordRecoverer
	}
	observed, problems := check(home, expect{tmpl: crashed, outcome: tr.outcome, target: caseTarget, corruptRecord: !readable, recover: recover})
	if !readable {
		kept, err := os.ReadFile(path)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("the corrupt record was not left as evidence: %v", err))
		case !bytes.Equal(kept, rec[:cut]):
			problems = append(problems, "the corrupt record was changed")
		}
	}
	judge(&r, observed, problems)
	return r
}
