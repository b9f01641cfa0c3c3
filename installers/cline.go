package installers

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/clawdhq/clawd/agents"
)

// Cline installs clawd's hooks for Cline CLI as files of clawd's own, one
// a hook: hooks/<Event>.bash in Cline's folder ($CLINE_DIR, else ~/.cline),
// each a bash script that runs `<clawd> hook cline <Event>`. Cline runs
// every file of that folder named after a hook, whatever else is there;
// clawd's never replace the person's (a file of that name that is not
// clawd's stops the install, untouched). Uninstall deletes clawd's files,
// and the folder when it leaves it empty.
type Cline struct {
	// Dir is Cline's hooks folder.
	Dir string
}

// NewCline returns the installer for Cline's folder
// (agents.Cline.ConfigDir).
func NewCline(getenv func(string) string) (*Cline, error) {
	d, err := agents.Cline.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	return &Cline{Dir: filepath.Join(d, "hooks")}, nil
}

// clineExt is the extension of clawd's hook files: Cline takes it for
// bash, and people name their own hooks without one.
const clineExt = ".bash"

// clineMarker is the second line of clawd's hook files (after the
// shebang): with the command line, how clawd knows them.
const clineMarker = "# Written by clawd install cline; clawd uninstall cline removes it."

// files are clawd's hook files, in the order of agents.Cline.Hooks.
func (c *Cline) files() []Installer {
	var out []Installer
	for _, h := range agents.Cline.Hooks {
		event := h.Event
		out = append(out, &OwnFile{
			Agent: agents.Cline.ID, Path: filepath.Join(c.Dir, event+clineExt),
			Render: func(binary string) ([]byte, int) {
				return []byte("#!/bin/bash\n" + clineMarker + "\nexec " + Command(binary, agents.Cline.ID) + " " + event + "\n"), 1
			},
			Ours: func(data []byte, known Known) (int, bool) {
				cmd, ok := clineCommand(data, event)
				if !ok {
					return 0, false
				}
				_, ok = known.Ours(cmd, agents.Cline.ID)
				return 1, ok
			},
			Commands: func(data []byte) []Hook {
				cmd, _ := clineCommand(data, event)
				return []Hook{{Event: event, Command: cmd}}
			},
		})
	}
	return out
}

// clineCommand returns the hook command of a file in the shape clawd
// writes for event: the shebang, the marker, one exec line naming event.
func clineCommand(data []byte, event string) (string, bool) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "#!/bin/bash" || lines[1] != clineMarker {
		return "", false
	}
	cmd, ok := strings.CutPrefix(lines[2], "exec ")
	if !ok || !strings.HasSuffix(cmd, " "+event) {
		return "", false
	}
	return cmd, true
}

// Install writes clawd's hook files for binary.
func (c *Cline) Install(binary string, opts Options) (*Report, error) {
	return eachFile(agents.Cline.ID, c.files(), opts, func(i Installer, o Options) (*Report, error) { return i.Install(binary, o) })
}

// Uninstall deletes clawd's hook files, and the folder once empty.
func (c *Cline) Uninstall(opts Options) (*Report, error) {
	rep, err := eachFile(agents.Cline.ID, c.files(), opts, func(i Installer, o Options) (*Report, error) { return i.Uninstall(o) })
	if err == nil && !opts.DryRun {
		os.Remove(c.Dir) // a folder that still holds anything stays
	}
	return rep, err
}

// Hooks lists clawd's hook files' commands.
func (c *Cline) Hooks(opts Options) ([]Hook, error) { return eachHooks(c.files(), opts) }
