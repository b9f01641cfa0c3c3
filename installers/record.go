package installers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/clawdhq/clawd/internal/atomicfile"
)

// RecordFile is the name of the install record in the clawd home.
const RecordFile = "installed.json"

// Record is clawd's note of what it installed where, kept in the clawd
// home: for each agent, every executable path clawd wrote into that
// agent's hooks and the files it wrote them to. With it clawd finds its
// own handlers after its binary was renamed or moved, whatever the name
// (see Known); doctor reads it too. Install adds to it, with the folders
// it created; uninstall, which removes every handler of the agent from a
// file, drops the file, and the agent with its last file (and then removes
// the folders clawd created that are empty, see Apply).
type Record struct {
	Version int                     `json:"version"`
	Agents  map[string]*AgentRecord `json:"agents"`

	path    string
	changed bool
}

// AgentRecord is what clawd wrote for one agent.
type AgentRecord struct {
	// Binaries are the executables of clawd's hook commands, as written,
	// oldest first.
	Binaries []string `json:"binaries"`
	// Files are the settings files clawd wrote its handlers to.
	Files []string `json:"files"`
	// Release is the agent's release the handlers were last written for,
	// where it mattered and was known (Claude Code registers some events
	// from a release on): a repair by a process that cannot find the
	// agent (clawd serve started without it on PATH) writes the same.
	Release string `json:"release,omitempty"`
	// Dirs are the folders clawd created to hold those files (they were
	// not there), outermost first.
	Dirs []string `json:"dirs,omitempty"`
}

// ReadRecord reads the install record of the clawd home at home; a home
// without one gives an empty record.
func ReadRecord(home string) (*Record, error) {
	r := &Record{Version: 1, Agents: map[string]*AgentRecord{}, path: filepath.Join(home, RecordFile)}
	data, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read clawd's install record: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("clawd's install record %s is not valid JSON (%v): fix it, or move it away to start a new one", r.path, err)
	}
	if r.Version != 1 {
		return nil, fmt.Errorf("clawd's install record %s has version %d, which this clawd does not know: use a newer clawd", r.path, r.Version)
	}
	if r.Agents == nil {
		r.Agents = map[string]*AgentRecord{}
	}
	return r, nil
}

// Known returns what the record says clawd wrote for agent.
func (r *Record) Known(agent string) Known {
	var paths []string
	if a := r.Agents[agent]; a != nil {
		paths = a.Binaries
	}
	return NewKnown(paths...)
}

// Installed notes that binary's hook commands were written for agent into
// files.
func (r *Record) Installed(agent, binary string, files ...string) {
	a := r.Agents[agent]
	if a == nil {
		a = &AgentRecord{}
		r.Agents[agent] = a
	}
	add := func(list *[]string, v string) {
		if !slices.Contains(*list, v) {
			*list = append(*list, v)
			r.changed = true
		}
	}
	add(&a.Binaries, slashed(binary))
	for _, f := range files {
		add(&a.Files, f)
	}
}

// MadeDirs notes that clawd created dirs for agent's files.
func (r *Record) MadeDirs(agent string, dirs ...string) {
	a := r.Agents[agent]
	if a == nil {
		return
	}
	for _, d := range dirs {
		if !slices.Contains(a.Dirs, d) {
			a.Dirs = append(a.Dirs, d)
			r.changed = true
		}
	}
}

// Release is the agent's release the record holds ("" for none).
func (r *Record) Release(agent string) string {
	if a := r.Agents[agent]; a != nil {
		return a.Release
	}
	return ""
}

// SetRelease notes the agent's release the handlers were written for.
func (r *Record) SetRelease(agent, release string) {
	if a := r.Agents[agent]; a != nil && a.Release != release {
		a.Release = release
		r.changed = true
	}
}

// Uninstalled notes that files hold none of clawd's handlers for agent
// any more.
func (r *Record) Uninstalled(agent string, files ...string) {
	a := r.Agents[agent]
	if a == nil {
		return
	}
	n := len(a.Files)
	a.Files = slices.DeleteFunc(a.Files, func(f string) bool { return slices.Contains(files, f) })
	r.changed = r.changed || len(a.Files) != n
	if len(a.Files) == 0 {
		delete(r.Agents, agent)
		r.changed = true
	}
}

// Save writes the record back if it changed, owner-only, replacing it
// atomically. A record with no agent left is removed.
func (r *Record) Save() error {
	if !r.changed {
		return nil
	}
	if len(r.Agents) == 0 {
		if err := os.Remove(r.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove clawd's install record: %w", err)
		}
		r.changed = false
		return nil
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("create the clawd home: %w", err)
	}
	if err := atomicfile.Write(r.path, append(data, '\n'), 0o600, false, nil); err != nil {
		return fmt.Errorf("write clawd's install record: %w", err)
	}
	r.changed = false
	return nil
}
