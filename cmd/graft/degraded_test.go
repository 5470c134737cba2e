package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/session"
)

// seedDegradedHome writes a home with session s grafted into s.g2, a
// review of s.g2 (its preparedId is returned) and no index/ (recall then
// reads the logs from their start).
func seedDegradedHome(t *testing.T, home string) string {
	t.Helper()
	svc, err := graft.Open(home, graft.Options{})
	if err != nil {
		t.Fatal(err)
	}
	user := session.Source{Kind: session.KindUser}
	asst := session.Source{Kind: session.KindAssistant}
	if err := sessionsOf(t, svc).Create("s", []session.Event{
		{Type: session.TypeUserMessage, Source: user, Text: "Goal: a recovery test for the store. Never delete a session log; retire it instead."},
		{Type: session.TypeAssistantMessage, Source: asst, Text: "Reading store.go first."},
		{Type: session.TypeUserMessage, Source: user, Text: "Now write store_test.go."},
		{Type: session.TypeAssistantMessage, Source: asst, Text: "Writing it."},
	}); err != nil {
		t.Fatal(err)
	}
	rv, err := svc.Prepare(context.Background(), "s", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "s.g2"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Append("s.g2", []session.Event{{Type: session.TypeUserMessage, Source: user, Text: "Carry on."}}); err != nil {
		t.Fatal(err)
	}
	rv, err = svc.Prepare(context.Background(), "s.g2", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(home, "index")); err != nil {
		t.Fatal(err)
	}
	return rv.PreparedID
}

// readCmd is one command run against a damaged catalog, and what it must
// do: work (exit 0, stdout holding want) or fail with exit code failExit,
// naming catalog.db.
type readCmd struct {
	args     []string
	want     string // on stdout, when it works
	failExit int    // 0: must work
}

func readCmds(review string) []readCmd {
	return []readCmd{
		{args: []string{"status"}, want: "s.g2"},
		{args: []string{"status", "--json"}, want: `"catalogError"`},
		{args: []string{"status", "--lineage", "s.g2"}, want: "s.g2"},
		{args: []string{"recall", "s", "3"}, want: "Now write store_test.go"},
		{args: []string{"recall", "s.g2", "1"}, want: "graft/origin"},
		{args: []string{"audit", "s.g2"}, want: "audit passed"},
		{args: []string{"show", "s"}, want: "Now write store_test.go"},
		{args: []string{"show", "--prepared", review}, failExit: -1},
		{args: []string{"prepare", "s.g2"}, failExit: -1},
	}
}

// TestReadCommandsWithADamagedCatalog runs the real CLI against a
// catalog.db that is truncated, garbage, a directory, or held by another
// process (this test's, through bbolt). status, audit and the lineage
// answer from the logs (exit 0) and warn on stderr, naming catalog.db and
// what to do; show and recall, which never read catalog.db, answer with
// nothing to warn about; show --prepared and prepare, which need the
// catalog, fail naming it and what to do. Then recover --rebuild-catalog
// moves a damaged catalog aside and rebuilds it.
func TestReadCommandsWithADamagedCatalog(t *testing.T) {
	bin := graftBinary(t)
	for _, d := range []struct {
		name     string
		damage   func(t *testing.T, home string)
		advice   string
		failExit int // of prepare and show --prepared
	}{
		{"truncated", func(t *testing.T, home string) {
			truncateIntoUsedPages(t, filepath.Join(home, catalog.FileName))
		}, "graft recover --rebuild-catalog", 51},
		{"garbage", func(t *testing.T, home string) {
			b := make([]byte, 128<<10)
			if _, err := rand.Read(b); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, catalog.FileName), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "graft recover --rebuild-catalog", 51},
		{"a directory", func(t *testing.T, home string) {
			path := filepath.Join(home, catalog.FileName)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "graft recover --rebuild-catalog", 51},
		{"held by another process", func(t *testing.T, home string) {
			db, err := catalog.Open(home, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := db.Close(); err != nil {
					t.Error(err)
				}
			})
		}, "held by another process", 32},
	} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			review := seedDegradedHome(t, home)
			d.damage(t, home)
			for _, c := range readCmds(review) {
				t.Run(strings.Join(c.args, " "), func(t *testing.T) {
					t.Parallel()
					r := runGraft(t, bin, home, "", nil, time.Minute, c.args...)
					checkDegraded(t, c, r, d.advice, d.failExit)
				})
			}
		})
	}
}

