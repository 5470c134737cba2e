package hosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// BindingVersion is the version of the binding file format (doc.go).
const BindingVersion = 1

// The roles of a binding.
const (
	RoleExported = "exported"
	RoleImported = "imported"
)

// Binding records which graft session a host session continues (doc.go).
type Binding struct {
	Version       int    `json:"version"`
	Host          Host   `json:"host"`
	HostSessionID string `json:"hostSessionId"`
	Session       string `json:"session"`
	Role          string `json:"role"`
	Path          string `json:"path"`
	Cwd           string `json:"cwd,omitempty"`
	Bytes         int64  `json:"bytes,omitempty"`
	SHA256        string `json:"sha256,omitempty"`
	Created       string `json:"created"`
	// LastSeen is when a hook last followed the host session (with Cwd the
	// working directory it ran in): how an agent's own session is found.
	LastSeen string `json:"lastSeen,omitempty"`
	Stray    *Stray `json:"stray,omitempty"`
	// Sum is the checksum of the binding's bytes as written: set by
	// Encode, checked and cleared by Decode (doc.go).
	Sum string `json:"sum,omitempty"`
}

// Stray is what a host session got after its graft session was handed off.
type Stray struct {
	Bytes  int64  `json:"bytes"`
	Lines  int    `json:"lines"`
	Humans int    `json:"humans"`
	Seen   string `json:"seen"`
	Target string `json:"target"`
}

// ValidHostSessionID checks a host session id: a lower-case uuid.
func ValidHostSessionID(id string) error { return adapter.ValidSessionID(id) }

// Dir is the bindings directory of a graft home.
func Dir(home string) string { return filepath.Join(home, "hosts") }

func bindingPath(home string, host Host, id string) string {
	return filepath.Join(Dir(home), string(host), id+".json")
}

// Bindings is where the bindings of a graft home live: files in its
// hosts/ (Files), or keys under an etcd store's prefix (package
// etcdstore), with the same JSON.
type Bindings interface {
	// Load reads the binding of a host session; ErrNoBinding when there is none.
	Load(host Host, hostSessionID string) (*Binding, error)
	// Save writes a binding atomically (Version set).
	Save(b *Binding) error
	// List reads every binding, by host then host session id.
	List() ([]Binding, error)
}

// Files is the file store's Bindings: hosts/<host>/<uuid>.json in home.
func Files(fsys vfs.FS, home string) Bindings { return files{fsys: fsys, home: home} }

type files struct {
	fsys vfs.FS
	home string
}

func (f files) Load(host Host, id string) (*Binding, error) { return Load(f.fsys, f.home, host, id) }
func (f files) Save(b *Binding) error                       { return Save(f.fsys, f.home, b) }
func (f files) List() ([]Binding, error)                    { return List(f.fsys, f.home) }

// Encode checks b and returns its bytes (Version set): what Save writes,
// ending with the checksum of the rest.
func Encode(b *Binding) ([]byte, error) {
	if err := ValidHostSessionID(b.HostSessionID); err != nil {
		return nil, err
	}
	if err := session.ValidID(b.Session); err != nil {
		return nil, err
	}
	b.Version = BindingVersion
	c := *b
	body, err := index.JSONWithSum(&c, &c.Sum, index.Indented)
	if err != nil {
		return nil, fmt.Errorf("hosts: encoding the binding of %s session %s: %w", b.Host, b.HostSessionID, err)
	}
	return append(body, '\n'), nil
}

