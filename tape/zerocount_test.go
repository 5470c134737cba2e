package tape

import (
	"slices"
	"testing"
)

// cargo test runs one binary per target and counts each: a crate's unit
// tests, then its doc tests, often none ("running 0 tests", "test result:
// ok. 0 passed; 0 failed; …"). Those lines end the output and took the
// quote's room from the run's own count. A count of nothing says nothing
// of the run beside a line of its shape that counts something; alone (a
// filter that matched no test) it is the verdict, and stays.
func TestACountOfNothingYieldsToOneOfItsShape(t *testing.T) {
	out := "   Compiling fnox v1.2.0\n    Finished `test` profile [unoptimized] target(s) in 2.26s\n     Running unittests src/lib.rs (target/debug/deps/fnox-1)\n\n" +
		"running 200 tests\ntest a ... ok\ntest b ... ok\n\ntest result: ok. 200 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.10s\n\n" +
		"   Doc-tests fnox\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n"
	got := keyLines(out, true)
	if !slices.Contains(got, "test result: ok. 200 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.10s") || !slices.Contains(got, "running 200 tests") {
		t.Errorf("the run's own count is not quoted: %q", got)
	}
	for _, l := range got {
		if l == "running 0 tests" || l == "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s" {
			t.Errorf("a count of nothing is quoted beside one that counts: %q", got)
		}
	}
	// Alone, a count of nothing is the verdict.
	alone := "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out; finished in 0.00s\n"
	if got := keyLines(alone, true); !slices.Contains(got, "running 0 tests") {
		t.Errorf("a run of no test lost its verdict: %q", got)
	}
}
