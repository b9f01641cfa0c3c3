// Package tray will hold the tray icon and menu of `clawd serve`: a client
// of the runtime's API like any other. Until it lands, serve runs headless.
package tray

// Available reports whether this build has a tray.
func Available() bool { return false }
