//go:build !darwin

package tray

import (
	"fyne.io/systray"

	"github.com/clawdhq/clawd/internal/icons"
)

// setIcon shows n in the tray in colour, in the format the platform
// takes (iconBytes).
func setIcon(n icons.Name) { systray.SetIcon(iconBytes(n)) }
