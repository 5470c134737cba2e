package hookinstall

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
)

// registrar is host's adapter when it reads graft's MCP server from one
// more config file beside its hooks file (adapter.MCPRegistrar).
func registrar(host Host) (adapter.MCPRegistrar, bool) {
	a, err := hosts.Of(host)
	if err != nil {
		return nil, false
	}
	m, ok := a.(adapter.MCPRegistrar)
	return m, ok
}

// MCPConfigPath is the config file host reads graft's MCP server from,
// beside its hooks file (Codex's config.toml), for the host's folder dir
// ("": the environment's); ok is false when host has none.
func MCPConfigPath(host Host, dir string) (path string, ok bool, err error) {
	m, ok := registrar(host)
	if !ok {
		return "", false, nil
	}
	path, err = m.MCPConfig(dir)
	return path, true, err
}

// MCPResult is what InstallMCP or UninstallMCP did to the config file.
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

// InstallMCP registers graft's MCP server, running command with args, in
// host's config file at path (MCPConfigPath): the host's adapter says
// how (adapter.MCPRegistrar.AddMCPServer; for Codex, graft's table after
// one blank line, or replaced in place). Backups and writing as for the
// hooks file.
func InstallMCP(host Host, path, command string, args []string) (MCPResult, error) {
	m, ok := registrar(host)
	if !ok {
		return MCPResult{}, fmt.Errorf("hookinstall: %s reads graft's MCP server from no config file of its own", host)
	}
	return editMCPConfig(m, path, command, args, false, func(file string, data []byte, r *MCPResult) ([]byte, error) {
		out, present, notes, err := m.AddMCPServer(file, data, command, args)
		r.Present = present
		r.Notes = append(r.Notes, notes...)
		return out, err
	})
}

// UninstallMCP removes graft's MCP server from host's config file at path
// (adapter.MCPRegistrar.RemoveMCPServer). When one of graft's backups of
// the file holds exactly what is left (up to the newlines at its end), the
// backup's bytes are written: a file graft only installed into and
// uninstalled from comes back byte for byte.
func UninstallMCP(host Host, path string) (MCPResult, error) {
	m, ok := registrar(host)
	if !ok {
		return MCPResult{}, fmt.Errorf("hookinstall: %s reads graft's MCP server from no config file of its own", host)
	}
	return editMCPConfig(m, path, "", nil, true, func(file string, data []byte, r *MCPResult) ([]byte, error) {
		return m.RemoveMCPServer(data), nil
	})
}

func editMCPConfig(m adapter.MCPRegistrar, path, command string, args []string, restore bool, change func(string, []byte, *MCPResult) ([]byte, error)) (MCPResult, error) {
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
	if err := m.CheckMCPEdit(file, out); err != nil {
		return r, err
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
// out's up to the blanks at the end (install writes graft's table alone
// into a file of blanks, and blanks ending a TOML file mean nothing).
func sameBytesBackup(file string, out []byte) ([]byte, bool, error) {
	names, err := filepath.Glob(file + BackupSuffix + "*")
	if err != nil {
		return nil, false, err
	}
	sort.Slice(names, func(i, j int) bool { return backupNumber(file, names[i]) > backupNumber(file, names[j]) })
	want := bytes.TrimRight(out, " \t\r\n")
	for _, name := range names {
		if backupNumber(file, name) < 0 {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, false, fmt.Errorf("read the backup %s: %w", name, err)
		}
		if bytes.Equal(bytes.TrimRight(data, " \t\r\n"), want) {
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
