#!/usr/bin/env bash
# install-agents.sh installs the agent CLIs that the end-to-end tests drive,
# into a cache folder outside the repository (so a fresh clone stays clean and
# later runs are fast):
#
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/claude   Claude Code (npm)
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/codex    Codex CLI (npm)
#
# and tmux (apt) when it is missing: the interactive tests run the CLI under it;
# and Debian's chromium (apt) when /usr/bin/chromium is missing: the browser
# test (e2e/browser_test.go) drives it headless. A browser downloaded by a test
# tool does not work here; the distribution's does. And Debian's dbus (apt)
# when dbus-daemon is missing: the tray and notification tests run clawd on a
# private session bus of their own.
# Silent when everything is already there. Prints progress to stderr otherwise.
set -euo pipefail

CACHE="${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}"
CLAUDE_VERSION=2.1.328
CODEX_VERSION=0.169.0

say() { echo "install-agents: $*" >&2; }

# claude_bin prints the working claude executable under $1, if there is one
# with the expected version.
claude_bin() {
  local dir=$1 bin
  for bin in "$dir/node_modules/.bin/claude" "$dir"/node_modules/@anthropic-ai/claude-code-*/claude; do
    [ -x "$bin" ] || continue
    if "$bin" --version 2>/dev/null | grep -q "^$CLAUDE_VERSION\b"; then
      echo "$bin"
      return 0
    fi
  done
  return 1
}

install_claude() {
  local dir="$CACHE/claude"
  if [ -x "$dir/node_modules/.bin/claude" ] &&
    "$dir/node_modules/.bin/claude" --version 2>/dev/null | grep -q "^$CLAUDE_VERSION\b"; then
    return 0
  fi
  command -v npm >/dev/null || { say "npm not found: install Node.js (>= 20) first"; exit 1; }
  say "installing @anthropic-ai/claude-code@$CLAUDE_VERSION into $dir (~25 s, ~360 MB)"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || (cd "$dir" && npm init -y >/dev/null)
  # The version is pinned on purpose: the tests assert on hook payloads and
  # debug-log lines of this exact version. No fallback to latest.
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-code@$CLAUDE_VERSION" >&2)
  # The package's postinstall links the native binary over bin/claude.exe.
  # Where install scripts did not run (--ignore-scripts, root without
  # unsafe-perm), link the platform package's binary in its place.
  if ! "$dir/node_modules/.bin/claude" --version >/dev/null 2>&1; then
    local native
    native="$(claude_bin "$dir")" || { say "claude $CLAUDE_VERSION installed but does not run"; exit 1; }
    say "postinstall did not run; linking $native"
    ln -sf "$native" "$dir/node_modules/.bin/claude"
  fi
  claude_bin "$dir" >/dev/null || { say "claude $CLAUDE_VERSION does not run after install"; exit 1; }
}

# codex_bin prints the working codex executable under $1, if there is one
# with the expected version.
codex_bin() {
  local dir=$1 bin
  for bin in "$dir/node_modules/.bin/codex" "$dir"/node_modules/@openai/codex-*/vendor/*/bin/codex; do
    [ -x "$bin" ] || continue
    if "$bin" --version 2>/dev/null | grep -q "^codex-cli $CODEX_VERSION\b"; then
      echo "$bin"
      return 0
    fi
  done
  return 1
}

install_codex() {
  local dir="$CACHE/codex"
  if [ -x "$dir/node_modules/.bin/codex" ] &&
    "$dir/node_modules/.bin/codex" --version 2>/dev/null | grep -q "^codex-cli $CODEX_VERSION\b"; then
    return 0
  fi
  command -v npm >/dev/null || { say "npm not found: install Node.js (>= 20) first"; exit 1; }
  say "installing @openai/codex@$CODEX_VERSION into $dir (~1 min, ~400 MB)"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || (cd "$dir" && npm init -y >/dev/null)
  # Pinned like Claude: the tests assert on this version's hook payloads,
  # rollout format and screen texts. The launcher pulls the platform binary
  # (@openai/codex@$CODEX_VERSION-linux-x64) as an optional dependency.
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
    "@openai/codex@$CODEX_VERSION" >&2)
  codex_bin "$dir" >/dev/null || { say "codex $CODEX_VERSION does not run after install"; exit 1; }
}

# apt_updated is set once apt-get update ran in this script: tmux and
# chromium may both be missing, one update serves both.
apt_updated=

# apt_install installs Debian packages, as root or through sudo -n.
apt_install() {
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo -n)
  if [ -z "$apt_updated" ]; then
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    apt_updated=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

install_tmux() {
  command -v tmux >/dev/null && return 0
  command -v apt-get >/dev/null || { say "tmux is missing and apt-get is not available: install tmux"; exit 1; }
  say "installing tmux (apt)"
  apt_install tmux
}

install_chromium() {
  [ -x /usr/bin/chromium ] && return 0
  command -v apt-get >/dev/null || { say "/usr/bin/chromium is missing and apt-get is not available: install Debian's chromium"; exit 1; }
  say "installing chromium (apt, ~1 min)"
  apt_install chromium
  [ -x /usr/bin/chromium ] || { say "chromium installed but /usr/bin/chromium is not there"; exit 1; }
}

install_dbus() {
  command -v dbus-daemon >/dev/null && return 0
  command -v apt-get >/dev/null || { say "dbus-daemon is missing and apt-get is not available: install Debian's dbus"; exit 1; }
  say "installing dbus (apt)"
  apt_install dbus
  command -v dbus-daemon >/dev/null || { say "dbus installed but dbus-daemon is not on PATH"; exit 1; }
}

install_claude
install_codex
install_tmux
install_chromium
install_dbus
