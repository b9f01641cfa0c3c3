//go:build darwin && cgo

package tray

import (
	"fyne.io/systray"

	"github.com/clawdhq/clawd/internal/icons"
)

// setIcon shows n in the macOS menu bar as a template image, the
// monochrome silhouette macOS tints to the bar as it does its own items
// (the states tell apart by shape there); the coloured PNG is systray's
// fallback.
func setIcon(n icons.Name) { systray.SetTemplateIcon(icons.Template(n), icons.PNG(n)) }