func checkDegraded(t *testing.T, c readCmd, r result, advice string, failExit int) {
	t.Helper()
	if c.failExit != 0 {
		if r.exit != failExit || !strings.Contains(r.stderr, "catalog.db") || !strings.Contains(r.stderr, advice) {
			t.Fatalf("graft %s: exit %d, want %d and an error naming catalog.db and %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), r.exit, failExit, advice, r.stdout, r.stderr)
		}
		return
	}
	if r.exit != 0 || !strings.Contains(r.stdout, c.want) {
		t.Fatalf("graft %s: exit %d, want 0 and %q on stdout\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), r.exit, c.want, r.stdout, r.stderr)
	}
	if (c.args[0] == "show" && len(c.args) == 2) || c.args[0] == "recall" {
		return // show reads the log alone, recall index/ and the log: nothing to warn about
	}
	warned := false
	for _, line := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(line, "warning: ") && strings.Contains(line, "catalog.db") && strings.Contains(line, advice) && strings.Contains(line, "log") {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("graft %s worked without saying on stderr that it read the logs instead of catalog.db (and %q)\nstderr: %s", strings.Join(c.args, " "), advice, r.stderr)
	}
	if c.args[0] == "status" && len(c.args) == 2 {
		var st struct {
			CatalogError string `json:"catalogError"`
			Sessions     []struct{ ID string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || !strings.Contains(st.CatalogError, advice) || len(st.Sessions) != 2 {
			t.Fatalf("graft status --json: %v, %+v", err, st)
		}
	}
}

// TestRebuildCatalogMovesADamagedOneAside: before, recover
// --rebuild-catalog failed on a damaged catalog with the very error it
// should repair. Now the damaged file is kept as catalog.db.corrupt-<time>
// and a new catalog is derived from the logs.
func TestRebuildCatalogMovesADamagedOneAside(t *testing.T) {
	bin := graftBinary(t)
	home := t.TempDir()
	seedDegradedHome(t, home)
	path := filepath.Join(home, catalog.FileName)
	truncateIntoUsedPages(t, path)
	damaged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := runGraft(t, bin, home, "", nil, time.Minute, "recover", "--rebuild-catalog", "--json")
	var out struct {
		Rebuild struct {
			MovedAside string `json:"movedAside"`
			Nodes      int    `json:"nodes"`
		} `json:"rebuild"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); r.exit != 0 || err != nil || out.Rebuild.Nodes != 1 || !strings.HasPrefix(filepath.Base(out.Rebuild.MovedAside), "catalog.db.corrupt-") {
		t.Fatalf("recover --rebuild-catalog of a damaged catalog: exit %d, %v, %+v\nstdout: %s\nstderr: %s", r.exit, err, out, r.stdout, r.stderr)
	}
	if kept, err := os.ReadFile(out.Rebuild.MovedAside); err != nil || !bytes.Equal(kept, damaged) {
		t.Fatalf("the damaged catalog was not kept as it was: %v", err)
	}
	r = runGraft(t, bin, home, "", nil, time.Minute, "status")
	if r.exit != 0 || strings.Contains(r.stderr, "warning") || strings.Contains(r.stdout, "catalog not read") {
		t.Fatalf("status after the rebuild: exit %d\nstdout: %s\nstderr: %s", r.exit, r.stdout, r.stderr)
	}
	if r := runGraft(t, bin, home, "", nil, time.Minute, "prepare", "s.g2"); r.exit != 0 {
		t.Fatalf("prepare after the rebuild: exit %d\nstderr: %s", r.exit, r.stderr)
	}
	// A healthy catalog is rebuilt in place, nothing moved.
	r = runGraft(t, bin, home, "", nil, time.Minute, "recover", "--rebuild-catalog")
	if r.exit != 0 || strings.Contains(r.stdout, "moved aside") {
		t.Fatalf("recover --rebuild-catalog of a healthy catalog: exit %d\nstdout: %s\nstderr: %s", r.exit, r.stdout, r.stderr)
	}
}

// nobody returns the credentials of user nobody, or skips the test: a
// denied read or write is real only for a user who is not root.
func nobody(t *testing.T, variant string) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root to run the CLI as nobody (root ignores file modes); %s covers the rule with an injected EACCES", variant)
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody here (%v); %s covers the rule with an injected EACCES", err, variant)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		t.Fatalf("user nobody: %v %v", err1, err2)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// readOnlyCmds: against a catalog that can be read but not written, reads
// need not degrade at all; prepare cannot store its review (exit 20,
// permission_denied, saying catalog.db must be writable).
func checkReadOnly(t *testing.T, bin, home string, cred *syscall.Credential, review string) {
	t.Helper()
	for _, c := range readCmds(review) {
		r := runGraft(t, bin, home, "", cred, time.Minute, c.args...)
		switch {
		case c.args[0] == "prepare":
			if r.exit != 20 || !strings.Contains(r.stderr, "catalog.db") || !strings.Contains(r.stderr, "writable") {
				t.Fatalf("graft prepare with a read-only catalog: exit %d, want 20 and catalog.db named as needing to be writable\nstderr: %s", r.exit, r.stderr)
			}
		case c.args[0] == "status" && len(c.args) == 2:
			if r.exit != 0 || strings.Contains(r.stdout, `"catalogError"`) {
				t.Fatalf("graft status --json with a read-only catalog: exit %d\nstdout: %s\nstderr: %s", r.exit, r.stdout, r.stderr)
			}
		default:
			want := c.want
			if c.args[0] == "show" && len(c.args) == 3 {
				want = "graft:tape"
			}
			if r.exit != 0 || !strings.Contains(r.stdout, want) {
				t.Fatalf("graft %s with a read-only catalog: exit %d, want 0 and %q\nstdout: %s\nstderr: %s", strings.Join(c.args, " "), r.exit, want, r.stdout, r.stderr)
			}
		}
	}
}

// TestReadCommandsAsNobodyWithCatalogMode0400: the user's own catalog.db
// made 0400, and the CLI run as nobody (its owner): bbolt's read-write
// open is denied for real; the reads open it read-only.
func TestReadCommandsAsNobodyWithCatalogMode0400(t *testing.T) {
	cred := nobody(t, "graft's TestReadOnlyCatalogIsRead")
	bin := graftBinary(t)
	dir, err := os.MkdirTemp("", "graft-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	review := seedDegradedHome(t, home)
	err = filepath.Walk(home, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, catalog.FileName), 0o400); err != nil {
		t.Fatal(err)
	}
	checkReadOnly(t, bin, home, cred, review)
	// Someone else's catalog, unreadable to nobody: the reads degrade.
	if err := os.Chown(filepath.Join(home, catalog.FileName), 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, catalog.FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range readCmds(review) {
		r := runGraft(t, bin, home, "", cred, time.Minute, c.args...)
		checkDegraded(t, c, r, "permission denied", 20)
	}
}

// TestReadCommandsOnAReadOnlyMount: the whole home on a read-only mount
// (a tmpfs remounted read-only; needs root and mount(2), skipped
// otherwise; graft's TestReadOnlyCatalogIsRead injects EROFS's cousin
// EACCES always).
func TestReadCommandsOnAReadOnlyMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a read-only file system; graft's TestReadOnlyCatalogIsRead covers the rule with an injected EACCES")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=32m,mode=0755"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); graft's TestReadOnlyCatalogIsRead covers the rule with an injected EACCES", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	home := filepath.Join(dir, "home")
	review := seedDegradedHome(t, home)
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount %s read-only here (%v)", dir, err)
	}
	if err := os.WriteFile(filepath.Join(home, "probe"), nil, 0o600); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("the remount did not make the home read-only: %v", err)
	}
	checkReadOnly(t, graftBinary(t), home, nil, review)
}

// truncateIntoUsedPages cuts catalog.db one page short of the pages its
// newest meta page says are in use (bbolt's file may be longer than that:
// cutting its free tail would damage nothing).
func truncateIntoUsedPages(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(off int) (pageSize, pgid, txid uint64) {
		m := b[off+16:]
		ne := binary.NativeEndian
		return uint64(ne.Uint32(m[8:])), ne.Uint64(m[40:]), ne.Uint64(m[48:])
	}
	ps, pgid, txid := meta(0)
	if _, pgid1, txid1 := meta(int(ps)); txid1 > txid {
		pgid = pgid1
	}
	if err := os.Truncate(path, int64((pgid-1)*ps)); err != nil {
		t.Fatal(err)
	}
}

// sessionsOf opens the session store of svc's home, as graft does (the
// service keeps its own to itself).
func sessionsOf(t testing.TB, svc *graft.Service) *session.Store {
	t.Helper()
	st, err := session.OpenStore(svc.FS, svc.Home)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
