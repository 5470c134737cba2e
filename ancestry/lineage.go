package ancestry

import (
	"errors"
	"fmt"
	"slices"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/internal/nonnil"
	"github.com/graft-project/graft/session"
)

// ErrBrokenLineage: a session's chain up to generation 1 cannot be followed
// (a parent's log is missing or unreadable, or generations do not step by 1).
var ErrBrokenLineage = errors.New("graft: broken lineage")

// Ancestor is one session on the way up from a session to generation 1, as
// its own log says (the graft/origin at seq 1).
type Ancestor struct {
	Session    string `json:"session"`
	Generation int    `json:"generation"`
	Parent     string `json:"parent,omitempty"`
	Txn        string `json:"txn,omitempty"`      // the graft that created it
	Boundary   int64  `json:"boundary,omitempty"` // the parent's boundary seq
}

// Ancestors returns id and every session above it, id first, up to the one
// of generation 1. Only the logs are read. When the chain breaks, the part
// read so far is returned with an error matching ErrBrokenLineage (or the
// session's own read error for id itself).
func (r *Reader) Ancestors(id string) ([]Ancestor, error) {
	if err := session.ValidID(id); err != nil {
		return nil, err
	}
	var chain []Ancestor
	cur := id
	for {
		origin, err := r.originOf(cur)
		if err != nil {
			if len(chain) == 0 {
				return nil, err
			}
			last := chain[len(chain)-1]
			return chain, fmt.Errorf("%w: %s (generation %d) names parent %s, which cannot be read: %w", ErrBrokenLineage, last.Session, last.Generation, cur, err)
		}
		a := Ancestor{Session: cur, Generation: 1}
		if origin != nil {
			a = Ancestor{Session: cur, Generation: origin.Generation, Parent: origin.Parent, Txn: origin.Txn, Boundary: origin.ParentBoundary}
		}
		if len(chain) > 0 {
			child := chain[len(chain)-1]
			if a.Generation != child.Generation-1 {
				return chain, fmt.Errorf("%w: %s is generation %d but its parent %s is generation %d (want %d)", ErrBrokenLineage, child.Session, child.Generation, cur, a.Generation, child.Generation-1)
			}
		}
		chain = append(chain, a)
		if origin == nil {
			return chain, nil
		}
		if a.Generation < 2 {
			return chain, fmt.Errorf("%w: %s opens with graft/origin of generation %d (a graft target is generation 2 or later)", ErrBrokenLineage, cur, a.Generation)
		}
		if err := session.ValidID(a.Parent); err != nil {
			return chain, fmt.Errorf("%w: %s names parent %q: %w", ErrBrokenLineage, cur, a.Parent, err)
		}
		cur = a.Parent
	}
}

// Parent is the session id was grafted from, as the graft/origin that opens
// its log says; "" for a generation-1 session. It reads one line.
func (r *Reader) Parent(id string) (string, error) {
	if err := session.ValidID(id); err != nil {
		return "", err
	}
	origin, err := r.originOf(id)
	if err != nil || origin == nil {
		return "", err
	}
	return origin.Parent, nil
}

// originOf returns the graft/origin that opens id's log, nil when the log
// opens with anything else (a generation-1 session). It reads one line.
func (r *Reader) originOf(id string) (*session.Event, error) {
	var origin *session.Event
	_, err := r.Store.Scan(id, session.ScanFrom{}, func(ev *session.Event, _ []byte, _ int64) error {
		if ev.Type == session.TypeGraftOrigin {
			e := *ev
			origin = &e
		}
		return errFound
	})
	if err != nil && !errors.Is(err, errFound) {
		return nil, err
	}
	return origin, nil
}

// LineageState is what a session is in its lineage, judged from the logs:
// a target's fate is decided by its parent's log (docs/DESIGN.md §6.1).
type LineageState string

// Lineage states.
const (
	// LineageLive: the session to continue in (generation 1 never grafted,
	// or a target whose commit point is in its parent's log).
	LineageLive LineageState = "live"
	// LineageRetired: grafted into a live target.
	LineageRetired LineageState = "retired"
	// LineageReverted: a target whose graft a revert undid (its parent's log
	// holds graft/unretired for it).
	LineageReverted LineageState = "reverted"
	// LineageLeftover: a target whose graft never reached its commit point:
	// a crashed or rolled-back graft left it behind.
	LineageLeftover LineageState = "leftover"
	// LineageAbandoned: marked graft/abandoned although its parent's log
	// holds its commit point; the store refuses to resume it.
	LineageAbandoned LineageState = "abandoned"
	// LineageUnreadable: the log cannot be read, or is missing.
	LineageUnreadable LineageState = "unreadable"
)

