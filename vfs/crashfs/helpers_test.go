package crashfs_test

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/graft-project/graft/vfs"
	"github.com/graft-project/graft/vfs/crashfs"
)

// tree lists every entry of f below "/" through the vfs.FS API: a
// directory as "dir", a symlink as "-> target", a file as its contents.
func tree(t *testing.T, f *crashfs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := walkTree(f, "/", out); err != nil {
		t.Fatalf("listing the tree: %v\n%s", err, f)
	}
	return out
}

func walkTree(f *crashfs.FS, dir string, out map[string]string) error {
	ents, err := f.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := path.Join(dir, e.Name())
		fi, err := f.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			out[p] = "dir"
			if err := walkTree(f, p, out); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			out[p] = "-> symlink"
		default:
			data, err := f.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = string(data)
		}
	}
	return nil
}

func showTree(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s = %q\n", k, m[k])
	}
	return b.String()
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// fsScript is a sequence of calls on the FS; every step's error fails the test.
type fsScript func(t *testing.T, f *crashfs.FS)

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// writeNew creates name, writes data and, as asked, syncs the file and its
// directory.
func writeNew(t *testing.T, f vfs.FS, name, data string, syncFile, syncDir bool) {
	t.Helper()
	h, err := f.Create(name, 0o600)
	must(t, "create "+name, err)
	if data != "" {
		_, err = h.Write([]byte(data))
		must(t, "write "+name, err)
	}
	if syncFile {
		must(t, "sync "+name, h.Sync())
	}
	must(t, "close "+name, h.Close())
	if syncDir {
		must(t, "syncdir of "+name, f.SyncDir(path.Dir(name)))
	}
}

// appendTo appends data to name and, as asked, syncs it.
func appendTo(t *testing.T, f vfs.FS, name, data string, syncFile bool) {
	t.Helper()
	h, err := f.OpenAppend(name)
	must(t, "openappend "+name, err)
	_, err = h.Write([]byte(data))
	must(t, "append to "+name, err)
	if syncFile {
		must(t, "sync "+name, h.Sync())
	}
	must(t, "close "+name, h.Close())
}

// statesByContent maps each state's tree (shown) to its name, failing on
// two states with the same content.
func statesByContent(t *testing.T, states []crashfs.State) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, st := range states {
		key := showTree(tree(t, st.FS))
		if prev, ok := out[key]; ok {
			t.Fatalf("states %q and %q have the same content:\n%s", prev, st.Name, key)
		}
		out[key] = st.Name
	}
	return out
}
