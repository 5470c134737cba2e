package crashfs

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"errors"
	"fmt"
	"path"
	"sort"
)

// step is one recorded mutation and the whole tree, live and durable, just
// after it.
type step struct {
	desc string
	root *inode
}

// State is one power-loss state: what the disk could hold if the power
// failed at some instant of the recorded run.
type State struct {
	// Name says which instant and which variant, e.g. "after op 12 (write
	// 74 bytes to /h/sessions/t.jsonl), torn 37/74 unsynced bytes of
	// /h/sessions/t.jsonl".
	Name string
	// FS holds the state, fully durable and not recording.
	FS *FS
}

// ErrNotRecording is returned by CrashStates before StartRecording.
var ErrNotRecording = errors.New("crashfs: CrashStates needs StartRecording first")

// StartRecording makes everything now in the FS durable, as after a clean
// shutdown, and logs every mutating operation from here on (create, write,
// truncate, sync, rename, remove, mkdirall, syncdir, symlink; each step of
// WriteFileAtomic). Calling it again starts a new recording.
func (f *FS) StartRecording() {
	f.mu.Lock()
	defer f.mu.Unlock()
	syncAll(f.root, map[*inode]bool{})
	f.recording = true
	f.steps = []step{{root: freeze(f.root, map[*inode]*inode{})}}
}

func syncAll(n *inode, seen map[*inode]bool) {
	if seen[n] {
		return
	}
	seen[n] = true
	if n.isDir() {
		n.durable = cloneEntries(n.entries)
		for _, c := range n.entries {
			syncAll(c, seen)
		}
		return
	}
	n.synced = n.share()
}

// RecordedOps is the number of mutating operations recorded so far.
func (f *FS) RecordedOps() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.recording {
		return 0
	}
	return len(f.steps) - 1
}

// record logs a mutation; the caller holds f.mu.
func (f *FS) record(desc string) {
	if f.recording {
		f.steps = append(f.steps, step{desc: desc, root: freeze(f.root, map[*inode]*inode{})})
	}
}

// freeze copies the inode graph reachable from n through live and durable
// entries. File bytes are shared, not copied: share marks them read-only.
func freeze(n *inode, memo map[*inode]*inode) *inode {
	if c := memo[n]; c != nil {
		return c
	}
	c := &inode{mode: n.mode, modTime: n.modTime, target: n.target}
	memo[n] = c
	if n.isDir() {
		c.entries = make(map[string]*inode, len(n.entries))
		c.durable = make(map[string]*inode, len(n.durable))
		for k, v := range n.entries {
			c.entries[k] = freeze(v, memo)
		}
		for k, v := range n.durable {
			c.durable[k] = freeze(v, memo)
		}
		return c
	}
	c.data = n.share()
	c.synced = n.synced
	c.sharedLen = len(c.data)
	return c
}

// CrashClone returns a new FS holding what survives a power loss now: each
// file's data as of its last Sync, each directory's entries as of its last
// SyncDir, reachable from the root through durable entries only.
func (f *FS) CrashClone() *FS {
	f.mu.Lock()
	defer f.mu.Unlock()
	root, _, err := materialise(f.root, view{})
	if err != nil {
		// Durable entries synced at different times can make a directory its
		// own ancestor after directory renames; no disk shows that, so say so
		// loudly rather than guess which entry to drop.
		panic(fmt.Sprintf("crashfs: CrashClone: %v", err))
	}
	return &FS{root: root, clock: f.clock, tempSeq: f.tempSeq}
}

// view chooses, for one candidate state, which directories show their live
// entries (the others show their durable ones) and which single file shows
// bytes other than its synced ones.
type view struct {
	liveDirs map[*inode]bool
	file     *inode
	fileData []byte
}

var errCycle = errors.New("a directory would be its own ancestor")

