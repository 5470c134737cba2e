package errorfs

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrInjected is matched (errors.Is) by every error this package injects.
var ErrInjected = errors.New("errorfs: injected error")

// InjectedError is an error injected into one operation. It wraps both
// ErrInjected and Err, so errors.Is(err, syscall.ENOSPC) holds when Err is
// ENOSPC.
type InjectedError struct {
	Op  Op
	Err error
	// Torn asks the FS to write the first half of the bytes before failing;
	// it only has an effect on a write.
	Torn bool
	// Written and Of are set on a torn write: Written of Of bytes reached
	// the file.
	Written, Of int
	// exact (Fault.TornWriteAfter): the first after bytes are written
	// instead of half.
	exact bool
	after int
}

func (e *InjectedError) Error() string {
	msg := fmt.Sprintf("errorfs: injected %s on %s", errName(e.Err), e.Op)
	if e.Torn && e.Op.Kind == OpWrite {
		if e.exact {
			msg += fmt.Sprintf(" (torn after %d bytes: %d of %d bytes written)", e.after, e.Written, e.Of)
		} else {
			msg += fmt.Sprintf(" (torn: %d of %d bytes written)", e.Written, e.Of)
		}
	}
	return msg
}

func (e *InjectedError) Unwrap() []error { return []error{ErrInjected, e.Err} }

// errName is "EIO" for syscall.EIO and the message of any other error.
func errName(err error) string {
	if err == ErrInjected {
		return "error" // "injected error on op 3", not the sentinel's text twice
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name := unix.ErrnoName(errno); name != "" {
			return name
		}
	}
	return err.Error()
}

// Fault is an Injector that fails one operation: the n-th of the run
// (OnIndex) or the n-th of one kind on matching paths (OnKind). It remembers
// the operation it failed so a report can name it.
type Fault struct {
	err   error
	torn  bool
	exact bool // torn after exactly after bytes, not half
	after int

	// index > 0: fail the operation with that Index.
	index int
	// Otherwise: fail the nth operation of kind whose Path or NewPath
	// contains pathContains.
	kind         OpKind
	pathContains string
	nth          int

	mu    sync.Mutex
	seen  int // operations of kind on matching paths so far
	fired *Op
}

var _ Injector = (*Fault)(nil)

// OnIndex fails exactly the n-th operation (any kind) with err, typically a
// syscall.Errno such as syscall.EIO. n counts from 1.
func OnIndex(n int, err error) *Fault {
	if n < 1 {
		panic(fmt.Sprintf("errorfs: OnIndex(%d): operations count from 1", n))
	}
	mustErr("OnIndex", err)
	return &Fault{err: err, index: n}
}

// OnKind fails the nth operation of kind whose path (either path of a
// rename) contains pathContains; "" matches every path. nth counts from 1.
func OnKind(kind OpKind, pathContains string, nth int, err error) *Fault {
	if !kinds[kind] {
		panic(fmt.Sprintf("errorfs: OnKind: unknown operation kind %q", kind))
	}
	if nth < 1 {
		panic(fmt.Sprintf("errorfs: OnKind(%s, %q, %d): operations count from 1", kind, pathContains, nth))
	}
	mustErr("OnKind", err)
	return &Fault{err: err, kind: kind, pathContains: pathContains, nth: nth}
}

func mustErr(fn string, err error) {
	if err == nil {
		panic(fmt.Sprintf("errorfs: %s with a nil error would inject nothing", fn))
	}
}

// TornWrite makes the fault tear the write it fails: half the bytes are
// written, then the error is returned. A failed operation that is not a
// write just fails. It returns f for chaining.
func (f *Fault) TornWrite() *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.torn = true
	return f
}

// TornWriteAfter makes the fault tear the write it fails after its first n
// bytes (all of them when the write is shorter): a disk with n bytes free.
// A failed operation that is not a write just fails. It returns f for
// chaining.
func (f *Fault) TornWriteAfter(n int) *Fault {
	if n < 0 {
		panic(fmt.Sprintf("errorfs: TornWriteAfter(%d): a byte count is not negative", n))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.torn, f.exact, f.after = true, true, n
	return f
}

// MaybeError implements Injector.
func (f *Fault) MaybeError(op Op) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.index > 0 {
		if op.Index != f.index {
			return nil
		}
	} else {
		if op.Kind != f.kind || !(strings.Contains(op.Path, f.pathContains) || strings.Contains(op.NewPath, f.pathContains)) {
			return nil
		}
		f.seen++
		if f.seen != f.nth {
			return nil
		}
	}
	f.fired = &op
	return &InjectedError{Op: op, Err: f.err, Torn: f.torn, exact: f.exact, after: f.after}
}

// Fired returns the operation the fault failed, if it was reached.
func (f *Fault) Fired() (Op, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fired == nil {
		return Op{}, false
	}
	return *f.fired, true
}

// String reads "EIO on op 7: sync sessions/x.jsonl" once fired, and
// describes the target otherwise ("EIO on op 7 (not reached)").
func (f *Fault) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s string
	switch {
	case f.fired != nil:
		s = fmt.Sprintf("%s on %s", errName(f.err), *f.fired)
	case f.index > 0:
		s = fmt.Sprintf("%s on op %d (not reached)", errName(f.err), f.index)
	default:
		s = fmt.Sprintf("%s on %s #%d of paths containing %q (not reached; %d seen)", errName(f.err), f.kind, f.nth, f.pathContains, f.seen)
	}
	if f.torn && (f.fired == nil || f.fired.Kind == OpWrite) {
		if f.exact {
			s += fmt.Sprintf(" (torn after %d bytes)", f.after)
		} else {
			s += " (torn write)"
		}
	}
	return s
}
