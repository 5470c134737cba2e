package crashtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/crashfs"
)

// powerJobs record a commit and a revert on crashfs and check recovery on
// every power-loss state of each recording, and on what survives right
// after the call returned (nothing the user was told is lost).
func (s *suite) powerJobs() []job {
	var jobs []job
	jobs = append(jobs, s.powerRun(familyPowerCommit, s.tmpl, "commit", targetLive, func(svc *graft.Service) error {
		r := s.tmpl.reviews[s.tmpl.source()]
		_, err := svc.Commit(context.Background(), r.PreparedID, r.TapeHash, caseTarget)
		return err
	})...)
	jobs = append(jobs, s.powerRun(familyPowerRevert, s.done, "revert", sourceStays, func(svc *graft.Service) error {
		_, err := svc.Revert(caseTarget, false)
		return err
	})...)
	return jobs
}

// powerRun records op on a crashfs loaded from tmpl and returns one job per
// crash state plus one for the state right after op returned (whose
// outcome is done). A recording that cannot be made is one failed row.
func (s *suite) powerRun(family string, tmpl *template, what string, done outcome, op func(*graft.Service) error) []job {
	fail := func(err error) []job {
		return []job{{run: func() []Row {
			return []Row{failed(Row{Family: family, Case: family + " recording", Injection: "power loss during " + what}, err)}
		}}}
	}
	dir, err := s.caseDir(family + "-recording")
	if err != nil {
		return fail(err)
	}
	// catalog.db and locks/ are real files (bbolt and flock need them);
	// sessions/ and .txn/ live in the recorded crashfs.
	runHome := filepath.Join(dir, "home")
	if err := copyTree(tmpl.home, runHome); err != nil {
		return fail(err)
	}
	mem, err := crashfs.LoadDir(tmpl.home)
	if err != nil {
		return fail(err)
	}
	mem.StartRecording()
	svc, err := graft.Open(runHome, graft.Options{FS: &homeFS{mem: mem, home: runHome}, Faults: s.cfg.Faults})
	if err != nil {
		return fail(fmt.Errorf("opening the recorded home: %w", err))
	}
	if err := op(svc); err != nil {
		return fail(fmt.Errorf("the recorded %s failed: %w", what, err))
	}
	returned := mem.CrashClone()
	states, err := mem.CrashStates()
	if err != nil {
		return fail(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fail(err)
	}
	ops := mem.RecordedOps()
	jobs := []job{{run: func() []Row {
		return []Row{s.powerState(Row{
			Case:      fmt.Sprintf("%s returned", family),
			Injection: fmt.Sprintf("power loss right after the %s returned success (%d recorded operations)", what, ops),
			Expected:  "what the user was told survives: " + expectedText(done, caseTarget),
		}, tmpl, returned, done)}
	}}}
	for k, st := range states {
		jobs = append(jobs, job{run: func() []Row {
			return []Row{s.powerState(Row{
				Family: family, Case: fmt.Sprintf("%s state %d/%d", family, k+1, len(states)),
				Injection: "power loss " + st.Name, Expected: expectedText(eitherWay, ""),
			}, tmpl, st.FS, eitherWay)}
		}})
	}
	return jobs
}

// powerState writes one crash state to a fresh home on disk and checks it,
// recovering in-process.
func (s *suite) powerState(r Row, tmpl *template, state *crashfs.FS, o outcome) Row {
	return s.inDir(r, func(r Row, dir string) Row {
		home := filepath.Join(dir, "home")
		if err := state.WriteTo(home); err != nil {
			return failed(r, err)
		}
		observed, problems := check(home, expect{tmpl: tmpl, outcome: o, target: caseTarget, recover: recoverInProcess})
		judge(&r, observed, problems)
		return r
	})
}

// homeFS shows a crashfs loaded from a home (LoadDir makes the home "/")
// under the home's real path, so the graft service can run on it with the
// same home string it gives catalog.db and the lock files on disk.
type homeFS struct {
	mem  *crashfs.FS
	home string
}

var _ vfs.FS = (*homeFS)(nil)

// errOutsideHome: graft touched a path outside its home through the FS.
var errOutsideHome = errors.New("crashtest: path outside the recorded home")

func (h *homeFS) path(op, name string) (string, error) {
	rel, err := filepath.Rel(h.home, name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &fs.PathError{Op: op, Path: name, Err: errOutsideHome}
	}
	return filepath.Join("/", rel), nil
}

func (h *homeFS) Open(name string) (vfs.File, error) {
	p, err := h.path("open", name)
	if err != nil {
		return nil, err
	}
	return h.mem.Open(p)
}

func (h *homeFS) Create(name string, perm os.FileMode) (vfs.File, error) {
	p, err := h.path("create", name)
	if err != nil {
		return nil, err
	}
	return h.mem.Create(p, perm)
}

func (h *homeFS) OpenAppend(name string) (vfs.File, error) {
	p, err := h.path("openappend", name)
	if err != nil {
		return nil, err
	}
	return h.mem.OpenAppend(p)
}

func (h *homeFS) WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	p, err := h.path("writeatomic", name)
	if err != nil {
		return err
	}
	return h.mem.WriteFileAtomic(p, data, perm)
}

func (h *homeFS) Rename(oldname, newname string) error {
	o, err := h.path("rename", oldname)
	if err != nil {
		return err
	}
	n, err := h.path("rename", newname)
	if err != nil {
		return err
	}
	return h.mem.Rename(o, n)
}

func (h *homeFS) Link(oldname, newname string) error {
	o, err := h.path("link", oldname)
	if err != nil {
		return err
	}
	n, err := h.path("link", newname)
	if err != nil {
		return err
	}
	return h.mem.Link(o, n)
}

func (h *homeFS) Remove(name string) error {
	p, err := h.path("remove", name)
	if err != nil {
		return err
	}
	return h.mem.Remove(p)
}

func (h *homeFS) MkdirAll(dir string, perm os.FileMode) error {
	p, err := h.path("mkdirall", dir)
	if err != nil {
		return err
	}
	return h.mem.MkdirAll(p, perm)
}

func (h *homeFS) ReadDir(dir string) ([]os.DirEntry, error) {
	p, err := h.path("readdir", dir)
	if err != nil {
		return nil, err
	}
	return h.mem.ReadDir(p)
}

func (h *homeFS) Lstat(name string) (os.FileInfo, error) {
	p, err := h.path("lstat", name)
	if err != nil {
		return nil, err
	}
	return h.mem.Lstat(p)
}

func (h *homeFS) SyncDir(dir string) error {
	p, err := h.path("syncdir", dir)
	if err != nil {
		return err
	}
	return h.mem.SyncDir(p)
}