// LineageNode is one session of a lineage tree.
type LineageNode struct {
	Session    string       `json:"session"`
	Generation int          `json:"generation"`
	State      LineageState `json:"state"`
	Parent     string       `json:"parent,omitempty"`
	Txn        string       `json:"txn,omitempty"`      // the graft that created it
	Boundary   int64        `json:"boundary,omitempty"` // the parent's boundary seq
	Events     int          `json:"events"`
	// Detail says why the state is what it is, when that is not obvious.
	Detail   string         `json:"detail,omitempty"`
	Children []*LineageNode `json:"children"`
}

// Lineage is the whole tree a session belongs to, rooted at generation 1.
type Lineage struct {
	Session string `json:"session"` // the session asked about
	Root    string `json:"root"`
	// Head is the session to continue in, following live grafts from
	// Session.
	Head string       `json:"head"`
	Tree *LineageNode `json:"tree"`
	// Problems are disagreements between the catalog and the logs, and
	// breaks in the chain; the tree follows the logs.
	Problems []string `json:"problems"`
}

// Lineage draws the tree of id: up from id to generation 1 through the
// graft/origin of each log, then down through every child. A child is a
// target named by a graft/retired of its parent's log, or one the catalog
// knows (lineage children, leftovers); each is checked against its own log,
// whose graft/origin must name the parent. Re-slices are siblings.
func (r *Reader) Lineage(id string) (*Lineage, error) {
	chain, err := r.Ancestors(id)
	if len(chain) == 0 {
		return nil, err
	}
	w := &lineageWalk{r: r, seen: map[string]bool{}}
	if err != nil {
		w.problem("%v; the tree starts at the oldest session that could be read", err)
	}
	w.loadCatalog()
	root := chain[len(chain)-1]
	info, err := r.Store.Info(root.Session)
	if err != nil {
		return nil, err
	}
	tree := &LineageNode{Session: root.Session, Generation: info.Generation(), Events: info.Events, Children: []*LineageNode{}}
	if info.Origin != nil {
		tree.Parent, tree.Txn, tree.Boundary = info.Origin.Parent, info.Origin.Txn, info.Origin.ParentBoundary
		tree.State, tree.Detail = LineageUnreadable, fmt.Sprintf("its parent %s cannot be read", info.Origin.Parent)
	} else {
		tree.State = ownState(info)
		if info.Abandoned != nil {
			tree.Detail = "marked abandoned: " + info.Abandoned.Reason
		}
	}
	w.seen[root.Session] = true
	w.children(tree, info)
	// head stops at the parent of an abandoned target, which may itself be
	// retired: one more step follows that parent's live graft.
	head, _ := r.Head(id)
	if head != id {
		head, _ = r.Head(head)
	}
	return &Lineage{Session: id, Root: root.Session, Head: head, Tree: tree, Problems: nonnil.Slice(w.problems)}, nil
}

// ownState is the state a session's own log gives it, for a session whose
// commit point (if it is a target) holds.
func ownState(info *session.Info) LineageState {
	switch {
	case info.Abandoned != nil:
		return LineageAbandoned
	case info.State() == session.StateRetired:
		return LineageRetired
	}
	return LineageLive
}

type lineageWalk struct {
	r         *Reader
	index     map[string]catalog.Node
	leftovers map[string][]catalog.Leftover // by source
	seen      map[string]bool
	problems  []string
}

func (w *lineageWalk) problem(format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
}

// loadCatalog reads the index of children and leftovers. The catalog is
// derived: when it cannot be read the tree still follows the logs, and the
// problem says what may be missing (leftovers no log names).
func (w *lineageWalk) loadCatalog() {
	w.index = map[string]catalog.Node{}
	w.leftovers = map[string][]catalog.Leftover{}
	err := w.r.Catalog().View(func(db *catalog.DB) error {
		nodes, err := db.Nodes()
		if err != nil {
			return err
		}
		for _, n := range nodes {
			w.index[n.Session] = n
		}
		ls, err := db.AllLeftovers()
		if err != nil {
			return err
		}
		for _, l := range ls {
			w.leftovers[l.Source] = append(w.leftovers[l.Source], l)
		}
		return nil
	})
	if err != nil {
		w.index, w.leftovers = map[string]catalog.Node{}, map[string][]catalog.Leftover{}
		w.problem("catalog.db not read (%s): the tree follows the logs only; leftovers whose parent's log does not name them are not shown", catalog.Problem(err))
		w.r.degrade("lineage: catalog.db not read, the tree follows the logs only: %s", catalog.Problem(err))
	}
}

