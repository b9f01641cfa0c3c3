package installers

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/internal/lazy"
)

// opencodeV2PluginJS is clawd's plugin for opencode 2, with placeholders
// for what render fills in.
//
//go:embed opencode_v2_plugin.mjs
var opencodeV2PluginJS string

// opencodeV1Agent is opencode with the events of the v1 plugin only: what
// clawd's v1 plugin file registers (see agents.OpencodeV1Hooks).
var opencodeV1Agent = func() *agents.Agent {
	a := *agents.Opencode
	a.Hooks = agents.OpencodeV1Hooks()
	return &a
}()

// opencodeV2Agent is opencode with the events of the v2 plugin.
var opencodeV2Agent = func() *agents.Agent {
	a := *agents.Opencode
	a.Hooks = agents.OpencodeV2Hooks()
	return &a
}()

// opencodeV2Script is clawd's opencode 2 plugin as the installer handles
// it.
var opencodeV2Script = ownScript{agent: opencodeV2Agent, text: opencodeV2PluginJS}

// OpencodeHostEnv, when set to v1, v2 or unknown, stands for what
// `opencode --version` would say (tests, and machines where opencode is
// not on clawd's PATH).
const OpencodeHostEnv = "CLAWD_OPENCODE_HOST"

// Opencode hosts, as OpencodeHost tells them.
const (
	OpencodeV1      = "v1"
	OpencodeV2      = "v2"
	OpencodeUnknown = "unknown"
)

// Opencode installs clawd's plugins for opencode: the v1 plugin file
// (plugin/clawd.js, see NewOpencode) always, and where the opencode on
// PATH is 2.x the v2 plugin, clawd-v2/index.mjs in the config folder,
// registered by its folder in the "plugins" key of opencode.json (or
// opencode.jsonc). opencode before 1.18.16 rejects a config with a
// "plugins" key, so on a 1.x host install writes none and takes out one of
// clawd's it finds; when the host cannot be told, the v2 parts stay as
// they are. Uninstall takes out both plugins, whatever the host, and gives
// opencode.json back byte for byte when nothing else changed in it.
type Opencode struct {
	v1     *OwnFile
	v2     *OwnFile
	config *opencodeV2Config
	getenv func(string) string
}

// NewOpencodeFamily returns the installer of clawd's opencode plugins for
// the environment getenv.
func NewOpencodeFamily(getenv func(string) string) (*Opencode, error) {
	v1, err := NewOpencode(getenv)
	if err != nil {
		return nil, err
	}
	d, err := agents.Opencode.ConfigDir(getenv)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(d, "clawd-v2")
	cfg := filepath.Join(d, "opencode.json")
	if fi, err := os.Stat(filepath.Join(d, "opencode.jsonc")); err == nil && fi.Mode().IsRegular() {
		cfg = filepath.Join(d, "opencode.jsonc")
	}
	v2 := &OwnFile{Agent: agents.Opencode.ID, Path: filepath.Join(dir, "index.mjs"),
		Render: func(binary string) ([]byte, int) { b, _ := opencodeV2Script.render(binary); return b, 0 },
		Ours: func(data []byte, known Known) (int, bool) {
			_, ok := opencodeV2Script.ours(data, known)
			return 0, ok
		},
		Commands: opencodeV2Script.commands}
	return &Opencode{v1: v1, v2: v2, config: &opencodeV2Config{path: cfg, dir: dir}, getenv: getenv}, nil
}

// OpencodeV2Path returns where clawd's opencode 2 plugin goes.
func OpencodeV2Path(getenv func(string) string) (string, error) {
	d, err := agents.Opencode.ConfigDir(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "clawd-v2", "index.mjs"), nil
}

// OpencodeV2Plugin returns clawd's opencode 2 plugin for binary.
func OpencodeV2Plugin(binary string) []byte { b, _ := opencodeV2Script.render(binary); return b }

// Install writes clawd's v1 plugin for binary, and the v2 one where the
// host is opencode 2.
func (o *Opencode) Install(binary string, opts Options) (*Report, error) {
	if err := CheckBinary(binary); err != nil {
		return nil, err
	}
	list := []Installer{o.v1}
	switch OpencodeHost(o.getenv) {
	case OpencodeV2:
		list = append(list, o.config, o.v2)
	case OpencodeV1:
		list = append(list, o.v2Parts(remover{o.config}, remover{o.v2})...)
	}
	if len(list) == 1 {
		return o.v1.Install(binary, opts)
	}
	rep, err := eachFile(agents.Opencode.ID, list, opts, func(i Installer, o Options) (*Report, error) { return i.Install(binary, o) })
	if err == nil && !opts.DryRun {
		os.Remove(filepath.Dir(o.v2.Path)) // once empty
	}
	return rep, err
}

// Uninstall takes out both plugins.
func (o *Opencode) Uninstall(opts Options) (*Report, error) {
	list := append([]Installer{o.v1}, o.v2Parts(o.config, o.v2)...)
	if len(list) == 1 {
		return o.v1.Uninstall(opts)
	}
	rep, err := eachFile(agents.Opencode.ID, list, opts, func(i Installer, o Options) (*Report, error) { return i.Uninstall(o) })
	if err == nil && !opts.DryRun {
		os.Remove(filepath.Dir(o.v2.Path)) // once empty
	}
	return rep, err
}

// Hooks lists the handlers of clawd's plugins.
func (o *Opencode) Hooks(opts Options) ([]Hook, error) {
	return eachHooks([]Installer{o.v1, o.v2}, opts)
}

