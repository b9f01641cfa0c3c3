package autostart

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"strings"
)

// The entries' contents are pure functions of the options, the same on
// every platform, so each one's golden file is checked everywhere.

const description = "clawd: see and answer every AI coding agent on this machine"

// SystemdUnit is the systemd user unit that runs binary's serve. It
// restarts after a failure (not after Quit, which exits 0), a few times,
// then gives up until the next login.
func SystemdUnit(binary string, env []string) []byte {
	var b strings.Builder
	b.WriteString("# clawd serve at login: `clawd autostart enable|disable|status`.\n")
	b.WriteString("[Unit]\nDescription=" + description + "\n")
	b.WriteString("Documentation=https://github.com/clawdhq/clawd\n")
	b.WriteString("StartLimitIntervalSec=60\nStartLimitBurst=5\n\n")
	b.WriteString("[Service]\nType=simple\n")
	b.WriteString("ExecStart=" + systemdWord(binary) + " serve\n")
	for _, e := range env {
		b.WriteString("Environment=" + systemdWord(e) + "\n")
	}
	b.WriteString("Restart=on-failure\nRestartSec=5s\n\n")
	b.WriteString("[Install]\nWantedBy=default.target\n")
	return []byte(b.String())
}

// systemdWord quotes s for a unit file's command line: in double quotes,
// with the characters systemd treats specially escaped ($ and % are
// expanded by systemd even in quotes).
func systemdWord(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$")
	return `"` + r.Replace(s) + `"`
}

// DesktopEntry is the XDG autostart entry that runs binary's serve.
func DesktopEntry(binary string, env []string) []byte {
	var args []string
	if len(env) > 0 {
		args = append(args, "env")
		args = append(args, env...)
	}
	args = append(args, binary, "serve")
	var exec []string
	for _, a := range args {
		exec = append(exec, desktopWord(a))
	}
	return []byte("# clawd serve at login: `clawd autostart enable|disable|status`.\n" +
		"[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=clawd\n" +
		"Comment=" + description + "\n" +
		"Exec=" + strings.Join(exec, " ") + "\n" +
		"Terminal=false\n" +
		"NoDisplay=true\n" +
		"X-GNOME-Autostart-enabled=true\n")
}

// desktopWord quotes an argument of a desktop entry's Exec key: in double
// quotes when it holds a reserved character, with ", `, $ and \ escaped;
// % doubled (field codes); and the whole value then escaped as a string
// value (\ doubled), as the Desktop Entry Specification says.
func desktopWord(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if strings.ContainsAny(s, " \t\n\"'\\><~|&;$*?#()`") {
		s = `"` + strings.NewReplacer(`"`, `\"`, "`", "\\`", "$", `\$`, `\`, `\\`).Replace(s) + `"`
	}
	return strings.ReplaceAll(s, `\`, `\\`)
}

// LaunchAgent is the macOS LaunchAgent that runs binary's serve: at load
// (login), again after a failed exit, not after a clean quit. Its output
// goes to serve.log in the clawd home.
func LaunchAgent(binary string, env []string, logPath string) []byte {
	var b bytes.Buffer
	str := func(s string) {
		b.WriteString("<string>")
		xml.EscapeText(&b, []byte(s))
		b.WriteString("</string>")
	}
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- clawd serve at login: clawd autostart enable|disable|status. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	`)
	str(LaunchLabel)
	b.WriteString("\n\t<key>ProgramArguments</key>\n\t<array>\n\t\t")
	str(binary)
	b.WriteString("\n\t\t")
	str("serve")
	b.WriteString("\n\t</array>\n")
	if len(env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, e := range env {
			k, v, _ := strings.Cut(e, "=")
			b.WriteString("\t\t<key>")
			xml.EscapeText(&b, []byte(k))
			b.WriteString("</key>\n\t\t")
			str(v)
			b.WriteString("\n")
		}
		b.WriteString("\t</dict>\n")
	}
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	b.WriteString("\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n")
	b.WriteString("\t<key>ProcessType</key>\n\t<string>Interactive</string>\n")
	if logPath != "" {
		b.WriteString("\t<key>StandardOutPath</key>\n\t")
		str(logPath)
		b.WriteString("\n\t<key>StandardErrorPath</key>\n\t")
		str(logPath)
		b.WriteString("\n")
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.Bytes()
}

// RunValue is the Windows Run value that starts binary's serve.
func RunValue(binary string) string { return `"` + binary + `" serve` }

// The binaries entries start, read back for Check.

// unitBinary returns the program of a unit's ExecStart.
func unitBinary(unit []byte) string {
	v := keyValue(unit, "ExecStart")
	v = strings.TrimLeft(v, "-@:+!")
	w, _ := firstWord(v)
	return strings.NewReplacer("%%", "%", "$$", "$").Replace(w)
}

// desktopBinary returns the program of a desktop entry's Exec, after an
// env and its assignments.
func desktopBinary(entry []byte) string {
	v := strings.ReplaceAll(keyValue(entry, "Exec"), `\\`, `\`)
	for {
		w, rest := firstWord(v)
		w = strings.ReplaceAll(w, "%%", "%")
		if w == "env" || strings.Contains(w, "=") && !strings.HasPrefix(w, "/") {
			v = rest
			continue
		}
		return w
	}
}

// plistBinary returns the first of a LaunchAgent's ProgramArguments.
func plistBinary(plist []byte) string {
	d := xml.NewDecoder(bytes.NewReader(plist))
	var inArgs, next bool
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Local == "key":
				var k string
				if d.DecodeElement(&k, &t) == nil {
					next = k == "ProgramArguments"
				}
			case t.Name.Local == "array" && next:
				inArgs = true
			case t.Name.Local == "string" && inArgs:
				var s string
				if d.DecodeElement(&s, &t) == nil {
					return s
				}
				return ""
			}
		}
	}
}

// runValueBinary returns the program of a Run value.
func runValueBinary(v string) string {
	// Windows command lines have no backslash escapes.
	if q, ok := strings.CutPrefix(strings.TrimSpace(v), `"`); ok {
		w, _, _ := strings.Cut(q, `"`)
		return w
	}
	w, _, _ := strings.Cut(strings.TrimSpace(v), " ")
	return w
}

// keyValue returns the value of the first "key=value" line.
func keyValue(data []byte, key string) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// firstWord splits off the first word of a command line: a double-quoted
// one with backslash escapes, or up to the first blank.
func firstWord(s string) (word, rest string) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, `"`) {
		w, r, _ := strings.Cut(s, " ")
		return w, r
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '"':
			return b.String(), strings.TrimLeft(s[i+1:], " \t")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}
