// Package release tests clawd's release build: release_test.go runs
// goreleaser (installed, pinned, by scripts/install-tools.sh) on a copy of
// the repository and checks what it made in dist/: archives, checksums,
// static binaries that run (other CPUs under qemu-user, Windows under
// Wine), the .deb and .rpm, the Homebrew formula and the Scoop manifest.
// goinstall_test.go runs README's `go install github.com/clawdhq/clawd@latest`
// with an empty GOPATH; windows_test.go drives the Windows clawd's
// autostart against Wine's registry. It has no code of its own.
package release
