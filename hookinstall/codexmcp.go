package hookinstall

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// CodexMCPMarker is the comment line that opens the [mcp_servers.graft]
// table graft writes into Codex's config.toml: only a table under it is
// graft's to replace or remove (doc.go, "Codex's MCP server").
const CodexMCPMarker = `# graft's MCP server, added by "graft hook install codex"; "graft hook uninstall codex" removes this table`

// CodexConfigPath is Codex's config.toml: dir/config.toml, dir defaulting
// to $CODEX_HOME, else ~/.codex.
func CodexConfigPath(dir string) (string, error) {
	hooks, err := SettingsPath(Codex, ScopeUser, dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(hooks), "config.toml"), nil
}

// MCPResult is what InstallCodexMCP or UninstallCodexMCP did to config.toml.
type MCPResult struct {
	File    string   `json:"file"`
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	Created bool     `json:"created"`
	Changed bool     `json:"changed"`
	// Present: graft's table was there already, as it would write it.
	Present bool `json:"present"`
	// Removed: uninstall removed the file graft had created.
	Removed bool     `json:"removed"`
	Backup  string   `json:"backup,omitempty"`
	Notes   []string `json:"notes"`
}

// codexMCPBlock is graft's table: the marker, the header, command and args.
func codexMCPBlock(command string, args []string) []byte {
	var b bytes.Buffer
	b.WriteString(CodexMCPMarker + "\n[mcp_servers.graft]\n")
	b.WriteString("command = " + tomlString(command) + "\n")
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = tomlString(a)
	}
	b.WriteString("args = [" + strings.Join(q, ", ") + "]\n")
	return b.Bytes()
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// findCodexMCPBlock returns the byte span of graft's table in data: the
// marker line, the [mcp_servers.graft] header under it, and the lines
// after it up to the first blank line, comment, table header or the end.
// ok is false when there is no marker line over the header.
func findCodexMCPBlock(data []byte) (start, end int, ok bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	off := 0
	for i, l := range lines {
		if string(bytes.TrimRight(l, "\r\n")) == CodexMCPMarker && i+1 < len(lines) &&
			string(bytes.TrimSpace(lines[i+1])) == "[mcp_servers.graft]" {
			start, end = off, off+len(l)+len(lines[i+1])
			for _, k := range lines[i+2:] {
				t := bytes.TrimSpace(k)
				if len(t) == 0 || t[0] == '#' || t[0] == '[' {
					break
				}
				end += len(k)
			}
			return start, end, true
		}
		off += len(l)
	}
	return 0, 0, false
}

