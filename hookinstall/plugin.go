package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
)

// graft's Claude Code plugin as its marketplace (plugin/ in graft's
// repository) names it.
const (
	PluginMarketplace = "graft"
	PluginName        = "graft"
	// PluginID is how Claude Code's enabledPlugins names it
	// (adapter.PluginID, which the hosts' adapters use).
	PluginID = adapter.PluginID
)

// The two keys of Claude Code's user settings that load a plugin from a
// directory marketplace: what "claude plugin marketplace add" and "claude
// plugin install" record there (they also write files under plugins/ and
// rewrite the whole settings file; these two keys alone load it).
const (
	keyMarketplaces = "extraKnownMarketplaces"
	keyEnabled      = "enabledPlugins"
)

// PluginHost is the host graft's plugin is a plugin of: the one whose
// adapter's Hooks declare Plugin (Claude Code).
func PluginHost() (Host, error) {
	for _, a := range hosts.Adapters() {
		if a.Hooks().Plugin {
			return a.Name(), nil
		}
	}
	return "", errors.New("hookinstall: no host of the registry has graft's plugin")
}

// PluginResult is what InstallPlugin and UninstallPlugin did.
type PluginResult struct {
	// File is the settings file (a symlink resolved to its target).
	File string `json:"file"`
	// Created: the file did not exist and the install created it.
	Created bool `json:"created"`
	// Changed: the file was written.
	Changed bool `json:"changed"`
	// Deleted: the uninstall removed the file the install had created.
	Deleted bool `json:"deleted"`
	// Backup is the copy of the file as it was before the change.
	Backup string `json:"backup,omitempty"`
}

func pluginResult(r Result) PluginResult {
	return PluginResult{File: r.File, Created: r.Created, Changed: r.Changed, Backup: r.Backup}
}

// pluginSource is the value of extraKnownMarketplaces.graft for the
// marketplace directory dir.
func pluginSource(dir string) []byte {
	return marshal(map[string]any{"source": map[string]any{"source": "directory", "path": dir}})
}