// materialise builds a fully durable tree from root as seen through v, and
// the path at which each original inode first appears (sorted walk).
func materialise(root *inode, v view) (*inode, map[*inode]string, error) {
	memo := map[*inode]*inode{}
	paths := map[*inode]string{}
	onPath := map[*inode]bool{}
	var walk func(n *inode, p string) (*inode, error)
	walk = func(n *inode, p string) (*inode, error) {
		if onPath[n] {
			return nil, fmt.Errorf("%w: %s", errCycle, p)
		}
		if _, ok := paths[n]; !ok {
			paths[n] = p
		}
		if c := memo[n]; c != nil {
			return c, nil
		}
		c := &inode{mode: n.mode, modTime: n.modTime, target: n.target}
		memo[n] = c
		switch {
		case n.isDir():
			ents := n.durable
			if v.liveDirs[n] {
				ents = n.entries
			}
			onPath[n] = true
			c.entries = make(map[string]*inode, len(ents))
			for _, name := range sortedNames(ents) {
				child, err := walk(ents[name], path.Join(p, name))
				if err != nil {
					return nil, err
				}
				c.entries[name] = child
			}
			onPath[n] = false
			c.durable = cloneEntries(c.entries)
		case !n.isSymlink():
			d := n.synced
			if n == v.file {
				d = v.fileData
			}
			c.data = d[:len(d):len(d)]
			c.synced = c.data
			c.sharedLen = len(d)
		}
		return c, nil
	}
	out, err := walk(root, "/")
	return out, paths, err
}

func sortedNames(m map[string]*inode) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// CrashStates returns every distinct power-loss state of the recorded run,
// in order of first appearance. For the instant after each recorded
// operation (and the start) it considers these views of the directories:
//   - durable: every directory as of its last SyncDir;
//   - for each directory with unsynced changes, that one shown live;
//   - when two or more have unsynced changes, all of them shown live;
//
// and in each view, besides every file's synced bytes, each file reachable
// in the view whose live bytes differ from its synced ones, one at a time:
// when the live bytes extend the synced ones by u unsynced bytes, the
// synced bytes plus the first u/2, u-1 and u of them (torn appends);
// otherwise (a truncate or an overwrite) the live bytes. States with the
// same content (paths, types, modes, bytes, link targets) are kept once,
// under the name of the first. A view in which a directory would be its
// own ancestor (possible only after renaming directories) is not a state
// of any disk and is left out.
func (f *FS) CrashStates() ([]State, error) {
	f.mu.Lock()
	steps := f.steps
	recording := f.recording
	f.mu.Unlock()
	if !recording {
		return nil, ErrNotRecording
	}
	var states []State
	seen := map[[32]byte]bool{}
	contents := &contentHasher{checkpoints: map[*byte][]hashCheckpoint{}}
	add := func(name string, root *inode) error {
		sum, err := digest(root, contents)
		if err != nil {
			return fmt.Errorf("crashfs: %s: %w", name, err)
		}
		if !seen[sum] {
			seen[sum] = true
			states = append(states, State{Name: name, FS: &FS{root: root}})
		}
		return nil
	}
	for i, st := range steps {
		at := "at the start of the recording"
		if i > 0 {
			at = fmt.Sprintf("after op %d (%s)", i, st.desc)
		}
		for _, vw := range dirViews(st.root) {
			base, paths, err := materialise(st.root, view{liveDirs: vw.live})
			if errors.Is(err, errCycle) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("crashfs: %s%s: %w", at, vw.label, err)
			}
			if err := add(at+vw.label, base); err != nil {
				return nil, err
			}
			for _, fv := range fileVariants(paths) {
				root, _, err := materialise(st.root, view{liveDirs: vw.live, file: fv.n, fileData: fv.data})
				if err != nil {
					return nil, fmt.Errorf("crashfs: %s%s%s: %w", at, vw.label, fv.label, err)
				}
				if err := add(at+vw.label+fv.label, root); err != nil {
					return nil, err
				}
			}
		}
	}
	return states, nil
}

type dirView struct {
	label string
	live  map[*inode]bool
}

// dirViews lists the views of the directories at one instant: durable,
// each directory with unsynced entries shown live, and all of them.
func dirViews(root *inode) []dirView {
	type dirty struct {
		path string
		n    *inode
	}
	var dirs []dirty
	for n, p := range allPaths(root) {
		if n.isDir() && !sameEntries(n.entries, n.durable) {
			dirs = append(dirs, dirty{p, n})
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].path < dirs[j].path })
	views := []dirView{{}}
	all := map[*inode]bool{}
	for _, d := range dirs {
		views = append(views, dirView{label: ", with the unsynced entries of " + d.path, live: map[*inode]bool{d.n: true}})
		all[d.n] = true
	}
	if len(dirs) > 1 {
		views = append(views, dirView{label: ", with the unsynced entries of every directory", live: all})
	}
	return views
}

