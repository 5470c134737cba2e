package crashtest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/graft-project/graft/graft"
)

// l2Jobs: ENOSPC and EACCES, each for real where the machine allows it
// and through the filesystem seam always.
func (s *suite) l2Jobs() []job {
	return append([]job{{run: s.realENOSPC}, s.realEACCES()}, s.injectedJobs()...)
}

// exitOf is the exit code of a stable error code (graft.ExitCodes).
func exitOf(code string) int {
	for _, c := range graft.ExitCodes() {
		if string(c.Code) == code {
			return c.Exit
		}
	}
	panic(fmt.Sprintf("crashtest: graft has no error code %q", code))
}

// tmpfsSize is the size of the tmpfs a real ENOSPC case runs on; a filler
// file then takes all of it but a few pages.
const tmpfsSize = 4 << 20

// realENOSPC runs the commit on a size-limited tmpfs whose free space a
// filler file took, leaving k pages for k = 0, 1, 2, … until the commit
// fits: each k fails at a later step (journal, target, record, catalog).
// After each failure the disk is freed and recovery runs twice.
func (s *suite) realENOSPC() []Row {
	base := Row{Family: "L2a/tmpfs", Case: "L2a tmpfs", Expected: fmt.Sprintf("fails with no_space (exit %d) until the tape fits; source usable, target never resumable", exitOf("no_space"))}
	if os.Geteuid() != 0 {
		return []Row{skipped(base, "real ENOSPC needs root to mount a tmpfs; skipped (the injected variant ran)")}
	}
	page := os.Getpagesize()
	var rows []Row
	hitTarget := false
	for k := 0; k <= 64; k++ {
		r := base
		r.Case = fmt.Sprintf("L2a tmpfs, %d free pages", k)
		r.Injection = fmt.Sprintf("real ENOSPC: GRAFT_HOME on a %d KiB tmpfs filled but %d pages of %d bytes", tmpfsSize>>10, k, page)
		row, committed, targetFull, mountErr := s.enospcCase(r, k, page)
		if mountErr != nil {
			if errors.Is(mountErr, syscall.EPERM) || errors.Is(mountErr, syscall.EACCES) {
				return []Row{skipped(base, fmt.Sprintf("mounting a tmpfs is not permitted here (%v); skipped (the injected variant ran)", mountErr))}
			}
			return append(rows, failed(r, mountErr))
		}
		hitTarget = hitTarget || targetFull
		rows = append(rows, row)
		if committed {
			if !hitTarget {
				last := &rows[len(rows)-1]
				last.Result = Fail
				last.Observed = "FAILED: no fill level made the target's write fail with ENOSPC — " + last.Observed
			}
			return rows
		}
	}
	return append(rows, failed(base, errors.New("the commit never fit in 64 free pages")))
}

// enospcCase is one fill level. mountErr is set only when the tmpfs could
// not be mounted.
func (s *suite) enospcCase(r Row, freePages, page int) (row Row, committed, targetFull bool, mountErr error) {
	dir, err := s.caseDir(r.Case)
	if err != nil {
		return failed(r, err), false, false, nil
	}
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		return failed(r, err), false, false, nil
	}
	if err := mountTmpfs(mnt, fmt.Sprintf("size=%d,mode=0700", tmpfsSize)); err != nil {
		return r, false, false, errors.Join(fmt.Errorf("mount -t tmpfs -o size=%d tmpfs %s: %w", tmpfsSize, mnt, err), os.RemoveAll(dir))
	}
	r, committed, targetFull = s.onFullTmpfs(r, mnt, freePages, page)
	if err := unmount(mnt); err != nil {
		r.Result = Fail
		r.Observed = fmt.Sprintf("FAILED: %v — %s", err, r.Observed)
		return r, committed, targetFull, nil
	}
	s.finish(dir, &r)
	return r, committed, targetFull, nil
}

// onFullTmpfs copies the template onto the mounted tmpfs, fills it but
// freePages, commits, frees the disk and checks.
func (s *suite) onFullTmpfs(r Row, mnt string, freePages, page int) (row Row, committed, targetFull bool) {
	home := filepath.Join(mnt, "home")
	if err := copyTree(s.tmpl.home, home); err != nil {
		return failed(r, err), false, false
	}
	filler := filepath.Join(mnt, "filler")
	if err := fill(filler, tmpfsSize-freePages*page); err != nil {
		return failed(r, err), false, false
	}
	res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget)})
	if err != nil {
		return failed(r, err), false, false
	}
	exp := expect{tmpl: s.tmpl, outcome: sourceStays, recover: s.recoverWithBinary,
		// The user frees the disk; only then can recovery finish.
		beforeRecover: func() error { return os.Remove(filler) }}
	var problems []string
	switch {
	case res.exit == 0:
		committed = true
		exp.outcome, exp.target = targetLive, caseTarget
	case res.exit != exitOf("no_space"):
		problems = append(problems, fmt.Sprintf("expected exit %d (no_space), got %s", exitOf("no_space"), res))
	}
	targetFull = strings.Contains(res.stderr, "writing target")
	observed, more := check(home, exp)
	judge(&r, relative(res.String(), home)+"; "+observed, append(problems, more...))
	return r, committed, targetFull
}

