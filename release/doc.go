// Package release tests clawd's release build: release_test.go runs
// goreleaser (installed, pinned, by scripts/install-tools.sh) on a copy of
// the repository and checks what it made in dist/: archives, checksums,
// static binaries that run, the .deb and .rpm, the Homebrew formula and
// the Scoop manifest. It has no code of its own.
package release