// allPaths names every inode reachable through live or durable entries by
// the first path a sorted walk meets (live entries first).
func allPaths(root *inode) map[*inode]string {
	paths := map[*inode]string{}
	var walk func(n *inode, p string)
	walk = func(n *inode, p string) {
		if _, ok := paths[n]; ok {
			return
		}
		paths[n] = p
		if !n.isDir() {
			return
		}
		for _, ents := range []map[string]*inode{n.entries, n.durable} {
			for _, name := range sortedNames(ents) {
				walk(ents[name], path.Join(p, name))
			}
		}
	}
	walk(root, "/")
	return paths
}

func sameEntries(a, b map[string]*inode) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

type fileVariant struct {
	label string
	n     *inode
	data  []byte
}

// fileVariants lists, for each file in paths whose live bytes differ from
// its synced ones (by path), the torn or rewritten bytes to try.
func fileVariants(paths map[*inode]string) []fileVariant {
	var files []*inode
	for n := range paths {
		if !n.isDir() && !n.isSymlink() && !bytes.Equal(n.data, n.synced) {
			files = append(files, n)
		}
	}
	sort.Slice(files, func(i, j int) bool { return paths[files[i]] < paths[files[j]] })
	var out []fileVariant
	for _, n := range files {
		p := paths[n]
		if !bytes.HasPrefix(n.data, n.synced) {
			out = append(out, fileVariant{label: ", unsynced contents of " + p, n: n, data: n.data})
			continue
		}
		unsynced := len(n.data) - len(n.synced)
		kept := map[int]bool{}
		for _, k := range []int{unsynced / 2, unsynced - 1, unsynced} {
			if k <= 0 || kept[k] {
				continue
			}
			kept[k] = true
			out = append(out, fileVariant{
				label: fmt.Sprintf(", torn %d/%d unsynced bytes of %s", k, unsynced, p),
				n:     n,
				data:  n.data[:len(n.synced)+k],
			})
		}
	}
	return out
}

// digest identifies a tree by content: paths, types, modes, bytes and link
// targets; modification times are left out.
func digest(root *inode, contents *contentHasher) ([32]byte, error) {
	h := sha256.New()
	var walk func(n *inode, p string) error
	walk = func(n *inode, p string) error {
		fmt.Fprintf(h, "%s\x00%d\x00", p, uint32(n.mode))
		switch {
		case n.isDir():
			fmt.Fprintf(h, "%d\x00", len(n.entries))
			for _, name := range sortedNames(n.entries) {
				if err := walk(n.entries[name], path.Join(p, name)); err != nil {
					return err
				}
			}
		case n.isSymlink():
			fmt.Fprintf(h, "%d\x00%s", len(n.target), n.target)
		default:
			sum, err := contents.sum(n.data)
			if err != nil {
				return fmt.Errorf("hashing %s: %w", p, err)
			}
			fmt.Fprintf(h, "%d\x00", len(n.data))
			h.Write(sum[:])
		}
		return nil
	}
	var sum [32]byte
	if err := walk(root, "/"); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// contentHasher hashes file bytes for one CrashStates call. The states
// share backing arrays whose bytes never change (see inode.sharedLen), and
// a torn or later state is mostly a longer prefix of the same array, so it
// keeps the hash state at each length hashed and resumes from the longest
// one below: a run appending to a large file is hashed about once, not
// once per state.
type contentHasher struct {
	checkpoints map[*byte][]hashCheckpoint // by backing array, sorted by n
}

type hashCheckpoint struct {
	n     int
	state []byte // sha256 state after the first n bytes
}

func (c *contentHasher) sum(b []byte) ([32]byte, error) {
	var sum [32]byte
	h := sha256.New()
	if len(b) == 0 {
		copy(sum[:], h.Sum(nil))
		return sum, nil
	}
	key := &b[0]
	cps := c.checkpoints[key]
	i := sort.Search(len(cps), func(i int) bool { return cps[i].n > len(b) })
	start := 0
	if i > 0 {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(cps[i-1].state); err != nil {
			return sum, fmt.Errorf("resuming sha256 at byte %d: %w", cps[i-1].n, err)
		}
		start = cps[i-1].n
	}
	h.Write(b[start:])
	if start != len(b) {
		state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
		if err != nil {
			return sum, fmt.Errorf("saving sha256 state at byte %d: %w", len(b), err)
		}
		cps = append(cps, hashCheckpoint{})
		copy(cps[i+1:], cps[i:])
		cps[i] = hashCheckpoint{n: len(b), state: state}
		c.checkpoints[key] = cps
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
