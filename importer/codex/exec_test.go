package codex

import "testing"

// ParseExec reads the unified-exec header as the real Codex writes it
// (doc.go): its exit or its running session; the command's own output
// after "Output:" is never read for them.
func TestParseExec(t *testing.T) {
	yes, no := true, false
	for name, c := range map[string]struct {
		out     string
		found   bool
		ok      *bool
		running string
	}{
		"0.114 exit 3":                        {out: "Chunk ID: 45a706\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 6\nOutput:\nFIRST-LINE\nSECOND-LINE\n", found: true, ok: &no},
		"0.115 command first":                 {out: "Command: /bin/bash -lc 'go test ./...'\nChunk ID: 1f\nWall time: 1.2000 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nok", found: true, ok: &yes},
		"running":                             {out: "Chunk ID: 9\nWall time: 10.0 seconds\nProcess running with session ID 86659\nOriginal token count: 2\nOutput:\nso far", found: true, running: "86659"},
		"blank space before, CRLF":            {out: "\n  Chunk ID: 9\r\nWall time: 0.1 seconds\r\nProcess exited with code 0\r\nOutput:\r\nx", found: true, ok: &yes},
		"the output's own lines are not read": {out: "Chunk ID: 9\nWall time: 0.1 seconds\nOutput:\nProcess exited with code 1\n", found: true},
		"plain text":                          {out: "plain\nOutput:\nmore"},
		"only starts like it":                 {out: "Wall time: the whole afternoon\n1\n2\n3\n4\n5\n6\n7\n8\nOutput:\nx"},
	} {
		e, found := ParseExec(c.out)
		if found != c.found || e.Running != c.running || (e.OK == nil) != (c.ok == nil) || e.OK != nil && *e.OK != *c.ok {
			t.Errorf("%s: ParseExec = %+v (ok %v), %v; want found %v ok %v running %q", name, e, deref(e.OK), found, c.found, deref(c.ok), c.running)
		}
	}
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
