package vfs_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/graft-project/graft/vfs"
)

// On disk, Lock is flock(2) of the open file: a second open of the file
// waits until the holder closes; the holder locking again does not wait.
func TestOSLockWaitsForTheHolder(t *testing.T) {
	name := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	first, err := vfs.Default.OpenAppend(name)
	if err != nil {
		t.Fatal(err)
	}
	second, err := vfs.Default.OpenAppend(name)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := first.Lock(); err != nil {
		t.Fatalf("first Lock: %v", err)
	}
	if err := first.Lock(); err != nil {
		t.Fatalf("first Lock again: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- second.Lock() }()
	select {
	case err := <-done:
		t.Fatalf("second open locked while the first holds the lock: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("second Lock after the first closed: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second open still waiting after the first closed")
	}
}
