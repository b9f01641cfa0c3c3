//go:build !windows && !darwin

package i18n

// systemLanguages is empty where the locale variables are the platform's
// own setting (Linux and the other Unixes).
func systemLanguages() []string { return nil }
