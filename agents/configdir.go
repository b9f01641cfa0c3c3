package agents

import (
	"fmt"
	"path/filepath"
)

// UserHome returns the folder agents keep their settings under: HOME, or
// USERPROFILE on Windows; "" when neither is set.
func UserHome(getenv Env) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	return getenv("USERPROFILE")
}

// configDir returns the folder the environment variable env names when it
// is set, else dir under the user's home: how Claude Code
// (CLAUDE_CONFIG_DIR, ~/.claude) and Codex (CODEX_HOME, ~/.codex) find
// their settings.
func configDir(getenv Env, env, dir, name string) (string, error) {
	if d := getenv(env); d != "" {
		return d, nil
	}
	home := UserHome(getenv)
	if home == "" {
		return "", errNoHome(name, env)
	}
	return filepath.Join(home, dir), nil
}

// errNoHome says that an agent's settings cannot be found: no home folder
// and no override variable env.
func errNoHome(name, env string) error {
	return fmt.Errorf("cannot find %s's settings: neither HOME nor %s is set", name, env)
}

// homeFolder is the folder parts under the user's home: where an agent
// that has no override variable keeps its settings.
func homeFolder(getenv Env, name string, parts ...string) (string, error) {
	home := UserHome(getenv)
	if home == "" {
		return "", fmt.Errorf("cannot find %s's settings: HOME is not set", name)
	}
	return filepath.Join(append([]string{home}, parts...)...), nil
}
