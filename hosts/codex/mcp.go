package codex

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/graft-project/graft/hosts/adapter"
	toml "github.com/pelletier/go-toml/v2"
)

// MCPMarker is the comment line that opens the [mcp_servers.graft] table
// graft writes into Codex's config.toml: only a table under it is graft's
// to replace or remove (hookinstall/doc.go, "Codex's MCP server").
const MCPMarker = `# graft's MCP server, added by "graft hook install codex"; "graft hook uninstall codex" removes this table`

// MCPConfig is Codex's config.toml: dir/config.toml, dir defaulting to
// $CODEX_HOME, else ~/.codex (adapter.MCPRegistrar).
func (Adapter) MCPConfig(dir string) (string, error) {
	hooks, err := settingsPath(adapter.ScopeUser, dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(hooks), "config.toml"), nil
}

// AddMCPServer adds graft's table (the marker, [mcp_servers.graft],
// command, args) after one blank line, or replaces it in place when
// graft's table is there with another command. A [mcp_servers.graft] of
// the person's own is left alone, with a note.
func (Adapter) AddMCPServer(file string, data []byte, command string, args []string) (out []byte, present bool, notes []string, err error) {
	block := mcpBlock(command, args)
	if s, e, ok := findMCPBlock(data); ok {
		if bytes.Equal(data[s:e], block) || bytes.Equal(bytes.TrimRight(data[s:e], "\n"), bytes.TrimRight(block, "\n")) {
			return nil, true, nil, nil
		}
		return append(append(append([]byte{}, data[:s]...), block...), data[e:]...), false, nil, nil
	}
	own, err := hasGraftTable(file, data)
	if err != nil {
		return nil, false, nil, err
	}
	if own {
		return nil, false, []string{fmt.Sprintf("%s already has an [mcp_servers.graft] table of your own: left as it is (graft's hook uninstall will not remove it)", file)}, nil
	}
	out = append([]byte{}, data...)
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		out = nil
	case bytes.HasSuffix(data, []byte("\n")):
		out = append(out, '\n')
	default:
		out = append(out, '\n', '\n')
	}
	return append(out, block...), false, nil, nil
}

// RemoveMCPServer cuts graft's table and the blank line install put before
// it.
func (Adapter) RemoveMCPServer(data []byte) []byte {
	s, e, ok := findMCPBlock(data)
	if !ok {
		return nil
	}
	head, tail := data[:s], data[e:]
	if len(tail) == 0 && bytes.HasSuffix(head, []byte("\n\n")) {
		head = head[:len(head)-1]
	} else if len(tail) > 0 && bytes.HasSuffix(head, []byte("\n\n")) && bytes.HasPrefix(tail, []byte("\n")) {
		tail = tail[1:]
	}
	return append(append([]byte{}, head...), tail...)
}

// CheckMCPEdit is an error when graft's edit of config.toml is not TOML.
func (Adapter) CheckMCPEdit(file string, out []byte) error {
	if _, err := hasGraftTable(file, out); err != nil {
		return fmt.Errorf("graft's edit of %s would not be valid TOML (a bug): %w", file, err)
	}
	return nil
}

// mcpBlock is graft's table: the marker, the header, command and args.
func mcpBlock(command string, args []string) []byte {
	var b bytes.Buffer
	b.WriteString(MCPMarker + "\n[mcp_servers.graft]\n")
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

// findMCPBlock returns the byte span of graft's table in data: the marker
// line, the [mcp_servers.graft] header under it, and the lines after it up
// to the first blank line, comment, table header or the end. ok is false
// when there is no marker line over the header.
func findMCPBlock(data []byte) (start, end int, ok bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	off := 0
	for i, l := range lines {
		if string(bytes.TrimRight(l, "\r\n")) == MCPMarker && i+1 < len(lines) &&
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
