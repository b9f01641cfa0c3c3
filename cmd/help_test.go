package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/urfave/cli/v3"
)

// helpTree is the command tree `clawd --help` prints from, for an
// environment with LANG=lang: every command, with the help commands, flags
// and the completion command urfave adds when it runs.
func helpTree(t *testing.T, lang string) *cli.Command {
	t.Helper()
	e, _, _ := testEnv(t, t.TempDir(), nil, map[string]string{"LANG": lang})
	root := newRootCmd(e)
	root.Writer = io.Discard
	if err := root.Run(context.Background(), []string{"clawd", "--help"}); err != nil {
		t.Fatalf("LANG=%s clawd --help: %v", lang, err)
	}
	return root
}

// untranslated are the help texts that are the same in Chinese as in
// English on purpose, each with its reason, by "<command path> <field>".
// An entry that is translated after all is an error too: it would hide
// the next one.
var untranslated = map[string]string{
	"clawd dnd args": "on and off are the words dnd takes",
}

// placeholder matches an ArgsUsage of placeholders only: words in
// capitals, [optional], alternatives a|b, repeats ..., a user@host, and
// flags (--wsl).
var placeholder = regexp.MustCompile(`^(?:[A-Z0-9_@\[\]|. ]|--?[a-z][a-z-]*)*$`)

// TestHelpSpeaksChinese walks every command, subcommand and flag of the
// tree the help is printed from, hidden ones included (people read `clawd
// hook --help` too), in English and in Chinese: each command's line and
// description and each flag's line is Chinese (a Han character, and not
// the English text), unless untranslated says why not; the arguments'
// placeholders are the same in both; no flag's line gets urfave's English
// "(default: ...)". A command or flag added with an English literal fails
// here.
func TestHelpSpeaksChinese(t *testing.T) {
	en, zh := helpTree(t, "C.UTF-8"), helpTree(t, "zh_CN.UTF-8")
	used := map[string]bool{}
	chinese := func(what, enText, zhText string) {
		t.Helper()
		if strings.HasPrefix(enText, "help.") || strings.HasPrefix(zhText, "help.") {
			t.Errorf("%s: no catalog entry %q", what, enText)
			return
		}
		if reason, ok := untranslated[what]; ok {
			used[what] = true
			if enText != zhText {
				t.Errorf("%s is translated now (%q): drop it from untranslated (%s)", what, zhText, reason)
			}
			return
		}
		if enText == zhText || !strings.ContainsFunc(zhText, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
			t.Errorf("%s is English in Chinese: %q; put it in the catalogs (internal/i18n/catalog, [help.<command>])", what, zhText)
		}
	}
	commands, flags := 0, 0
	var walk func(en, zh *cli.Command)
	walk = func(en, zh *cli.Command) {
		path := en.FullName()
		commands++
		chinese(path+" usage", en.Usage, zh.Usage)
		if en.Description != "" || zh.Description != "" {
			chinese(path+" description", en.Description, zh.Description)
		}
		if en.UsageText != "" || zh.UsageText != "" {
			chinese(path+" usage text", en.UsageText, zh.UsageText)
		}
		switch reason, ok := untranslated[path+" args"]; {
		case en.ArgsUsage != zh.ArgsUsage:
			t.Errorf("%s: arguments %q in English, %q in Chinese: placeholders stay as they are", path, en.ArgsUsage, zh.ArgsUsage)
		case ok:
			used[path+" args"] = true
			if placeholder.MatchString(en.ArgsUsage) {
				t.Errorf("%s: arguments %q are placeholders: drop them from untranslated (%s)", path, en.ArgsUsage, reason)
			}
		case !placeholder.MatchString(en.ArgsUsage):
			t.Errorf("%s: arguments %q have words: placeholders are in capitals (AGENT, [N]); words go in the catalogs", path, en.ArgsUsage)
		}
		if len(en.Flags) != len(zh.Flags) {
			t.Fatalf("%s: %d flags in English, %d in Chinese", path, len(en.Flags), len(zh.Flags))
		}
		for i, ef := range en.Flags {
			zf := zh.Flags[i]
			name := path + " --" + ef.Names()[0]
			if v, ok := ef.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue // in no help and no completion
			}
			flags++
			eu, ok := ef.(cli.DocGenerationFlag)
			if !ok {
				t.Errorf("%s: a %T has no usage to check", name, ef)
				continue
			}
			chinese(name, eu.GetUsage(), zf.(cli.DocGenerationFlag).GetUsage())
			if s := zf.String(); strings.Contains(s, "default:") {
				t.Errorf("%s shows urfave's English default: %q; set HideDefault and say the default in its line", name, s)
			}
		}
		if len(en.Commands) != len(zh.Commands) {
			t.Fatalf("%s: %d subcommands in English, %d in Chinese", path, len(en.Commands), len(zh.Commands))
		}
		for i := range en.Commands {
			walk(en.Commands[i], zh.Commands[i])
		}
	}
	walk(en, zh)
	for what, reason := range untranslated {
		if !used[what] {
			t.Errorf("untranslated %q (%s) names nothing in the tree", what, reason)
		}
	}
	// The tree is the whole of it: the hidden hook and the commands `clawd
	// remote` runs on the remote, urfave's help and completion commands.
	for _, args := range [][]string{{"hook"}, {"remote", "setup-here"}, {"completion", "fish"}, {"help"}, {"automations", "runs", "help"}} {
		c := zh
		for _, name := range args {
			if c = c.Command(name); c == nil {
				t.Fatalf("the walked tree has no clawd %s", strings.Join(args, " "))
			}
		}
	}
	t.Logf("%d commands, %d flags", commands, flags)
}