// hasGraftTable reports whether data (TOML) defines mcp_servers.graft.
func hasGraftTable(file string, data []byte) (bool, error) {
	var v struct {
		MCPServers map[string]any `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &v); err != nil {
		return false, fmt.Errorf("%s is not valid TOML: %v; nothing written", file, err)
	}
	_, ok := v.MCPServers["graft"]
	return ok, nil
}

// InstallCodexMCP registers graft's MCP server in Codex's config.toml
// (path): graft's table (the marker, [mcp_servers.graft], command, args)
// appended after one blank line, or replaced in place when graft's table
// is there with another command. A [mcp_servers.graft] of the person's own
// is left alone, with a note. Backups and writing as for the hooks file.
func InstallCodexMCP(path, command string, args []string) (MCPResult, error) {
	block := codexMCPBlock(command, args)
	return editCodexConfig(path, command, args, false, func(file string, data []byte, r *MCPResult) ([]byte, error) {
		if s, e, ok := findCodexMCPBlock(data); ok {
			if bytes.Equal(data[s:e], block) || bytes.Equal(bytes.TrimRight(data[s:e], "\n"), bytes.TrimRight(block, "\n")) {
				r.Present = true
				return nil, nil
			}
			return append(append(append([]byte{}, data[:s]...), block...), data[e:]...), nil
		}
		own, err := hasGraftTable(file, data)
		if err != nil {
			return nil, err
		}
		if own {
			r.Notes = append(r.Notes, fmt.Sprintf("%s already has an [mcp_servers.graft] table of your own: left as it is (graft's hook uninstall will not remove it)", file))
			return nil, nil
		}
		out := append([]byte{}, data...)
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			out = nil
		case bytes.HasSuffix(data, []byte("\n")):
			out = append(out, '\n')
		default:
			out = append(out, '\n', '\n')
		}
		return append(out, block...), nil
	})
}

// UninstallCodexMCP removes graft's table from Codex's config.toml, and
// the blank line install put before it. When one of graft's backups of
// the file holds exactly what is left (up to the newlines at its end), the
// backup's bytes are written: a file graft only installed into and
// uninstalled from comes back byte for byte.
func UninstallCodexMCP(path string) (MCPResult, error) {
	return editCodexConfig(path, "", nil, true, func(file string, data []byte, r *MCPResult) ([]byte, error) {
		s, e, ok := findCodexMCPBlock(data)
		if !ok {
			return nil, nil
		}
		head, tail := data[:s], data[e:]
		if len(tail) == 0 && bytes.HasSuffix(head, []byte("\n\n")) {
			head = head[:len(head)-1]
		} else if len(tail) > 0 && bytes.HasSuffix(head, []byte("\n\n")) && bytes.HasPrefix(tail, []byte("\n")) {
			tail = tail[1:]
		}
		return append(append([]byte{}, head...), tail...), nil
	})
}

func editCodexConfig(path, command string, args []string, restore bool, change func(string, []byte, *MCPResult) ([]byte, error)) (MCPResult, error) {
	file, err := resolve(path)
	if err != nil {
		return MCPResult{}, err
	}
	r := MCPResult{File: file, Command: command, Args: args, Notes: []string{}}
	unlock, err := lockDir(filepath.Dir(file))
	if err != nil {
		return r, err
	}
	defer unlock()
	data, perm, exists, err := readFile(file)
	if err != nil {
		return r, err
	}
	out, err := change(file, data, &r)
	if err != nil || out == nil {
		return r, err
	}
	if exists && perm&0o222 == 0 {
		return r, fmt.Errorf("%s is read-only (mode %04o): graft does not replace it; make it writable (chmod u+w) or edit it by hand", file, perm)
	}
	if _, err := hasGraftTable(file, out); err != nil {
		return r, fmt.Errorf("graft's edit of %s would not be valid TOML (a bug): %w", file, err)
	}
	if restore {
		if orig, ok, err := sameBytesBackup(file, out); err != nil {
			return r, err
		} else if ok {
			out = orig
		} else if len(out) == 0 && !hasBackup(file) {
			// Graft created the file (no backup of an earlier one) and
			// nothing else is in it: it goes, as it was before.
			if err := fsys.Remove(file); err != nil {
				return r, fmt.Errorf("remove %s: %w", file, err)
			}
			if err := fsys.SyncDir(filepath.Dir(file)); err != nil {
				return r, fmt.Errorf("remove %s: %w", file, err)
			}
			r.Changed, r.Removed = true, true
			return r, nil
		}
	}
	if r.Backup, err = writeEdited(file, data, out, perm, exists); err != nil {
		return r, err
	}
	r.Created, r.Changed = !exists, true
	return r, nil
}

// sameBytesBackup finds, newest first, a backup of file whose bytes are
// out's up to the newlines at the end.
func sameBytesBackup(file string, out []byte) ([]byte, bool, error) {
	names, err := filepath.Glob(file + BackupSuffix + "*")
	if err != nil {
		return nil, false, err
	}
	sort.Slice(names, func(i, j int) bool { return backupNumber(file, names[i]) > backupNumber(file, names[j]) })
	want := bytes.TrimRight(out, "\n")
	for _, name := range names {
		if backupNumber(file, name) < 0 {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, false, fmt.Errorf("read the backup %s: %w", name, err)
		}
		if bytes.Equal(bytes.TrimRight(data, "\n"), want) {
			return data, true, nil
		}
	}
	return nil, false, nil
}

func hasBackup(file string) bool {
	names, _ := filepath.Glob(file + BackupSuffix + "*")
	for _, n := range names {
		if backupNumber(file, n) >= 0 {
			return true
		}
	}
	return false
}
