package hosts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/importer"
	"github.com/graft-project/graft/session"
)

// Where hostVersion looks, and how far.
const (
	// versionLineMax bounds the bytes read for a first or last line.
	versionLineMax = 1 << 20
	// versionFiles is how many of the newest session files are read
	// before the tested version is taken.
	versionFiles = 8
)

// hostVersion is the version of the host program the person has, for an
// export of target info to write as the host's own (adapter.Made.Host):
// without running the program, the version the newest session file of
// the host names in its last or first line (adapter.Versioned.LineVersion;
// graft's own records name none). The source session's transcript comes
// first when it is this host's (its import cursor names it); else the
// newest files under the host's transcript root, by modification time.
// When none names one, the adapter's tested version. "" for a host whose
// records name no version, and when the export is already there (a
// re-export renders the file's own, asWritten).
func hostVersion(o *ExportOptions, a adapter.Adapter, root string, info *session.Info, path string) string {
	v, ok := a.(adapter.Versioned)
	if !ok {
		return ""
	}
	if _, err := o.Store.FS.Lstat(path); err == nil {
		return ""
	}
	tr := a.TranscriptRoot(root)
	if src := sourceTranscript(o, info); src != "" && under(tr, src) {
		if ver := fileVersion(v, src); ver != "" {
			return ver
		}
	}
	for _, f := range newestFiles(tr, path, versionFiles) {
		if ver := fileVersion(v, f); ver != "" {
			return ver
		}
	}
	return v.TestedVersion()
}

// hostProvider is the model provider an export of a Provided host names
// as the session's (adapter.Made.Provider): the one the host's
// configuration under root selects. "" for a host that names none, and
// when the export is already there (a re-export renders the file's own,
// asWritten, as hostVersion does).
func hostProvider(o *ExportOptions, a adapter.Adapter, root, path string) (string, error) {
	p, ok := a.(adapter.Provided)
	if !ok {
		return "", nil
	}
	if _, err := o.Store.FS.Lstat(path); err == nil {
		return "", nil
	}
	provider, err := p.ModelProvider(root)
	if err != nil {
		return "", fmt.Errorf("hosts: %s's model provider, which the export names: %w", a.Title(), err)
	}
	return provider, nil
}

// sourceTranscript is the transcript the source session of target info
// follows, as its import cursor names it ("" when there is none).
func sourceTranscript(o *ExportOptions, info *session.Info) string {
	if info.Origin == nil || info.Origin.Parent == "" {
		return ""
	}
	cur, err := importer.LoadCursor(o.Store.FS, o.Home, info.Origin.Parent)
	if err != nil {
		return ""
	}
	return cur.Source
}

// under reports whether path lies inside dir (both made absolute).
func under(dir, path string) bool {
	dir, derr := filepath.Abs(dir)
	path, perr := filepath.Abs(path)
	if derr != nil || perr != nil {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// newestFiles are the n newest regular *.jsonl files under dir, newest
// first, but skip.
func newestFiles(dir, skip string, n int) []string {
	type file struct {
		path string
		mod  int64
	}
	var all []file
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // what cannot be read is left out
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".jsonl") || p == skip {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		all = append(all, file{p, fi.ModTime().UnixNano()})
		return nil
	})
	slices.SortFunc(all, func(a, b file) int {
		switch {
		case a.mod > b.mod:
			return -1
		case a.mod < b.mod:
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	out := make([]string, 0, min(n, len(all)))
	for k := 0; k < len(all) && k < n; k++ {
		out = append(out, all[k].path)
	}
	return out
}

// fileVersion is the host version the last line of session file path
// names, else its first line's ("" for none, or a file that cannot be
// read): each read up to versionLineMax bytes.
func fileVersion(v adapter.Versioned, path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if last := lastLine(f); last != nil {
		if ver := v.LineVersion(last); ver != "" {
			return ver
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ""
	}
	first, err := bufio.NewReader(io.LimitReader(f, versionLineMax)).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return v.LineVersion(first)
}

// lastLine is the last complete line of f (nil when it has none, or it is
// longer than versionLineMax): read from the last 64 KiB, else the last
// versionLineMax bytes.
func lastLine(f *os.File) []byte {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil
	}
	for _, size := range []int64{64 << 10, versionLineMax} {
		n := min(fi.Size(), size)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, fi.Size()-n); err != nil && !errors.Is(err, io.EOF) {
			return nil
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if k := bytes.LastIndexByte(buf, '\n'); k >= 0 || n == fi.Size() {
			return buf[k+1:]
		}
	}
	return nil
}