// Decode parses the bytes of the binding of host session id, named where
// (a path or a key) in errors: ErrBadBinding when it is not one.
func Decode(data []byte, where string, host Host, hostSessionID string) (*Binding, error) {
	var b Binding
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadBinding, where, err)
	}
	if b.Version != BindingVersion || b.Host != host || b.HostSessionID != hostSessionID {
		return nil, fmt.Errorf("%w %s: version %d, host %q, id %q (want version %d, %s, %s)", ErrBadBinding, where, b.Version, b.Host, b.HostSessionID, BindingVersion, host, hostSessionID)
	}
	if err := session.ValidID(b.Session); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadBinding, where, err)
	}
	if b.Sum != "" && !index.SumHolds(&b, &b.Sum, index.Indented) {
		// A value or a name changed since graft wrote it decodes to
		// other fields, which do not hash to the sum.
		return nil, fmt.Errorf("%w %s: its checksum does not match: it was changed or damaged since graft wrote it, and graft follows nothing by it (it says host session %s continues graft session %q); correct it and delete its \"sum\" line, or move it aside and the next follow binds the host session anew, to a session of its own", ErrBadBinding, where, hostSessionID, b.Session)
	}
	return &b, nil
}

// Load reads the binding of a host session; ErrNoBinding when there is none.
func Load(fsys vfs.FS, home string, host Host, hostSessionID string) (*Binding, error) {
	if err := ValidHostSessionID(hostSessionID); err != nil {
		return nil, err
	}
	path := bindingPath(home, host, hostSessionID)
	f, err := fsys.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s session %s", ErrNoBinding, host, hostSessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("hosts: opening %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("hosts: reading %s: %w", path, err)
	}
	return Decode(data, path, host, hostSessionID)
}

// Save writes a binding atomically.
func Save(fsys vfs.FS, home string, b *Binding) error {
	data, err := Encode(b)
	if err != nil {
		return err
	}
	dir := filepath.Join(Dir(home), string(b.Host))
	if err := vfs.MkdirAllDurable(fsys, dir, session.DirMode); err != nil {
		return fmt.Errorf("hosts: creating %s: %w", dir, err)
	}
	path := bindingPath(home, b.Host, b.HostSessionID)
	if err := fsys.WriteFileAtomic(path, data, session.FileMode); err != nil {
		return fmt.Errorf("hosts: writing %s: %w", path, err)
	}
	return nil
}

// List reads every binding of a home, by host then host session id. A file
// that does not read as a binding is an error naming it.
func List(fsys vfs.FS, home string) ([]Binding, error) {
	var all []Binding
	for _, h := range Hosts {
		dir := filepath.Join(Dir(home), string(h))
		ents, err := fsys.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("hosts: listing %s: %w", dir, err)
		}
		for _, e := range ents {
			name := e.Name()
			id, ok := strings.CutSuffix(name, ".json")
			if !ok || ValidHostSessionID(id) != nil {
				continue // temp files of an interrupted write, anything else
			}
			b, err := Load(fsys, home, h, id)
			if err != nil {
				return nil, err
			}
			all = append(all, *b)
		}
	}
	slices.SortFunc(all, func(a, b Binding) int {
		return strings.Compare(string(a.Host)+"/"+a.HostSessionID, string(b.Host)+"/"+b.HostSessionID)
	})
	return all, nil
}

// OfSession returns the bindings of one graft session.
func OfSession(all []Binding, id string) []Binding {
	var out []Binding
	for _, b := range all {
		if b.Session == id {
			out = append(out, b)
		}
	}
	return out
}

// Recent is the binding of the host session a hook followed last in
// working directory cwd (a real path), nil when none.
func Recent(all []Binding, host Host, cwd string) *Binding {
	var best *Binding
	for k := range all {
		b := &all[k]
		if b.Host == host && b.Cwd == cwd && b.LastSeen != "" && (best == nil || b.LastSeen > best.LastSeen) {
			best = b
		}
	}
	return best
}

// Primary is the binding that says which host graft session id lives in:
// the one it was exported as, else the host session followed last.
func Primary(all []Binding, id string) *Binding {
	var best *Binding
	for _, b := range OfSession(all, id) {
		switch {
		case best == nil, b.Role == RoleExported && best.Role != RoleExported:
			bb := b
			best = &bb
		case b.Role == best.Role && b.LastSeen > best.LastSeen:
			bb := b
			best = &bb
		}
	}
	return best
}