// v2Parts returns config and plugin, the installers of the v2 parts,
// when any of them is there to take out: the plugin file, or clawd's
// folder named in the config file.
func (o *Opencode) v2Parts(config, plugin Installer) []Installer {
	if _, err := os.Lstat(o.v2.Path); err == nil {
		return []Installer{config, plugin}
	}
	if data, err := os.ReadFile(o.config.path); err == nil && bytes.Contains(data, []byte(quote(o.config.dir))) {
		return []Installer{config, plugin}
	}
	return nil
}

// remover is an installer whose install takes out what it installs: the
// v2 parts on an opencode 1.x host.
type remover struct{ Installer }

func (r remover) Install(_ string, opts Options) (*Report, error) { return r.Installer.Uninstall(opts) }

// opencodeVersion finds the version in `opencode --version`: the first
// x.y.z, after an optional "v" ("1.18.33", "opencode v2.0.15").
var opencodeVersion = lazy.Regexp(`(?:^|[^\w.])v?(\d+)\.(\d+)\.(\d+)`)

// OpencodeHost tells which opencode the environment getenv runs: v2 for
// 2.x or later, v1 for 1.x, unknown when opencode is not on PATH or says
// no version (OpencodeHostEnv stands for the answer when set).
func OpencodeHost(getenv func(string) string) string {
	switch h := getenv(OpencodeHostEnv); h {
	case OpencodeV1, OpencodeV2, OpencodeUnknown:
		return h
	}
	bin := lookPathIn(getenv("PATH"), agents.Opencode.Command)
	if bin == "" {
		return OpencodeUnknown
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + getenv("PATH"), "HOME=" + getenv("HOME")}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // what it printed counts, whatever its exit
	return opencodeHostOf(out.String())
}

// opencodeHostOf reads the host from what `opencode --version` printed.
func opencodeHostOf(out string) string {
	m := opencodeVersion().FindStringSubmatch(out)
	if m == nil {
		return OpencodeUnknown
	}
	major, err := strconv.Atoi(m[1])
	if err != nil {
		return OpencodeUnknown
	}
	if major >= 2 {
		return OpencodeV2
	}
	return OpencodeV1
}

// lookPathIn finds the executable name in the folders of path (a PATH
// value), or returns "".
func lookPathIn(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// opencodeV2Config is the registration of clawd's v2 plugin in
// opencode.json: its folder, an element of the top-level "plugins" array.
type opencodeV2Config struct{ path, dir string }

func (c *opencodeV2Config) Install(_ string, opts Options) (*Report, error) {
	return rewrite(agents.Opencode.ID, c.path, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editOpencodeV2(data, c.dir, true)
	}, nil)
}

func (c *opencodeV2Config) Uninstall(opts Options) (*Report, error) {
	return rewrite(agents.Opencode.ID, c.path, opts, nil, func(data []byte) ([]byte, Changes, error) {
		return editOpencodeV2(data, c.dir, false)
	}, func(data []byte) ([]byte, Changes, error) {
		return editOpencodeV2(data, c.dir, true)
	})
}

// editOpencodeV2 returns opencode.json with clawd's v2 plugin folder dir
// in "plugins" (install) or not, and what changed: the v2 plugin's hooks,
// counted here, where opencode learns of them. clawd's are the elements
// that are dir; every other element (a package, an object with options)
// and the v1 "plugin" key stay as they are.
func editOpencodeV2(data []byte, dir string, install bool) ([]byte, Changes, error) {
	root, err := parseJSONC(data)
	if err != nil {
		return nil, Changes{}, err
	}
	n := len(agents.OpencodeV2Hooks())
	if root == nil {
		if !install {
			return data, Changes{}, nil
		}
		return []byte(render(object{{"plugins", array{dir}}}, defaultLayout, "", true, "") + "\n"), Changes{Added: n}, nil
	}
	if root.kind != kindObject {
		return nil, Changes{}, shapeErrorf("the top level must be an object, not %s", root.kind)
	}
	idx := -1
	for i, m := range root.members {
		if m.key == "plugins" {
			if idx >= 0 {
				return nil, Changes{}, shapeErrorf(`"plugins" appears more than once`)
			}
			idx = i
		}
	}
	ed := &editor{data: data, l: detectLayout(data, root)}
	if idx < 0 {
		if !install {
			return data, Changes{}, nil
		}
		ed.container(root, nil, []any{field{"plugins", array{dir}}})
		return applyOpencodeV2(ed, Changes{Added: n})
	}
	plugins := root.members[idx].value
	if plugins.kind != kindArray {
		return nil, Changes{}, shapeErrorf(`"plugins" must be an array, not %s`, plugins.kind)
	}
	ours := map[int]bool{}
	for i, e := range plugins.elems {
		if e.kind == kindString && filepath.Clean(e.str) == filepath.Clean(dir) {
			ours[i] = true
		}
	}
	switch {
	case !install && len(ours) == 0, install && len(ours) == 1:
		return data, Changes{}, nil
	case !install:
		ed.container(plugins, ours, nil)
		return applyOpencodeV2(ed, Changes{Removed: n})
	case len(ours) == 0:
		ed.container(plugins, nil, []any{dir})
		return applyOpencodeV2(ed, Changes{Added: n})
	default: // copies: keep the first
		drop := map[int]bool{}
		first := true
		for i := range plugins.elems {
			if ours[i] {
				if !first {
					drop[i] = true
				}
				first = false
			}
		}
		ed.container(plugins, drop, nil)
		return applyOpencodeV2(ed, Changes{Removed: len(drop) * n})
	}
}

func applyOpencodeV2(ed *editor, ch Changes) ([]byte, Changes, error) {
	out, err := applyEdits(ed.data, ed.edits)
	if err != nil {
		return nil, Changes{}, err
	}
	if _, err := parseJSONC(out); err != nil {
		return nil, Changes{}, fmt.Errorf("internal error: the edited file would not parse (%v)", err)
	}
	return out, ch, nil
}
