package dashboard

import (
	"embed"
	"net/http"
)

// SecretHeader carries a login's secret on every data request: a page of
// another origin cannot set it without a CORS preflight, which is never
// answered, and cannot read it (the page keeps it in localStorage, which
// is per origin, and so per port; cookies are per host).
const SecretHeader = "X-Clawd-Dashboard"

// CSP is the Content-Security-Policy of every dashboard response: scripts,
// styles, images and connections from the runtime itself only, no inline
// script or eval, no frames, no forms, no <base>.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// SetHeaders sets the security headers every dashboard response carries.
// CORP same-origin keeps other pages from even loading a response as an
// image or a script; no CORS header is ever set.
func SetHeaders(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// Assets are the page's files: index.html (the dashboard), signin.html
// (what a browser without a login gets), login.html (the login's one
// answer), app.js, login.js and app.css.
//
//go:embed assets
var Assets embed.FS
