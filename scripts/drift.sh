#!/usr/bin/env bash
# drift.sh tries each agent's newest release against clawd, where
# scripts/test.sh keeps the pinned ones (scripts/install-agents.sh):
#
#   bash scripts/drift.sh [--all] [AGENT...]      e.g. bash scripts/drift.sh claude codex
#
# For every agent of the table below (or the ones named) it asks the agent's
# registry for its newest release (npm, or the Go module proxy), installs it
# into a cache folder of its own,
#
#   ${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/drift/<agent>
#
# with scripts/install-agents.sh's own install functions, and runs the agent's
# end-to-end tests (go test -run PATTERN ./e2e/, no race detector) against the
# pinned release and against the newest, both with a clawd build that keeps a
# copy of every hook payload (CLAWD_E2E_TAP). It then prints a table
#
#   agent | pinned | newest | result
#
# and, for each agent whose newest release is not the pinned one, what it
# sends clawd's hooks that the pinned one did not (scripts/driftdiff): hook
# events its code names, hook events the tests received, payload keys new
# and gone. An agent whose newest release is its pin is not run (--all runs
# its tests all the same). Logs and payloads stay under drift/logs and
# drift/captures. Exit status 1 when a newest release failed to install or
# failed its tests: keep its pin, and see its log.
#
# Moving a pin is a person's call: set <AGENT>_VERSION in
# scripts/install-agents.sh and Tested in agents/<agent>.go to the newest
# release that passes, and update what the tests or the decoder learned.
set -euo pipefail
cd "$(dirname "$0")/.."

# The install functions and pins; sourcing runs none of them.
source scripts/install-agents.sh
PINNED_CACHE="$CACHE"
DRIFT="$PINNED_CACHE/drift"

# One line per agent: its id (as in clawd's registry), where its releases
# are published (npm:PACKAGE or go:MODULE), and its end-to-end tests. A
# test (scripts/driftdiff) holds this table to the registry.
AGENTS=(
  "claude   npm:@anthropic-ai/claude-code     ^(TestClaude|TestInteractive)"
  "codex    npm:@openai/codex                 ^(TestCodex|TestDoctorFixesCodex)"
  "gemini   npm:@google/gemini-cli            ^TestGemini"
  "qwen     npm:@qwen-code/qwen-code          ^TestQwen"
  "copilot  npm:@github/copilot               ^TestCopilot"
  "opencode npm:opencode-ai                   ^TestOpencode"
  "pi       npm:@mariozechner/pi-coding-agent ^TestPi"
  "qoder    npm:@qoder-ai/qodercli            ^TestQoder"
  "omp      npm:@oh-my-pi/pi-coding-agent     ^TestOMP"
  "openclaw npm:openclaw                      ^TestOpenClaw"
  "droid    npm:@factory/cli                  ^TestDroid"
  "cline    npm:cline                         ^TestCline"
  "kilo     npm:@kilocode/cli                 ^TestKilo"
)

say() { echo "drift: $*" >&2; }

all=
want=()
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    -*) say "unknown flag $arg (usage: drift.sh [--all] [AGENT...])"; exit 2 ;;
    *) want+=("$arg") ;;
  esac
done

# newest SOURCE prints the newest release published at SOURCE.
newest() {
  case "$1" in
    npm:*) npm view --loglevel=error "${1#npm:}" version 2>&1 | tail -n 1 ;;
    go:*) go list -m -f '{{.Version}}' "${1#go:}@latest" 2>&1 | tail -n 1 | sed 's/^v//' ;;
    *) echo "no registry in $1"; return 1 ;;
  esac
}

# install ID VERSION DIR installs release VERSION of agent ID under the
# cache folder DIR with install-agents.sh's install_ID.
install() {
  local id=$1 version=$2 dir=$3 var
  var="$(tr '[:lower:]' '[:upper:]' <<<"$id")_VERSION"
  (
    CACHE="$dir"
    printf -v "$var" '%s' "$version"
    "install_$id"
  )
}

