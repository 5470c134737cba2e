package tape

import (
	"encoding/json"
	"testing"
)

// The lines a change adds leave out what says nothing of the work: the
// imports a new file opens with (a block of them to its end), its
// shebang and package clause, lines of brackets alone. A 600-character
// view of a new TypeScript script had shown its imports and nothing else.
func TestAChangesLinesLeaveOutImports(t *testing.T) {
	content := "#!/usr/bin/env bun\n/** Release script. */\nimport { spawnSync } from 'node:child_process'\nimport {\n  mkdirSync,\n  readFileSync,\n} from 'node:fs'\nconst fs = require('fs')\n\nfunction promptForOtp(): string {\n  return ask('Enter npm OTP to publish: ')\n}\n"
	in, _ := json.Marshal(map[string]string{"file_path": "/r/scripts/release.ts", "content": content})
	got := editChange("Write", in)
	want := "/** Release script. */ ⏎ function promptForOtp(): string { ⏎ return ask('Enter npm OTP to publish: ')"
	if got != want {
		t.Errorf("the change of a new script:\n got %q\nwant %q", got, want)
	}
	for _, c := range []struct{ lang, text, want string }{
		{"go", "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tfmt.Println(os.Args)\n}\n", "func main() { ⏎ fmt.Println(os.Args)"},
		{"python", "from x import (\n    a,\n    b,\n)\nimport os\n\nRETRIES = 3\n", "RETRIES = 3"},
		{"rust", "use std::{fs, io};\nextern crate serde;\n\nconst PORT: u16 = 8080;\n", "const PORT: u16 = 8080;"},
		{"shell", "#!/bin/sh\nalias ll='ls -l'\n", "alias ll='ls -l'"},
		{"c#", "using System;\nusing (var db = Open()) {\n  db.Save();\n}\n", "using (var db = Open()) { ⏎ db.Save();"},
	} {
		in, _ := json.Marshal(map[string]string{"file_path": "/r/x", "content": c.text})
		if got := editChange("Write", in); got != c.want {
			t.Errorf("%s: got %q, want %q", c.lang, got, c.want)
		}
	}
}
