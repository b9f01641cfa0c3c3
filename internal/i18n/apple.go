package i18n

import "strings"

// parseAppleLanguages reads `defaults read -g AppleLanguages`, a property
// list array: ( "zh-Hans-CN", "en-US" ).
func parseAppleLanguages(s string) []string {
	var langs []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune("(),\n \t", r) }) {
		if f = strings.Trim(f, `"`); f != "" {
			langs = append(langs, f)
		}
	}
	return langs
}
