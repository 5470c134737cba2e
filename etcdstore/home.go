package etcdstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/journal"
	"github.com/graft-project/graft/vfs"
)

// MarkerName is the file in a graft home that binds it to an etcd store:
// one line, "etcd <prefix>". Its presence is what makes the file store
// refuse the home, and its prefix what makes another prefix refuse it.
const MarkerName = "etcd-store"

// ClaimHome checks that home may be used with the store of cfg, and marks
// it so: a home with file-store state (catalog.db, or a record in .txn/)
// is refused, since that state would be invisible to the other workers; a
// home marked for another prefix is refused too. Both are ErrHome, with
// what to do.
func ClaimHome(fsys vfs.FS, home string, cfg Config) error {
	want := "etcd " + cfg.Prefix + "\n"
	got, err := readMarker(fsys, home)
	switch {
	case err != nil:
		return err
	case got == want:
		return nil
	case got != "":
		return fmt.Errorf("%w: %s is bound to the etcd prefix %q (its %s), not %q: pass the store URL with that prefix, or give this worker another home",
			ErrHome, home, strings.TrimSpace(strings.TrimPrefix(got, "etcd ")), MarkerName, cfg.Prefix)
	}
	var state []string
	if _, err := fsys.Lstat(filepath.Join(home, catalog.FileName)); err == nil {
		state = append(state, catalog.FileName)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("etcdstore: checking %s: %w", home, err)
	}
	ents, err := fsys.ReadDir(filepath.Join(home, journal.DirName))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("etcdstore: checking %s: %w", filepath.Join(home, journal.DirName), err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), journal.Ext) {
			state = append(state, filepath.Join(journal.DirName, e.Name()))
			break
		}
	}
	if len(state) > 0 {
		return fmt.Errorf("%w: %s holds file-store state (%s) that the other workers of %s would not see: finish it with the file store (graft recover without --store), move %s aside, then use --store again; or give this worker a new home",
			ErrHome, home, strings.Join(state, ", "), cfg.URL(), strings.Join(state, " and "))
	}
	if err := vfs.MkdirAllDurable(fsys, home, 0o700); err != nil {
		return fmt.Errorf("etcdstore: creating %s: %w", home, err)
	}
	if err := fsys.WriteFileAtomic(filepath.Join(home, MarkerName), []byte(want), 0o600); err != nil {
		return fmt.Errorf("etcdstore: marking %s: %w", home, err)
	}
	return nil
}

// CheckFileHome refuses, for the file store, a home bound to an etcd store:
// its transactions and catalog are on the cluster, and the file store would
// neither see nor fence them.
func CheckFileHome(fsys vfs.FS, home string) error {
	got, err := readMarker(fsys, home)
	if err != nil || got == "" {
		return err
	}
	return fmt.Errorf("%w: %s is bound to an etcd store (%s says %q): pass --store etcd://host:port[,…]%s (or set store in config.toml), or remove %s once no worker uses it",
		ErrHome, home, MarkerName, strings.TrimSpace(got), strings.TrimSpace(strings.TrimPrefix(got, "etcd ")), filepath.Join(home, MarkerName))
}

func readMarker(fsys vfs.FS, home string) (string, error) {
	p := filepath.Join(home, MarkerName)
	f, err := fsys.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("etcdstore: reading %s: %w", p, err)
	}
	data, rerr := io.ReadAll(io.LimitReader(f, 4096))
	cerr := f.Close()
	if rerr != nil {
		return "", fmt.Errorf("etcdstore: reading %s: %w", p, rerr)
	}
	if cerr != nil {
		return "", fmt.Errorf("etcdstore: closing %s: %w", p, cerr)
	}
	s := string(data)
	if !strings.HasPrefix(s, "etcd /") {
		return "", fmt.Errorf("%w: %s holds %q, not \"etcd <prefix>\"", ErrHome, p, s)
	}
	return s, nil
}