// InstallPlugin enables graft's Claude Code plugin from the marketplace
// directory dir (absolute; holding .claude-plugin/marketplace.json) in the
// settings file at path (the user's settings.json: Claude Code loads a
// plugin named in a project's settings only when installed there by its
// own command). It adds extraKnownMarketplaces.graft and
// enabledPlugins["graft@graft"], each object created when missing, nothing
// else changed: UninstallPlugin gives the file back byte for byte.
func InstallPlugin(path, dir string) (PluginResult, error) {
	if !filepath.IsAbs(dir) {
		return PluginResult{}, fmt.Errorf("hookinstall: the plugin's marketplace directory %q is not absolute", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude-plugin", "marketplace.json")); err != nil {
		return PluginResult{}, fmt.Errorf("hookinstall: %s is not graft's plugin marketplace (no .claude-plugin/marketplace.json): %w", dir, err)
	}
	host, err := PluginHost()
	if err != nil {
		return PluginResult{}, err
	}
	var bad error
	r, err := edit(host, path, "", func(s *settings, r *Result) bool {
		changed := false
		for _, kv := range []struct {
			key, member string
			val         []byte
		}{{keyMarketplaces, PluginMarketplace, pluginSource(dir)}, {keyEnabled, PluginID, []byte("true")}} {
			o, err := topObject(s, kv.key)
			if err != nil {
				bad = err
				return false
			}
			if i := o.index(kv.member); i >= 0 && jsonEqual(o[i].val, kv.val) {
				continue
			}
			s.top = s.top.set(kv.key, encodeObject(o.set(kv.member, kv.val)))
			changed = true
		}
		return changed
	})
	if bad != nil {
		return pluginResult(r), bad
	}
	return pluginResult(r), err
}

// UninstallPlugin removes what InstallPlugin added from the settings file
// at path: extraKnownMarketplaces.graft (a directory source) and
// enabledPlugins["graft@graft"], and either object it leaves empty. A file
// graft's backup holds the same settings as is written back as that
// backup's bytes; a file graft created and that holds nothing else goes.
func UninstallPlugin(path string) (PluginResult, error) {
	host, err := PluginHost()
	if err != nil {
		return PluginResult{}, err
	}
	var bad error
	r, err := editFile(host, path, "", true, func(s *settings, r *Result) bool {
		changed := false
		var emptied []string // objects graft's member was the last of
		for _, kv := range []struct{ key, member string }{{keyMarketplaces, PluginMarketplace}, {keyEnabled, PluginID}} {
			o, err := topObject(s, kv.key)
			if err != nil {
				bad = err
				return false
			}
			i := o.index(kv.member)
			if i < 0 {
				continue
			}
			if kv.key == keyMarketplaces && !isDirectorySource(o[i].val) {
				continue // a marketplace named graft that graft did not add
			}
			o = o.remove(kv.member)
			s.top = s.top.set(kv.key, encodeObject(o))
			if len(o) == 0 {
				emptied = append(emptied, kv.key)
			}
			changed = true
		}
		// An object graft's install created goes with graft's member; one
		// the person had (empty, then) stays: whichever choice a backup of
		// the file holds (editFile then writes that backup's own bytes),
		// else every emptied object goes.
		full := s.top
		choose := func(keepMask int) object {
			o := full
			for k, key := range emptied {
				if keepMask&(1<<k) == 0 {
					o = o.remove(key)
				}
			}
			return o
		}
		s.top = choose(0)
		k, err := backedChoice(s.file, 1<<len(emptied), func(mask int) *settings {
			return &settings{file: s.file, data: s.data, top: choose(mask)}
		})
		if err != nil {
			bad = err
			return false
		}
		if k != nil {
			s.top = k.top
		}
		return changed
	})
	pr := pluginResult(r)
	if bad != nil {
		return pr, bad
	}
	if err != nil || !r.Changed {
		return pr, err
	}
	data, err := os.ReadFile(r.File)
	if err != nil {
		return pr, err
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("{}")) && !backupBesides(r.File, r.Backup) {
		// Created by InstallPlugin (it backs up every file it finds
		// before a change; the one backup is this uninstall's own): gone
		// again, with that backup of graft's settings alone.
		for _, f := range []string{r.File, r.Backup} {
			if f == "" {
				continue
			}
			if err := os.Remove(f); err != nil {
				return pr, fmt.Errorf("removing %s, which graft created: %w", f, err)
			}
		}
		pr.Deleted, pr.Backup = true, ""
	}
	return pr, nil
}

// backupBesides: a backup of file other than this one (graft backs up a
// file it finds before changing it, so a file with none but the uninstall's
// own was created by graft).
func backupBesides(file, this string) bool {
	names, _ := filepath.Glob(file + BackupSuffix + "*")
	for _, n := range names {
		if n != this && backupNumber(file, n) >= 0 {
			return true
		}
	}
	return false
}

// topObject parses the top-level object s holds at key (empty when key is
// absent); another kind of value there is an error that writes nothing.
func topObject(s *settings, key string) (object, error) {
	i := s.top.index(key)
	if i < 0 {
		return nil, nil
	}
	o, err := parseObject(s.top[i].val, s.top[i].off, fmt.Sprintf("%q", key))
	if err != nil {
		var pe *parseError
		if errors.As(err, &pe) {
			line, col := lineCol(s.data, pe.off)
			return nil, &FileError{File: s.file, Line: line, Column: col, Offset: pe.off, Msg: pe.msg}
		}
		return nil, err
	}
	return o, nil
}

// isDirectorySource: a marketplace value whose source is a directory.
func isDirectorySource(v []byte) bool {
	var m struct {
		Source struct {
			Source string `json:"source"`
		} `json:"source"`
	}
	return json.Unmarshal(v, &m) == nil && m.Source.Source == "directory"
}

// jsonEqual compares two JSON values as values.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
