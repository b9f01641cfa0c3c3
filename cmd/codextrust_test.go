package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/clawdhq/clawd/installers"
)

// cmdCodexTrusted is the testscript command
//
//	codex-trusted CODEX_HOME BINARY N
//
// which checks, the way Codex does, that hooks.json in CODEX_HOME holds N
// handlers running BINARY and that config.toml trusts every one of them:
// a [hooks.state] table at the handler's key whose trusted_hash is the
// handler's hash. With !, it checks that at least one is not trusted.
func cmdCodexTrusted(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: codex-trusted CODEX_HOME BINARY N")
	}
	home, binary := ts.MkAbs(args[0]), args[1]
	var want int
	if _, err := fmt.Sscan(args[2], &want); err != nil {
		ts.Fatalf("codex-trusted: N: %v", err)
	}
	problems, n, err := codexTrustProblems(home, binary)
	if err != nil {
		ts.Fatalf("codex-trusted: %v", err)
	}
	switch {
	case neg && len(problems) == 0 && n == want:
		ts.Fatalf("codex-trusted: all %d handlers of %s are trusted", n, binary)
	case !neg && n != want:
		ts.Fatalf("codex-trusted: %d handlers run %s, want %d", n, binary, want)
	case !neg && len(problems) > 0:
		ts.Fatalf("codex-trusted:\n%s", strings.Join(problems, "\n"))
	}
}

// codexTrustProblems lists the handlers in home's hooks.json that run
// binary and are not trusted in home's config.toml, and counts those
// handlers.
func codexTrustProblems(home, binary string) (problems []string, n int, err error) {
	hooksPath := filepath.Join(home, "hooks.json")
	data, err := os.ReadFile(hooksPath)
	if err != nil {
		return nil, 0, err
	}
	var hooks struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout *int   `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &hooks); err != nil {
		return nil, 0, fmt.Errorf("%s: %v", hooksPath, err)
	}
	var config struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.DecodeFile(filepath.Join(home, "config.toml"), &config); err != nil {
		return nil, 0, err
	}
	for event, groups := range hooks.Hooks {
		for gi, g := range groups {
			for hi, h := range g.Hooks {
				if bin, ok := installers.SplitCommand(h.Command, "codex"); !ok || bin != binary {
					continue
				}
				n++
				key := installers.CodexHookKey(filepath.ToSlash(hooksPath), event, gi, hi)
				hash := installers.CodexTrustHash(installers.CodexHook{Event: event, Matcher: g.Matcher, Command: h.Command, Timeout: h.Timeout})
				switch got, ok := config.Hooks.State[key]; {
				case !ok:
					problems = append(problems, fmt.Sprintf("%s: no trust entry", key))
				case got.TrustedHash != hash:
					problems = append(problems, fmt.Sprintf("%s: trusted_hash %s, want %s", key, got.TrustedHash, hash))
				}
			}
		}
	}
	return problems, n, nil
}
