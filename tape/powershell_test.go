package tape

import (
	"strings"
	"testing"
)

// Claude Code on Windows runs commands with its PowerShell tool
// ({"command": …}, as Bash's): it is a shell, so its calls are commands
// ("$ git commit …"), and a commit or a push through it is a milestone.
// A real conductor
// session ran every git and gh command so: its tape had named them
// "PowerShell ok: …" and kept none as a milestone.
func TestPowerShellIsAShell(t *testing.T) {
	if !isShellTool("PowerShell") {
		t.Fatal("PowerShell is no shell")
	}
	b := fold(t, "s", seqd(human("Commit it."),
		call("PowerShell", "p1", `{"command":"git commit -m \"feat: board\"","description":"Commit"}`), result("PowerShell", "p1", true, "[dev 59bc98d] feat: board\n 2 files changed, 40 insertions(+)"),
	))
	if len(b.st.Milestones) != 1 || b.st.Milestones[0].Kind != "vcs" {
		t.Fatalf("milestones %+v: want the commit", b.st.Milestones)
	}
	tp, err := b.Build(Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a := blockText(t, tp, "Recent Actions"); !strings.Contains(a, `ok: $ git commit -m "feat: board"`) {
		t.Fatalf("the commit is not named as a command:\n%s", a)
	}
}

// On Windows an agent writes files through PowerShell as often as through
// a file tool (Gemini CLI's write_file refuses a path outside its
// workspace, and the agent falls back to its shell): a here-string
// assigned to a variable and piped into Set-Content, Out-File or
// Add-Content, or a file's own lines piped back after -replace. A real
// Gemini CLI session on Windows wrote seven scripts so, and its tape said
// "No file was read, written or edited by a tool".
func TestAPowerShellWriteIsAFileWrite(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		input string
		want  string // the line, with RSEQ for the result seq; "" = not listed
	}{
		{"a here-string piped into Set-Content", "run_shell_command",
			`{"command":"$content = @'\n#!/usr/bin/env python3\nimport os\n\ndef main():\n    pass\n'@\n$content | Set-Content C:\\w\\scripts\\audit.py"}`,
			`- C:\w\scripts\audit.py: write seq=RSEQ (defines main)`},
		{"a here-string piped into Out-File", "PowerShell",
			`{"command":"@\"\nhello\n\"@ | Out-File -FilePath notes.md -Encoding utf8"}`,
			"- notes.md: write seq=RSEQ (last change: hello)"},
		{"Set-Content -Path -Value", "shell_command",
			`{"command":"$t = @'\nline one\n'@\nSet-Content -Path 'docs/a.md' -Value $t -Encoding utf8"}`,
			"- docs/a.md: write seq=RSEQ (last change: line one)"},
		{"Add-Content appends: an edit", "PowerShell",
			`{"command":"Add-Content -Path log.md -Value 'more'"}`,
			"- log.md: edit seq=RSEQ"},
		{"Out-File -Append: an edit", "PowerShell",
			`{"command":"$x = @'\nrow\n'@\n$x | Out-File log.md -Append"}`,
			"- log.md: edit seq=RSEQ (last change: row)"},
		{"a file's lines piped back after -replace: an edit", "run_shell_command",
			`{"command":"(Get-Content C:\\w\\gen.py) -replace 'a|b', 'c' | Set-Content C:\\w\\gen.py"}`,
			`- C:\w\gen.py: edit seq=RSEQ`},
		{"a copy through powershell -Command", "run_shell_command",
			`{"command":"powershell -Command \"Get-Content 'C:\\w\\a.sh' | Out-File -Encoding UTF8 'C:\\w\\tmp.txt'\""}`,
			`- C:\w\tmp.txt: write seq=RSEQ`},
		{"a path in a variable names no file", "PowerShell",
			`{"command":"$vbs | Out-File -FilePath $vbsPath -Encoding ASCII"}`, ""},
		{"a script a here-document writes is text", "Bash",
			`{"command":"cat > sync.ps1 <<'EOF'\n$c | Set-Content out.txt\nEOF"}`,
			"Files written or edited, then only read, most recent first.\n- sync.ps1: write seq=RSEQ (last change: $c | Set-Content out.txt)"},
		{"a cmdlet named in a string writes nothing", "PowerShell",
			`{"command":"Write-Host 'then | Set-Content x.md'"}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkFilesLine(t, tc.tool, tc.input, tc.want) })
	}
}

// namesWriteCmdlet decides, without a copy, whether a command may write
// with a cmdlet: in any case, and at the command's very start or end.
func TestNamesWriteCmdlet(t *testing.T) {
	for cmd, want := range map[string]bool{
		"Set-Content a.md":              true,
		"x | set-content a.md":          true,
		"ADD-CONTENT log.md -Value 'x'": true,
		"$c | Out-File o.txt":           true,
		"$c|out-file":                   true,
		"Get-Content a.md":              false,
		"git commit -m 'content'":       false,
		"echo -content":                 false,
		"":                              false,
	} {
		if got := namesWriteCmdlet(cmd); got != want {
			t.Errorf("namesWriteCmdlet(%q) = %v, want %v", cmd, got, want)
		}
	}
}
