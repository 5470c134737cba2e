package helperproc

import (
	"fmt"
	"io"
	"os"
	"testing"
)

const envEcho = "GRAFT_HELPERPROC_ECHO"

// TestHelperProcess is the child: it prints its variable, then a line per
// byte count of its stdin once that closes.
func TestHelperProcess(t *testing.T) {
	v := os.Getenv(envEcho)
	if v == "" {
		t.Skip("helper child only")
	}
	fmt.Println("hello " + v)
	b, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println(len(b))
	os.Exit(0)
}

func TestStartLineWait(t *testing.T) {
	c := Start(t, envEcho+"=there")
	if got := c.Line(t); got != "hello there" {
		t.Fatalf("first line %q", got)
	}
	if _, err := c.Stdin.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if err := c.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if got := c.Line(t); got != "3" {
		t.Fatalf("second line %q, want 3", got)
	}
	c.Wait(t)
}