// unmount unmounts mnt, retrying while it is busy for up to two seconds: a
// child another case forks in that instant holds this process's open
// descriptors until it execs. Still busy, the mount is detached (so it
// does not outlive the suite) and the error returned.
func unmount(mnt string) error {
	var err error
	for try := 0; try < 100; try++ {
		if err = unmountFS(mnt, false); !errors.Is(err, syscall.EBUSY) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if errors.Is(err, syscall.EBUSY) {
		return errors.Join(fmt.Errorf("umount %s: %w", mnt, err), unmountFS(mnt, true))
	}
	if err != nil {
		return fmt.Errorf("umount %s: %w", mnt, err)
	}
	return nil
}

// fill writes zeros to path until the disk is full (ENOSPC), then cuts the
// file to keep, freeing the rest.
func fill(path string, keep int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	zeros := make([]byte, 64<<10)
	for {
		_, err := f.Write(zeros)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			return errors.Join(fmt.Errorf("filling %s: %w", path, err), f.Close())
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return errors.Join(err, f.Close())
	}
	if int64(keep) < fi.Size() {
		if err := f.Truncate(int64(keep)); err != nil {
			return errors.Join(fmt.Errorf("cutting %s: %w", path, err), f.Close())
		}
	}
	return f.Close()
}

func skipped(r Row, why string) Row {
	r.Result, r.Observed = Skip, why
	if r.Injection == "" {
		r.Injection = "(not run)"
	}
	return r
}

// nobodyCase is the real EACCES case, set up before any case runs: the
// binary is copied where nobody can execute it while no other goroutine
// forks, since a child forked meanwhile would inherit the copy's write
// descriptor and make exec fail with ETXTBSY.
type nobodyCase struct {
	row      Row
	dir, bin string
	cred     *syscall.Credential
}

// realEACCES runs the commit as nobody against a home it can read and
// whose journal and locks it can write, but whose sessions/ it cannot:
// root ignores permissions, so the child must not be root.
func (s *suite) realEACCES() job {
	nc := s.setUpNobody()
	return job{run: func() []Row {
		if nc.dir == "" {
			return []Row{nc.row}
		}
		r := s.asNobody(nc)
		s.finish(nc.dir, &r)
		return []Row{r}
	}}
}

// setUpNobody returns the case with its directory and binary ready, or
// with only a skipped or failed row when it cannot run here.
func (s *suite) setUpNobody() nobodyCase {
	r := Row{Case: "L2b nobody", Injection: "real EACCES: the child runs as nobody; sessions/ is root's, mode 0755",
		Expected: fmt.Sprintf("fails at create with permission_denied (exit %d), source usable", exitOf("permission_denied"))}
	if os.Geteuid() != 0 {
		return nobodyCase{row: skipped(r, "real EACCES needs root to run a child as nobody; skipped (the injected variant ran)")}
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		return nobodyCase{row: skipped(r, fmt.Sprintf("no user nobody here (%v); skipped (the injected variant ran)", err))}
	}
	uid, err1 := strconv.ParseUint(nobody.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(nobody.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nobodyCase{row: failed(r, fmt.Errorf("user nobody: %w", err))}
	}
	// The work directory may be private to root: nobody needs a path it can
	// traverse, so this case lives in a directory of its own.
	dir, err := os.MkdirTemp("", "graft-crashtest-eacces-")
	if err != nil {
		return nobodyCase{row: failed(r, err)}
	}
	bin := filepath.Join(dir, "graft")
	if err := errors.Join(os.Chmod(dir, 0o711), copyExecutable(s.bin, bin)); err != nil {
		return nobodyCase{row: failed(r, errors.Join(err, os.RemoveAll(dir)))}
	}
	return nobodyCase{row: r, dir: dir, bin: bin, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
}

// asNobody sets up a home that nobody can read but whose sessions/ it
// cannot write, and commits in it as nobody.
func (s *suite) asNobody(nc nobodyCase) Row {
	r := nc.row
	home := filepath.Join(nc.dir, "home")
	if err := copyTree(s.tmpl.home, home); err != nil {
		return failed(r, err)
	}
	if err := chownTree(home, int(nc.cred.Uid), int(nc.cred.Gid)); err != nil {
		return failed(r, err)
	}
	sessions := filepath.Join(home, "sessions")
	if err := errors.Join(os.Chown(sessions, 0, 0), os.Chmod(sessions, 0o755)); err != nil {
		return failed(r, err)
	}
	res, err := s.runChild(child{home: home, args: commitArgs(s.tmpl.reviews[s.tmpl.source()], caseTarget), bin: nc.bin, asUser: nc.cred})
	if err != nil {
		return failed(r, err)
	}
	var problems []string
	if res.exit != exitOf("permission_denied") {
		problems = append(problems, fmt.Sprintf("expected exit %d (permission_denied), got %s", exitOf("permission_denied"), res))
	} else if !strings.Contains(res.stderr, "writing target") {
		problems = append(problems, fmt.Sprintf("expected the failure at the target's create: %s", firstLine(res.stderr)))
	}
	observed, more := check(home, expect{tmpl: s.tmpl, outcome: sourceStays, recover: s.recoverWithBinary})
	judge(&r, relative(res.String(), home)+"; "+observed, append(problems, more...))
	return r
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}

func chownTree(root string, uid, gid int) error {
	return filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
