package graft

import "github.com/graft-project/graft/ancestry"

// The read-only queries of the logs: the lineage, the audit and recall
// --origin, answered by package ancestry; these are their names in graft's
// API, which the CLI and the MCP server use.

type (
	// Ancestor is one session on the way up to generation 1.
	Ancestor = ancestry.Ancestor
	// LineageState is what a session is in its lineage.
	LineageState = ancestry.LineageState
	// LineageNode is one session of a lineage tree.
	LineageNode = ancestry.LineageNode
	// Lineage is the whole tree a session belongs to.
	Lineage = ancestry.Lineage
	// AuditCheck is one origin of a constraint, re-read from its log.
	AuditCheck = ancestry.AuditCheck
	// AuditedConstraint is one constraint with a check per origin.
	AuditedConstraint = ancestry.AuditedConstraint
	// AuditReport is graft audit of one session.
	AuditReport = ancestry.AuditReport
	// ReliedCheck is one thing a target's graft/origin relies on,
	// recomputed.
	ReliedCheck = ancestry.ReliedCheck
	// CitedOrigin is one origin followed to the human words it names.
	CitedOrigin = ancestry.CitedOrigin
	// OriginRecall is graft recall --origin.
	OriginRecall = ancestry.OriginRecall
)

// Lineage states (ancestry.LineageState).
const (
	LineageLive       = ancestry.LineageLive
	LineageRetired    = ancestry.LineageRetired
	LineageReverted   = ancestry.LineageReverted
	LineageLeftover   = ancestry.LineageLeftover
	LineageAbandoned  = ancestry.LineageAbandoned
	LineageUnreadable = ancestry.LineageUnreadable
)

// Tamper-check states (AuditReport.TamperCheck).
const (
	TamperChecked      = ancestry.TamperChecked
	TamperPartial      = ancestry.TamperPartial
	TamperNotAvailable = ancestry.TamperNotAvailable
)

// lineage is the read-only queries of this service's home (package
// ancestry).
func (s *Service) lineage() *ancestry.Reader {
	return &ancestry.Reader{Store: s.store, Catalog: s.cat, Degrade: s.degrade, Folds: s.folds()}
}

// Ancestors returns id and every session above it, id first, up to the one
// of generation 1, from the logs alone (ancestry.Reader.Ancestors).
func (s *Service) Ancestors(id string) ([]Ancestor, error) { return s.lineage().Ancestors(id) }

// Parent is the session id was grafted from; "" for a generation-1
// session. It reads one line.
func (s *Service) Parent(id string) (string, error) { return s.lineage().Parent(id) }

// Lineage draws the tree of id, from the logs and the catalog
// (ancestry.Reader.Lineage).
func (s *Service) Lineage(id string) (*Lineage, error) { return s.lineage().Lineage(id) }

// Audit checks every constraint of id's current tape state against the
// human words it cites, and what id's graft/origin relies on against the
// logs (ancestry.Reader.Audit). A failed check is in the report (Err).
func (s *Service) Audit(id string) (*AuditReport, error) { return s.lineage().Audit(id) }

// RecallOrigin follows the event at seq of id to the human words it comes
// from (ancestry.Reader.RecallOrigin).
func (s *Service) RecallOrigin(id string, seq int64) (*OriginRecall, error) {
	return s.lineage().RecallOrigin(id, seq)
}
