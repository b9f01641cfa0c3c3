#!/usr/bin/env bash
# test.sh is clawd's one test command, for people and CI alike:
#
#   bash scripts/test.sh [go test args...]     e.g. bash scripts/test.sh -run Claude -v
#
# It installs the agent CLIs the end-to-end tests drive (scripts/install-agents.sh)
# and the tools of the release and desktop tests (scripts/install-tools.sh:
# goreleaser, systemd-analyze, desktop-file-validate, bash-completion, plistutil,
# rpm, qemu-user-static, Wine and mingw-w64), cached outside the repo or from
# apt, quick once installed, then checks formatting, vets, and
# runs every test with the race detector (release/ runs a goreleaser snapshot
# build meanwhile, in parallel with the other packages).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-agents.sh
bash scripts/install-tools.sh
CLAWD_E2E_CLAUDE="${CLAWD_TEST_CACHE:-$HOME/.cache/clawd-test}/claude/node_modules/.bin/claude"
export CLAWD_E2E_CLAUDE

unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting (run gofmt -w):" >&2
  echo "$unformatted" >&2
  exit 1
fi

go vet ./...
# The end-to-end package runs every real agent CLI, and the release build takes
# minutes on a cold build cache; on a loaded 2-core machine either can pass
# go test's default 10-minute limit per package.
go test -race -count=1 -timeout 30m ./... "$@"
