package main

import (
	"runtime/debug"
	"testing"
)

// graft runs at GOGC 50 unless the environment says otherwise; a GOGC the
// user set wins.
func TestTuneGC(t *testing.T) {
	saved := debug.SetGCPercent(100)
	defer debug.SetGCPercent(saved)
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got := tuneGC(getenv); got != 50 {
		t.Fatalf("GOGC unset: tuneGC = %d, want 50", got)
	}
	if now := debug.SetGCPercent(100); now != 50 {
		t.Fatalf("GOGC unset: the runtime runs at %d, want 50", now)
	}
	env["GOGC"] = "200"
	debug.SetGCPercent(200) // what the runtime read from the environment
	if got := tuneGC(getenv); got != 200 {
		t.Fatalf("GOGC=200: tuneGC = %d, want 200 kept", got)
	}
	if now := debug.SetGCPercent(100); now != 200 {
		t.Fatalf("GOGC=200: the runtime runs at %d", now)
	}
}
