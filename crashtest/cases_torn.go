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
	info, err := svc.Store().Info(caseTarget)
	if err != nil {
		return append(problems, fmt.Sprintf("the target does not read after the append: %v", err))
	}
	if info.Torn != nil {
		problems = append(problems, "the target still has a torn tail after the append")
	}
	return problems
}

// tornRecordJobs: a commit killed after TARGET_FLUSHED (before its commit
// point) leaves one journal record; the record is cut at every offset.
// A cut record is corrupt: recovery reports it, leaves it in place as
// evidence and exits non-zero, and the source stays usable (the target,
// uncommitted in its parent, cannot be resumed). A cut that keeps the
// whole JSON object (only the final newline goes) is a readable record
// and is rolled back as usual.
func (s *suite) tornRecordJobs() []job {
	crashed, rec, err := s.crashedTemplate()
	if err != nil {
		return []job{{run: func() []Row { return []Row{failed(Row{Family: familyTornRecord, Case: "torn record"}, err)} }}}
	}
	whole := len(bytes.TrimRight(rec, "\n\t "))
	var jobs []job
	for cut := 0; cut < len(rec); cut++ {
		jobs = append(jobs, job{run: func() []Row { return []Row{s.tornRecord(crashed, rec, cut, cut >= whole)} }})
	}
	return jobs
}

// crashedTemplate is the template after a commit killed at
// commit/journal-flushed:after, and the bytes of its record.
func (s *suite) crashedTemplate() (*template, []byte, error) {
	home := filepath.Join(s.work, "template-crashed")
	if err := copyTree(s.tmpl.home, home); err != nil {
		return nil, nil, err
	}
	res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), killAt: txn.CommitJournalFlushed})
	if err != nil {
		return nil, nil, err
	}
	if !res.reached {
		return nil, nil, fmt.Errorf("making a crashed home: the child never reached %s (%s)", txn.CommitJournalFlushed, res)
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
	// The crashed home's logs are the prepared template's: the commit never
	// touched the source, and the uncommitted target is not the template's.
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

func (s *suite) tornRecord(crashed *template, rec []byte, cut int, readable bool) Row {
	r := Row{Family: familyTornRecord, Case: fmt.Sprintf("torn record @%d", cut),
		Injection: fmt.Sprintf("TARGET_FLUSHED record cut to %d of %d bytes", cut, len(rec)),
		Expected:  "corrupt record reported and left as evidence, recover exits non-zero; source usable"}
	if readable {
		r.Expected = "still a whole record: rolled back; source usable; scanned=0 after"
	}
	return s.inCase(r, crashed, func(r Row, home string) Row { return s.cutRecord(r, home, crashed, rec, cut, readable) })
}

func (s *suite) cutRecord(r Row, home string, crashed *template, rec []byte, cut int, readable bool) Row {
	path, err := recordPath(home)
	if err != nil {
		return failed(r, err)
	}
	if err := os.Truncate(path, int64(cut)); err != nil {
		return failed(r, err)
	}
	observed, problems := check(home, expect{tmpl: crashed, outcome: sourceStays, corruptRecord: !readable, recover: s.recoverWithBinary})
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
