package adapter

// What an install of graft's hooks does beyond the host's settings file,
// and what graft doctor checks there, declared by the hosts that need it:
// graft's shared code asks for these interfaces, never for a host's name.

// MCPRegistrar is an Adapter whose host reads graft's MCP server from one
// more config file beside its hooks file (Codex's config.toml): graft hook
// install registers graft's MCP server there too, and graft hook uninstall
// removes it. The adapter only turns bytes into bytes; package hookinstall
// reads and writes the file (its lock, backups, and the byte-for-byte
// restore of a file graft only installed into and uninstalled from).
type MCPRegistrar interface {
	// MCPConfig is the config file for the host's folder dir ("": the
	// environment's, as Hooks.Settings(ScopeUser, "") takes it).
	MCPConfig(dir string) (string, error)
	// AddMCPServer is data (the bytes of file; empty when there is none)
	// with graft's MCP server, running command with args, added, or
	// replaced where graft added it with another command. out is nil when
	// nothing is to be written: present says graft's server is there
	// already as it would write it; notes say why else (a server of the
	// person's own under graft's name). An error when data is not in the
	// file's format (nothing is written).
	AddMCPServer(file string, data []byte, command string, args []string) (out []byte, present bool, notes []string, err error)
	// RemoveMCPServer is data without graft's MCP server and what adding
	// it added around it; nil when data holds no server of graft's.
	RemoveMCPServer(data []byte) []byte
	// CheckMCPEdit is an error when out, graft's edit of file, is not in
	// the file's format (a bug: nothing is written).
	CheckMCPEdit(file string, out []byte) error
}

// HookTruster is an Adapter whose host runs only the hooks the person has
// trusted, and skips the others without a word (Codex): graft doctor
// reports graft's hooks it has not trusted.
type HookTruster interface {
	// Untrusted lists the events of hooks, graft's hooks in the hooks file
	// at hooksPath, that the host has not trusted, for the host's folder
	// root; an error when the file the host keeps trust in cannot be read.
	Untrusted(root, hooksPath string, hooks []InstalledHook) ([]string, error)
	// TrustHelp is what graft doctor says of it: the file the host keeps
	// trust in, as a person names it ("$CODEX_HOME/config.toml"), and how
	// the person trusts graft's hooks.
	TrustHelp() (file, fix string)
}

// InstalledHook is one of graft's hooks in a host's settings file, where
// it stands: what graft doctor reads, and what a HookTruster keys its
// trust by.
type InstalledHook struct {
	Event   string `json:"event"`
	Group   int    `json:"group"` // index of the matcher group in the event's list
	Index   int    `json:"index"` // index of the hook in the group's "hooks"
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"` // as written, in the host's unit (Hooks.TimeoutUnit); 0 for none
}
