package tray

import "github.com/clawdhq/clawd/internal/icons"

// iconBytes is the tray icon in the format the platform takes: ICO.
func iconBytes(n icons.Name) []byte { return icons.ICO(n) }
