// Package crashfs is an in-memory vfs.FS that remembers what would survive a
// power loss, for the crash suite: run graft on it, then check recovery on
// every state the disk could have been left in.
//
// # Semantics
//
// Paths are cleaned (filepath.Clean) and taken from the root; a relative
// name is read as if it began with "/", since there is no working directory.
// Open, Create and OpenAppend refuse a symlink as the last element (ELOOP);
// Create is exclusive (EEXIST for any existing entry); symlinks in earlier
// elements are followed (40 at most). ReadDir is sorted by name; Lstat
// describes a symlink. Modes are kept as given (no umask). Errors are
// *fs.PathError or *os.LinkError around a syscall.Errno, as package os
// returns them. Modification times come from a logical clock (one
// millisecond per change from 2000-01-01 UTC), so runs are reproducible.
// File.Lock takes the file's exclusive lock in the FS's lock table, waiting
// while another handle holds it: each handle is an open file description of
// its own, so two handles of one file exclude each other and Close releases
// the lock, as flock(2) on disk. A crash state starts with no lock held.
// WriteFileAtomic runs as the steps of the real one: create
// "."+base+digits in the same directory, write, sync, close, rename over the
// name, sync the directory.
//
// # Durability model
//
// Every file keeps its live bytes and its synced bytes; every directory
// keeps its live entries and its durable entries.
//   - File.Sync makes the file's bytes durable, including a Truncate.
//   - SyncDir makes the directory's entries durable: names created, renamed
//     in or out, or removed. It says nothing about the directory's own entry
//     in its parent, which needs SyncDir of the parent (so a MkdirAll-made
//     directory survives only once each parent is synced). SyncDir on a
//     regular file syncs its bytes, as open+fsync does on a real system.
//   - What survives a power loss (CrashClone) is the tree reachable from the
//     root through durable entries only, each file holding its synced bytes.
//     A file created but whose directory was never synced is gone; a rename
//     not followed by SyncDir is undone (the old name, the old file); a
//     remove not synced comes back.
//   - StartRecording and LoadDir first make everything present durable, as
//     after a clean shutdown: the recording judges the run, not the setup.
//
// # Crash states
//
// After StartRecording every mutating operation (create, write, truncate,
// sync, rename, remove, mkdirall, syncdir, symlink, and each step of
// WriteFileAtomic) is logged with a copy of the whole tree; file bytes are
// shared copy-on-write, so appends stay cheap. CrashStates turns the log
// into states. At the start and after each operation it takes these views:
// durable; each directory with unsynced entries shown live (alone); and all
// such directories live together when there are two or more. In each view
// it keeps every file's synced bytes, and then, one file at a time, tries
// each file reachable in the view whose live bytes differ from its synced
// ones: an append of u unsynced bytes is torn after u/2, u-1 and u bytes;
// any other change (truncate, overwrite) shows the live bytes whole. States
// with the same content are kept once, under the first name. So a rename
// before SyncDir yields both the old and the new entry, a file made visible
// by a live directory can appear empty or with a torn prefix, and the final
// name of a WriteFileAtomic only ever holds the old or the new whole file.
//
// # Limits: what a real filesystem may do that this model does not
//
//   - Combinations: a real disk may keep any subset of unsynced changes
//     (two torn files at once, one directory's entries but only some of
//     them). The views above are a chosen, deterministic subset.
//   - Torn data is always a prefix of the appended bytes. Real disks may
//     persist sectors out of order, leave zero-filled or garbage blocks
//     (delayed allocation), or a size update without the data.
//   - Entries are all-or-nothing per directory. A rename across two
//     directories can appear at both names (sharing one file) or at neither,
//     which journaling filesystems avoid. Renaming directories can produce a
//     durable tree in which a directory is its own ancestor; CrashStates
//     leaves such views out and CrashClone panics on one.
//   - Metadata: no permission checks (everything runs as root would), no
//     owners, no hard links, no chmod, no space limit, no fsync errors
//     (inject those with errorfs), and modification times do not survive
//     as a real disk's would. A file's mode is durable with its entry.
//   - Some filesystems make more durable than asked (ext4 commits its whole
//     journal on fsync, so a new file's entry often survives without
//     SyncDir). The model is stricter on purpose: code that is safe here is
//     safe on any POSIX filesystem that honours fsync.
//   - Cost: each recorded operation copies the tree structure, not file
//     bytes (appends stay in place; a rewrite below a shared length copies
//     the file once), and states share bytes. Dedup hashes each file's bytes
//     about once per run (resuming from the shorter prefixes already
//     hashed): 300 appends to a 5 MiB file give 901 states in tens of
//     milliseconds. Many files or directories make it slower, as
//     every state is a tree of its own.
package crashfs
