//go:build darwin

package i18n

import (
	"context"
	"os/exec"
	"time"
)

// systemLanguages returns macOS's AppleLanguages ("zh-Hans-CN",
// "en-US"), most preferred first: a launchd agent gets no LANG, so the
// global preference is what the person chose.
func systemLanguages() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/defaults", "read", "-g", "AppleLanguages").Output()
	if err != nil {
		return nil
	}
	return parseAppleLanguages(string(out))
}
