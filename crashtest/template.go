package crashtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/txn"
)

// caseTarget is the target id every single-target case commits to.
const caseTarget = "tgt"

// review is a prepared review in a template's catalog.
type review struct {
	PreparedID string `json:"preparedId"`
	TapeHash   string `json:"tapeHash"`
}

// template is a home built once by the real binary and copied for every
// case: generated sources, each prepared; optionally a committed graft.
type template struct {
	home    string
	sources []string          // the sessions that are not graft targets
	reviews map[string]review // by source
	target  string            // the live target of a committed template, "" otherwise
	logs    map[string][]byte // every session log's bytes
}

// prepareTemplate generates and prepares sources in a new home under the
// work directory, with `graft gen` and `graft prepare`.
func (s *suite) prepareTemplate(name string, sources ...string) (*template, error) {
	home := filepath.Join(s.work, name)
	t := &template{home: home, sources: sources, reviews: map[string]review{}}
	for k, src := range sources {
		if _, err := s.runGraft(home, "gen", src, "--turns", strconv.Itoa(s.cfg.Turns), "--events", strconv.Itoa(s.cfg.Events), "--seed", strconv.Itoa(k+1), "--json"); err != nil {
			return nil, fmt.Errorf("crashtest: template %s: %w", name, err)
		}
		out, err := s.runGraft(home, "prepare", src, "--json")
		if err != nil {
			return nil, fmt.Errorf("crashtest: template %s: %w", name, err)
		}
		var r review
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			return nil, fmt.Errorf("crashtest: template %s: reading the review of %s: %w", name, src, err)
		}
		if r.PreparedID == "" || r.TapeHash == "" {
			return nil, fmt.Errorf("crashtest: template %s: the review of %s has no preparedId or tapeHash: %s", name, src, out)
		}
		t.reviews[src] = r
	}
	if err := t.readLogs(); err != nil {
		return nil, err
	}
	return t, nil
}

// committedTemplate is a copy of tmpl whose source was grafted into
// caseTarget by an unkilled commit: the start of every revert case.
func (s *suite) committedTemplate(tmpl *template) (*template, error) {
	home := filepath.Join(s.work, "template-committed")
	if err := copyTree(tmpl.home, home); err != nil {
		return nil, err
	}
	src := tmpl.sources[0]
	r := tmpl.reviews[src]
	if _, err := s.runGraft(home, commitArgs(r, caseTarget)...); err != nil {
		return nil, fmt.Errorf("crashtest: committed template: %w", err)
	}
	t := &template{home: home, sources: []string{src}, reviews: tmpl.reviews, target: caseTarget}
	if err := t.readLogs(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *template) readLogs() error {
	t.logs = map[string][]byte{}
	dir := filepath.Join(t.home, "sessions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("crashtest: template %s: %w", t.home, err)
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), session.Ext)
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return fmt.Errorf("crashtest: template %s: %w", t.home, err)
		}
		t.logs[id] = b
	}
	return nil
}

func (t *template) source() string { return t.sources[0] }

func commitArgs(r review, target string) []string {
	return []string{"commit", r.PreparedID, "--hash", r.TapeHash, "--target", target, "--json"}
}

// checkArmed refuses a binary whose crash points are not compiled in: with
// GRAFT_CRASH_POINT set it must stop at the point instead of committing.
func (s *suite) checkArmed() (err error) {
	dir, home, err := s.caseHome(s.tmpl, "armed-check")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), killAt: txn.CommitLocked})
	if err != nil {
		return fmt.Errorf("crashtest: checking that %s has crash points: %w", s.bin, err)
	}
	if !res.reached {
		return fmt.Errorf("crashtest: %s was not built with -tags crashpoints: with GRAFT_CRASH_POINT=%s it did not stop (%s)", s.bin, txn.CommitLocked, res)
	}
	return nil
}

// caseHome copies tmpl into a new case directory and returns the directory
// and the home in it; the directory also holds whatever else the case makes.
func (s *suite) caseHome(tmpl *template, name string) (dir, home string, err error) {
	dir, err = s.caseDir(name)
	if err != nil {
		return "", "", err
	}
	home = filepath.Join(dir, "home")
	if err := copyTree(tmpl.home, home); err != nil {
		return "", "", err
	}
	return dir, home, nil
}

func (s *suite) caseDir(name string) (string, error) {
	s.mu.Lock()
	s.next++
	n := s.next
	s.mu.Unlock()
	dir := filepath.Join(s.work, "cases", fmt.Sprintf("%05d-%s", n, safeName(name)))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("crashtest: case directory: %w", err)
	}
	return dir, nil
}

// inCase runs body on a fresh copy of tmpl, then finishes the case
// directory with the row body returned.
func (s *suite) inCase(r Row, tmpl *template, body func(r Row, home string) Row) Row {
	dir, home, err := s.caseHome(tmpl, r.Case)
	if err != nil {
		return failed(r, err)
	}
	r = body(r, home)
	s.finish(dir, &r)
	return r
}

// inDir runs body in a fresh, empty case directory, then finishes it.
func (s *suite) inDir(r Row, body func(r Row, dir string) Row) Row {
	dir, err := s.caseDir(r.Case)
	if err != nil {
		return failed(r, err)
	}
	r = body(r, dir)
	s.finish(dir, &r)
	return r
}

// finish removes a case directory after a pass; a failing case's directory
// is kept when the caller owns the work directory, and its path returned.
func (s *suite) finish(dir string, r *Row) {
	if r.Result == Fail && s.keep {
		r.Observed += " [kept: " + dir + "]"
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		r.Result = Fail
		r.Observed += fmt.Sprintf(" [removing the case directory: %v]", err)
	}
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
}

// copyTree copies directories and regular files, keeping modes. Anything
// else (a symlink, a socket) is an error: templates hold none.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("crashtest: copying %s: %w", src, err)
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("crashtest: copying %s: %w", p, err)
		}
		switch {
		case d.IsDir():
			if err := os.MkdirAll(to, 0o700); err != nil {
				return fmt.Errorf("crashtest: copying %s: %w", p, err)
			}
			return os.Chmod(to, info.Mode().Perm())
		case d.Type().IsRegular():
			return copyFile(p, to, info.Mode().Perm())
		}
		return fmt.Errorf("crashtest: copying %s: unexpected file type %v", p, d.Type())
	})
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return fmt.Errorf("crashtest: copying %s: %w", from, err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("crashtest: copying %s: %w", from, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(fmt.Errorf("crashtest: copying %s: %w", from, err), out.Close())
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("crashtest: copying %s: %w", from, err)
	}
	return nil
}

// BuildCrashBinary builds graft with -tags crashpoints into dir, from the
// module that holds the working directory (go env GOMOD), and returns the
// binary's path.
func BuildCrashBinary(dir string) (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "graft-crash")
	cmd := exec.Command("go", "build", "-tags", "crashpoints", "-o", out, "./cmd/graft")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("crashtest: go build -tags crashpoints ./cmd/graft in %s: %w\n%s", root, err, msg)
	}
	return out, nil
}

// ModuleRoot is the directory of the go.mod that holds the working
// directory, as go env GOMOD names it.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("crashtest: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("crashtest: the working directory is not inside a Go module: run from the graft module, or pass a binary built with -tags crashpoints (graft crashtest --bin)")
	}
	return filepath.Dir(gomod), nil
}

// since formats an elapsed time for a row.
