package crashfs

import "sync"

// lockFreed is the condition Lock waits on for a release; f.mu is held.
func (f *FS) lockFreed() *sync.Cond {
	if f.freed == nil {
		f.freed = sync.NewCond(&f.mu)
	}
	return f.freed
}

// unlock releases h's lock, if it holds one, and wakes the waiters; f.mu
// is held.
func (f *FS) unlock(h *file) {
	if f.locks[h.n] != h {
		return
	}
	delete(f.locks, h.n)
	f.lockFreed().Broadcast()
}
