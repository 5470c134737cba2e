package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	toml "github.com/pelletier/go-toml/v2"
)

// readConfig decodes codexHome/config.toml into cfg; a missing file
// leaves cfg as it is, a file that is not TOML is an error naming it.
func readConfig(codexHome string, cfg any) error {
	path := filepath.Join(codexHome, "config.toml")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := toml.Unmarshal(data, cfg); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// defaultProvider is the model provider Codex runs on when its
// configuration names none.
const defaultProvider = "openai"

// ModelProvider is the model provider codexHome/config.toml selects
// (adapter.Provided): the profile's model_provider when the file chooses a
// profile that names one, else its own model_provider, else Codex's
// default, openai. The command-line overrides of a run (-c, --profile,
// --oss) are the person's to repeat; the resume command graft gives has
// none.
func (Adapter) ModelProvider(codexHome string) (string, error) {
	var cfg struct {
		ModelProvider string `toml:"model_provider"`
		Profile       string `toml:"profile"`
		Profiles      map[string]struct {
			ModelProvider string `toml:"model_provider"`
		} `toml:"profiles"`
	}
	if err := readConfig(codexHome, &cfg); err != nil {
		return "", err
	}
	if p := cfg.Profiles[cfg.Profile].ModelProvider; cfg.Profile != "" && p != "" {
		return p, nil
	}
	if cfg.ModelProvider != "" {
		return cfg.ModelProvider, nil
	}
	return defaultProvider, nil
}
