// Package remote connects agents on other machines to this desktop's
// runtime: an SSH box, whose hooks reach the desktop through a reverse
// tunnel that `clawd serve` keeps with the person's own ssh, or a WSL
// distro, whose hooks reach it over the loopback both share. A profile
// names the machine; `clawd remote add` sets the machine up (the same
// clawd binary, runtime.json in remote mode, every agent's hooks) and
// `clawd remote remove` takes all of it away again. Each profile has an
// ingress of its own in the runtime (runtime.Ingress) that takes only its
// token and current generation.
package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/clawdhq/clawd/internal/atomicfile"
	"github.com/clawdhq/clawd/internal/lazy"
	"github.com/clawdhq/clawd/runtime/client"
)

// Profile is one remote machine whose agents report to this desktop.
type Profile struct {
	// Name is the profile's name: what `clawd remote` commands take and,
	// for SSH, what its sessions show under.
	Name string `json:"name"`
	// Kind is client.LinkSSH or client.LinkWSL.
	Kind string `json:"kind"`

	// Target is the SSH destination as given ([user@]host, or a Host of
	// the person's ssh config); Port, Identity and SSHConfig are ssh's
	// -p, -i and -F when set.
	Target    string `json:"target,omitempty"`
	Port      int    `json:"port,omitempty"`
	Identity  string `json:"identity,omitempty"`
	SSHConfig string `json:"ssh_config,omitempty"`
	// Distro is a WSL profile's distro.
	Distro string `json:"distro,omitempty"`

	// RemotePort is the port on the remote's loopback its hooks connect
	// to: the tunnel's forwarded port (for WSL, the ingress's own).
	RemotePort int `json:"remote_port"`
	// Token and Generation are what the profile's ingress takes; every
	// `clawd remote add` makes a new token and the next generation.
	Token      string `json:"token"`
	Generation int64  `json:"generation"`
	// Disabled profiles keep no link.
	Disabled bool `json:"disabled,omitempty"`

	// OS, Arch, Home and Version are what the last add found and put
	// there: the remote's platform, its HOME and the clawd version copied.
	OS      string `json:"os,omitempty"`
	Arch    string `json:"arch,omitempty"`
	Home    string `json:"home,omitempty"`
	Version string `json:"version,omitempty"`
	// Created are the paths, relative to the remote's HOME, that did not
	// exist before clawd first set the remote up: `clawd remote remove`
	// deletes them again (folders only when empty).
	Created []string `json:"created,omitempty"`
	// AddedAt is when the profile was first added.
	AddedAt time.Time `json:"added_at"`
}

// Label is what the profile's sessions show under, and the namespace of
// their ids ("<label>:<the agent's id>"): the name, or for WSL
// "wsl:<distro>".
func (p *Profile) Label() string {
	if p.Kind == client.LinkWSL {
		return "wsl:" + p.Distro
	}
	return p.Name
}

// File is the profiles' file in the clawd home. It holds the profiles'
// tokens: owner-only, like runtime.json.
const File = "remotes.json"

// Store is the profiles of a clawd home.
type Store struct {
	Version  int        `json:"version"`
	Profiles []*Profile `json:"profiles"`

	path string
}

// Load reads the profiles of the clawd home at home; a home without the
// file has none.
func Load(home string) (*Store, error) {
	s := &Store{Version: 1, path: filepath.Join(home, File)}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the remote profiles: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("the remote profiles in %s are not valid (%v): fix the file, or move it away and add the remotes again", s.path, err)
	}
	if s.Version != 1 {
		return nil, fmt.Errorf("the remote profiles in %s have version %d, which this clawd does not know: use a newer clawd", s.path, s.Version)
	}
	for _, p := range s.Profiles {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("the remote profiles in %s: %w", s.path, err)
		}
	}
	return s, nil
}

// Save writes the profiles, owner-only, replacing the file atomically;
// with none left the file is removed.
func (s *Store) Save() error {
	if len(s.Profiles) == 0 {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(s.path, append(data, '\n'), 0o600, false, nil)
}

// Get returns the profile called name, or nil.
func (s *Store) Get(name string) *Profile {
	for _, p := range s.Profiles {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// ByLabel returns the profile whose sessions show under label (see
// Profile.Label), or nil.
func (s *Store) ByLabel(label string) *Profile {
	for _, p := range s.Profiles {
		if p.Label() == label {
			return p
		}
	}
	return nil
}

// Put adds p, or replaces the profile of the same name.
func (s *Store) Put(p *Profile) {
	for i, q := range s.Profiles {
		if q.Name == p.Name {
			s.Profiles[i] = p
			return
		}
	}
	s.Profiles = append(s.Profiles, p)
	slices.SortFunc(s.Profiles, func(a, b *Profile) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
}

// Delete removes the profile called name.
func (s *Store) Delete(name string) {
	s.Profiles = slices.DeleteFunc(s.Profiles, func(p *Profile) bool { return p.Name == name })
}

var nameRE = lazy.Regexp(`^[a-z0-9][a-z0-9-]{0,31}$`)

// CheckName checks a profile's name: lowercase letters, digits and '-',
// at most 32, starting with a letter or digit. "wsl" is taken: WSL
// sessions show under "wsl:<distro>".
func CheckName(name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("bad remote name %q: use lowercase letters, digits and '-' (at most 32, starting with a letter or digit)", name)
	}
	if name == "wsl" {
		return fmt.Errorf("bad remote name %q: WSL sessions show as wsl:<distro>; pick another name", name)
	}
	return nil
}

var distroRE = lazy.Regexp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func (p *Profile) check() error {
	if err := CheckName(p.Name); err != nil {
		return err
	}
	switch p.Kind {
	case client.LinkSSH:
		if p.Target == "" {
			return fmt.Errorf("remote %s has no ssh target", p.Name)
		}
	case client.LinkWSL:
		if !distroRE().MatchString(p.Distro) {
			return fmt.Errorf("remote %s: bad WSL distro %q", p.Name, p.Distro)
		}
	default:
		return fmt.Errorf("remote %s: unknown kind %q", p.Name, p.Kind)
	}
	if p.RemotePort <= 0 || p.RemotePort > 65535 || p.Token == "" || p.Generation <= 0 {
		return fmt.Errorf("remote %s has no port, token or generation: run `clawd remote add` again", p.Name)
	}
	return nil
}
