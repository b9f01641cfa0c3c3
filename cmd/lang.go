package cmd

import (
	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/i18n"
)

// printer returns the messages in the person's language, picked once:
// config.toml's [ui] language, else the locale (see i18n.Detect). A
// config file that does not load leaves the choice to the locale: the
// command that needs the config says what is wrong with it.
func (e *env) printer() i18n.Printer {
	e.langOnce.Do(func() {
		setting := ""
		if cfg, err := config.Load(e.home()); err == nil {
			setting = cfg.UI.Language
		}
		e.lang = i18n.For(i18n.Detect(setting, e.getenv))
	})
	return e.lang
}

// t is the message of key in the person's language (i18n.Printer.T).
func (e *env) t(key string, args ...any) string { return e.printer().T(key, args...) }

// n is the message of key for the count n (i18n.Printer.N).
func (e *env) n(key string, n int, args ...any) string { return e.printer().N(key, n, args...) }