// TestHelpChinese: `clawd ... --help` and `clawd help ...` print Chinese
// under LANG=zh_CN.UTF-8 (or [ui] language = "zh-CN"), headings and the
// lines urfave/cli adds included, and English under LANG=C.UTF-8.
func TestHelpChinese(t *testing.T) {
	t.Parallel()
	configured := t.TempDir()
	if err := os.WriteFile(filepath.Join(configured, "config.toml"), []byte("[ui]\nlanguage = \"zh-CN\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		home, lang string
		args       []string
		want       []string
		not        []string
	}{
		{"", "zh_CN.UTF-8", []string{"history", "--help"},
			[]string{"名称：", "已结束或失去响应的会话", "用法：\n   clawd history [选项]\n", "说明：", "clawd serve 会把每个已结束",
				"选项：", "--agent AGENT  只看 AGENT 的会话", "--limit N      最多 N 个会话（默认：0，即全部）", "--help, -h     显示帮助"},
			[]string{"NAME", "USAGE", "OPTIONS", "show help", "default:", "sessions"}},
		{"", "zh_CN.UTF-8", []string{"--help"},
			[]string{"用法：\n   clawd 命令 [选项]\n", "版本：", "核心命令：", "智能体命令：", "更多命令：", "帮助主题：", "示例：", "history      已结束或失去响应的会话",
				"help, h      列出所有命令，或显示某个命令的帮助", "completion   打印 Shell 补全脚本", "全局选项：", "--version, -v  打印版本"},
			[]string{"NAME", "COMMANDS", "GLOBAL OPTIONS", "show help", "print the version", "Shows a list"}},
		{"", "zh_CN.UTF-8", []string{"hook", "--help"},
			[]string{"智能体在生命周期事件上运行的命令", "clawd hook [选项] AGENT [EVENT]", "出错时它一律放行"},
			[]string{"OPTIONS", "fails open"}},
		{"", "zh_CN.UTF-8", []string{"help", "automations"},
			[]string{"clawd automations [命令 [命令选项]]", "runs     运行记录，最新的在前", "--help, -h  显示帮助"},
			[]string{"COMMANDS", "the runs"}},
		{"", "zh_CN.UTF-8", []string{"remote", "help", "add"},
			[]string{"clawd remote add [选项] NAME [USER@]HOST | NAME --wsl DISTRO", "--wsl DISTRO", "WSL 发行版 DISTRO"},
			[]string{"OPTIONS", "default:"}},
		{"", "zh_CN.UTF-8", []string{"completion"},
			[]string{"打印 bash 补全脚本", "候选词旁的说明使用发起询问的 shell 的语言"},
			[]string{"Output", "COMMANDS"}},
		{configured, "C.UTF-8", []string{"recap", "--help"},
			[]string{"时间都去哪儿了", "--days N    最近 N 天，含今天（默认：7）"},
			[]string{"OPTIONS", "default:"}},
		{"", "C.UTF-8", []string{"history", "--help"},
			[]string{"NAME:\n   clawd history - the sessions that ended", "USAGE:\n   clawd history [options]\n", "OPTIONS:",
				"--limit N      at most N sessions (default: 0, all)", "--help, -h     show help"},
			[]string{"选项", "显示帮助"}},
		{"", "C.UTF-8", []string{"serve", "--help"},
			[]string{"--log-level LEVEL  log at LEVEL: debug, info, warn or error (default: info)"},
			[]string{"string"}},
	}
	for _, tt := range tests {
		home := tt.home
		if home == "" {
			home = t.TempDir()
		}
		e, out, errb := testEnv(t, home, nil, map[string]string{"LANG": tt.lang})
		if code := run(context.Background(), e, append([]string{"clawd"}, tt.args...)); code != 0 || errb.Len() != 0 {
			t.Errorf("LANG=%s clawd %s = %d, stderr %q", tt.lang, strings.Join(tt.args, " "), code, errb)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("LANG=%s clawd %s lacks %q:\n%s", tt.lang, strings.Join(tt.args, " "), w, out)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(out.String(), w) {
				t.Errorf("LANG=%s clawd %s has %q:\n%s", tt.lang, strings.Join(tt.args, " "), w, out)
			}
		}
	}
}

// TestHelpCommand: the help command clawd puts in place of urfave's does
// what urfave's did: the help of the command it belongs to or of the one
// it names, an unknown name an error, no flags of its own.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	help := func(args ...string) string {
		t.Helper()
		code, out, errb := runCLI(t, t.TempDir(), args...)
		if code != 0 || errb != "" {
			t.Fatalf("clawd %s = %d, stderr %q", strings.Join(args, " "), code, errb)
		}
		return out
	}
	for _, tt := range []struct{ args, same []string }{
		{[]string{"help"}, []string{"--help"}},
		{[]string{"h"}, []string{"--help"}},
		{[]string{"help", "status"}, []string{"status", "--help"}},
		{[]string{"status", "help"}, []string{"status", "--help"}},
		{[]string{"remote", "help"}, []string{"remote", "--help"}},
		{[]string{"remote", "h", "add"}, []string{"remote", "add", "--help"}},
		{[]string{"remote", "add", "help"}, []string{"remote", "add", "--help"}},
		{[]string{"completion", "help", "bash"}, []string{"completion", "bash", "--help"}},
	} {
		if got, want := help(tt.args...), help(tt.same...); got != want {
			t.Errorf("clawd %s =\n%s\nwant the same as clawd %s:\n%s", strings.Join(tt.args, " "), got, strings.Join(tt.same, " "), want)
		}
	}
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"help", "frobnicate"}, "clawd: unknown command \"frobnicate\": see `clawd help`\n"},
		{[]string{"help", "--help"}, "clawd: flag provided but not defined: -help\n"},
	} {
		if code, out, errb := runCLI(t, t.TempDir(), tt.args...); code != 2 || out != "" || errb != tt.stderr {
			t.Errorf("clawd %s = %d, %q, %q; want 2 and %q", strings.Join(tt.args, " "), code, out, errb, tt.stderr)
		}
	}
	// --version is the root's own too.
	for _, flag := range []string{"--version", "-v"} {
		if out := help(flag); out != "clawd version "+versionString()+"\n" {
			t.Errorf("clawd %s = %q", flag, out)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		line  string
		width int
		want  []string
	}{
		{"short line", 20, []string{"short line"}},
		{"the agents' own hooks are what clawd plugs into", 20, []string{"the agents' own", "hooks are what clawd", "plugs into"}},
		{"averyveryverylongword and more", 10, []string{"averyveryverylongword", "and more"}},
		// Chinese breaks between characters, never before closing
		// punctuation.
		{"智能体自己的对话框同时保留，谁先回答", 12, []string{"智能体自己的", "对话框同时保", "留，谁先回答"}},
		{"钩子（Claude Code，Codex）", 14, []string{"钩子（Claude", "Code，Codex）"}},
	} {
		got := wrap(tt.line, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.line, tt.width, got, tt.want)
		}
	}
	if got := joinLines("智能体\n自己的 hooks\nand more"); got != "智能体自己的 hooks and more" {
		t.Errorf("joinLines = %q", got)
	}
}
