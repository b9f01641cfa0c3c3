// Package launch opens a URL or a folder with the desktop's default
// handler: the browser for `clawd dashboard` and the tray's "Open
// dashboard", the file manager for the tray's "Open config folder".
package launch

import "context"

// Open hands target (a URL or a folder) to the desktop's default handler
// and returns once the handler took it.
func Open(ctx context.Context, target string) error { return open(ctx, target) }