# e2e ID VERSION CACHEDIR TAP PATTERN LOG runs agent ID's end-to-end tests
# against its release VERSION installed under CACHEDIR, tapping the hook
# payloads into TAP; it prints "pass" or the failed tests.
e2e() {
  local id=$1 version=$2 cachedir=$3 tap=$4 pattern=$5 log=$6 up failed
  up="$(tr '[:lower:]' '[:upper:]' <<<"$id")"
  rm -rf "$tap"
  mkdir -p "$tap" "$(dirname "$log")"
  if env -u "CLAWD_E2E_$up" CLAWD_TEST_CACHE="$cachedir" "CLAWD_E2E_${up}_VERSION=$version" CLAWD_E2E_TAP="$tap" \
    go test -count=1 -timeout 40m -run "$pattern" ./e2e/ >"$log" 2>&1; then
    echo pass
    return
  fi
  failed="$(grep -oE '^--- FAIL: [^ ]+' "$log" | sed 's/^--- FAIL: //' | tr '\n' ' ')"
  echo "FAIL: ${failed:-see $log}"
}

# The interactive tests run the CLIs under tmux, the tray ones on a private
# D-Bus.
install_tmux
install_dbus
mkdir -p "$DRIFT/logs" "$DRIFT/captures"

rows=()
reports=()
status=0
for line in "${AGENTS[@]}"; do
  read -r id source pattern <<<"$line"
  if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $id "* ]]; then
    continue
  fi
  var="$(tr '[:lower:]' '[:upper:]' <<<"$id")_VERSION"
  pinned="${!var:-}"
  if ! latest="$(newest "$source")" || [ -z "$latest" ]; then
    rows+=("$id|$pinned|?|no release found: $latest")
    status=1
    continue
  fi
  if [ "$latest" = "$pinned" ] && [ -z "$all" ]; then
    rows+=("$id|$pinned|$latest|pinned is newest (not run)")
    continue
  fi
  say "$id: pinned $pinned, newest $latest"
  log="$DRIFT/logs/$id-$latest.log"
  if ! install "$id" "$latest" "$DRIFT" >"$DRIFT/logs/$id-$latest.install.log" 2>&1; then
    rows+=("$id|$pinned|$latest|install failed: see $DRIFT/logs/$id-$latest.install.log")
    status=1
    continue
  fi
  if [ "$latest" = "$pinned" ]; then
    result="$(e2e "$id" "$latest" "$PINNED_CACHE" "$DRIFT/captures/$id/$latest" "$pattern" "$log")"
    rows+=("$id|$pinned|$latest|$result")
    [ "$result" = pass ] || status=1
    continue
  fi
  say "$id: the tests against $pinned (for its payloads)"
  if ! install "$id" "$pinned" "$PINNED_CACHE" >&2; then
    rows+=("$id|$pinned|$latest|the pinned release did not install: run scripts/install-agents.sh")
    status=1
    continue
  fi
  base="$(e2e "$id" "$pinned" "$PINNED_CACHE" "$DRIFT/captures/$id/$pinned" "$pattern" "$DRIFT/logs/$id-$pinned.log")"
  say "$id: the tests against $latest"
  result="$(e2e "$id" "$latest" "$DRIFT" "$DRIFT/captures/$id/$latest" "$pattern" "$log")"
  [ "$result" = pass ] || status=1
  [ "$base" = pass ] || result="$result ($pinned: $base)"
  rows+=("$id|$pinned|$latest|$result")
  reports+=("$(go run ./scripts/driftdiff -agent "$id" \
    -old-version "$pinned" -old-tap "$DRIFT/captures/$id/$pinned" -old-dir "$PINNED_CACHE/$id" \
    -new-version "$latest" -new-tap "$DRIFT/captures/$id/$latest" -new-dir "$DRIFT/$id" 2>&1)")
done

{
  echo "agent|pinned|newest|result"
  printf '%s\n' "${rows[@]}"
} | awk -F'|' '
  { for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NR }
  END { for (r = 1; r <= n; r++) printf "%-*s | %-*s | %-*s | %s\n", w[1], cell[r, 1], w[2], cell[r, 2], w[3], cell[r, 3], cell[r, 4] }'
for r in "${reports[@]}"; do
  echo
  echo "$r"
done
exit "$status"
