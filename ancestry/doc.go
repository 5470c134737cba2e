// Package ancestry answers the read-only questions about a session's
// place among its generations, from the logs (the truth) and, where it
// helps, the catalog: Ancestors and Parent (up through each log's
// graft/origin), Lineage (the whole tree, down through every child, each
// checked against its own log) and Head (the session to continue in);
// Audit (each constraint of a session's tape re-read at the human words it
// cites, and what its graft/origin relies on recomputed: the tamper check,
// relied.go); RecallOrigin (an event followed to the human words it comes
// from). It writes nothing but the notes of reads that fell back to the
// logs (Reader.Degrade); the folds and recalls it needs go through the
// home's fold cache (package foldcache), which may store indexes as a
// prepare would.
//
// Package graft calls it through a Reader, which it fills with what the
// queries need of the service (the session store, the catalog opener, the
// fold cache, the service's notes), and keeps thin Service methods and the
// names of its types for the CLI and the MCP server: the package does not
// import graft.
//
// # What it owns on disk
//
// Nothing: it reads the logs (package session's), catalog.db's lineage
// and leftovers (package catalog's) and, through the fold cache, the
// indexes (package index's, index/doc.go).
package ancestry