// children adds the children of n (whose log folds to info), in the order
// their grafts were retired in info, then the ones only the catalog names,
// sorted by id.
func (w *lineageWalk) children(n *LineageNode, info *session.Info) {
	var ids []string
	namedByLog := map[string]bool{}
	for _, g := range info.Grafts {
		if !namedByLog[g.Target] {
			namedByLog[g.Target] = true
			ids = append(ids, g.Target)
		}
	}
	leftovers := map[string]catalog.Leftover{}
	var fromCatalog []string
	for _, l := range w.leftovers[n.Session] {
		leftovers[l.Target] = l
		fromCatalog = append(fromCatalog, l.Target)
	}
	fromCatalog = append(fromCatalog, w.index[n.Session].Children...)
	slices.Sort(fromCatalog)
	for _, c := range slices.Compact(fromCatalog) {
		if !namedByLog[c] {
			ids = append(ids, c)
		}
	}
	for _, c := range ids {
		if w.seen[c] {
			continue
		}
		child := w.child(n, info, c, namedByLog[c], leftovers)
		if child == nil {
			continue
		}
		w.seen[c] = true
		n.Children = append(n.Children, child)
	}
}

// child judges candidate c of parent n; nil when c is not n's child after
// all (the problem is recorded).
func (w *lineageWalk) child(n *LineageNode, pinfo *session.Info, c string, namedByLog bool, leftovers map[string]catalog.Leftover) *LineageNode {
	node := &LineageNode{Session: c, Generation: n.Generation + 1, Parent: n.Session, Children: []*LineageNode{}}
	if err := session.ValidID(c); err != nil {
		w.problem("%s names a child %q that is not a valid session id: %v", n.Session, c, err)
		return nil
	}
	exists, err := w.r.Store.Exists(c)
	if err != nil {
		node.State, node.Detail = LineageUnreadable, err.Error()
		return node
	}
	if !exists {
		switch l, isLeftover := leftovers[c]; {
		case isLeftover:
			node.State, node.Txn, node.Detail = LineageLeftover, l.Txn, "no log left (the graft was rolled back in "+l.State+"): "+l.Reason
		case namedByLog:
			node.State, node.Detail = LineageUnreadable, fmt.Sprintf("%s's log grafted into it, but it has no log", n.Session)
			w.problem("%s: named by a graft/retired of %s but its log is missing", c, n.Session)
		default:
			w.problem("catalog lists %s as a child of %s, but %s has no log", c, n.Session, c)
			return nil
		}
		return node
	}
	info, err := w.r.Store.Info(c)
	if err != nil {
		node.State, node.Detail = LineageUnreadable, err.Error()
		return node
	}
	if info.Origin == nil || info.Origin.Parent != n.Session {
		says := "it opens with no graft/origin"
		if info.Origin != nil {
			says = "its graft/origin names parent " + info.Origin.Parent
		}
		if namedByLog {
			w.problem("%s's log grafted into %s, but %s", n.Session, c, says)
		} else {
			w.problem("catalog lists %s as a child of %s, but %s", c, n.Session, says)
		}
		return nil
	}
	node.Txn, node.Boundary, node.Events = info.Origin.Txn, info.Origin.ParentBoundary, info.Events
	if g := info.Generation(); g != n.Generation+1 {
		w.problem("%s is generation %d but its parent %s is generation %d", c, g, n.Session, n.Generation)
		node.Generation = g
	}
	switch txn := info.Origin.Txn; {
	case pinfo.Committed(txn, c):
		node.State = ownState(info)
		if info.Abandoned != nil {
			node.Detail = fmt.Sprintf("marked abandoned (%s) although %s's log holds its commit point", info.Abandoned.Reason, n.Session)
		}
	case pinfo.HasRetired(txn, c):
		node.State = LineageReverted
		for _, g := range pinfo.Grafts {
			if g.Txn == txn {
				node.Detail = fmt.Sprintf("graft undone at seq %d of %s", g.UnretiredSeq, n.Session)
			}
		}
	default:
		node.State = LineageLeftover
		if info.Abandoned != nil {
			node.Detail = fmt.Sprintf("never committed in %s; marked abandoned: %s", n.Session, info.Abandoned.Reason)
		} else {
			node.Detail = fmt.Sprintf("never committed in %s: a graft in flight, or one the next recovery scan rolls back", n.Session)
		}
	}
	if idx, ok := w.index[c]; ok && idx.Reverted != (node.State == LineageReverted) {
		w.problem("catalog says %s reverted=%t, its parent's log says %s", c, idx.Reverted, node.State)
	}
	w.children(node, info)
	return node
}
