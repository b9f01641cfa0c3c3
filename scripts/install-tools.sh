#!/usr/bin/env bash
# install-tools.sh installs the tools the release and desktop tests use,
# when they are missing (silent when everything is there):
#
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/goreleaser/<version>/goreleaser
#       goreleaser, pinned, with `go install` (the first time ~8 min: it
#       downloads and compiles a large module graph; then a version check);
#       release/release_test.go runs it on a copy of the repository
#   systemd-analyze (apt: systemd)        checks autostart's user unit
#   desktop-file-validate (apt: desktop-file-utils)  checks its XDG entry
#   bash-completion (apt)                 the completion test's bash
#   plistutil (apt: libplist-utils)       reads autostart's LaunchAgent
#   dpkg-deb (apt: dpkg)                  reads the release's .deb
#   rpm (apt)                             reads the release's .rpm
#   qemu-aarch64-static (apt: qemu-user-static)  runs the linux/arm64 binary
#   Wine (apt: wine64) and mingw-w64 (apt: gcc-mingw-w64-x86-64-win32)
#       run the windows/amd64 binary; mingw builds the bcryptprimitives.dll
#       Go needs and Debian 12's Wine 8 lacks (release/testdata)
set -euo pipefail

CACHE="${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}"
# Pinned: the newest release that builds with this Go from the module
# proxy. release_test.go reads the version from this line.
GORELEASER_VERSION=v2.15.1

say() { echo "install-tools: $*" >&2; }
source "$(dirname "$0")/lib.sh"

install_goreleaser() {
  local dir="$CACHE/goreleaser/$GORELEASER_VERSION"
  local out
  # Read it all first: grep -q quitting early would fail the pipe.
  out="$("$dir/goreleaser" --version 2>/dev/null)" && grep -q "^GitVersion: *$GORELEASER_VERSION$" <<<"$out" && return 0
  say "installing goreleaser $GORELEASER_VERSION into $dir (go install; ~8 min the first time)"
  mkdir -p "$dir"
  GOBIN="$dir" GOFLAGS=-mod=mod go install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
  "$dir/goreleaser" --version >/dev/null || { say "goreleaser $GORELEASER_VERSION does not run after install"; exit 1; }
}

# need CHECK PACKAGE installs the Debian package when the command or file
# CHECK is missing.
need() {
  local check=$1 pkg=$2
  if [[ $check == /* ]]; then [ -e "$check" ] && return 0; else command -v "$check" >/dev/null && return 0; fi
  command -v apt-get >/dev/null || { say "$check is missing and apt-get is not available: install $pkg"; exit 1; }
  say "installing $pkg (apt)"
  apt_install "$pkg"
  if [[ $check == /* ]]; then [ -e "$check" ]; else command -v "$check" >/dev/null; fi ||
    { say "$pkg installed but $check is not there"; exit 1; }
}

need systemd-analyze systemd
need desktop-file-validate desktop-file-utils
need /usr/share/bash-completion/bash_completion bash-completion
need plistutil libplist-utils
need dpkg-deb dpkg
need rpm rpm
need qemu-aarch64-static qemu-user-static
need /usr/lib/wine/wine64 wine64
need x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64-win32
need git git
install_goreleaser
