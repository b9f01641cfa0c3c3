#!/usr/bin/env bash
# serve-idle.sh measures what `clawd serve` costs while nothing happens: its
# resident memory and CPU over a minute, with the tray and notifications on
# (on a private D-Bus session bus, as on a desktop) and with --headless.
# Ten interactive sessions are fed in first, so the menu has something to
# keep current (its ages refresh every 30 s).
#
#   bash bench/serve-idle.sh            IDLE_SECONDS=120 bash bench/serve-idle.sh
#
# Needs dbus-run-session (Debian's dbus). A report, not a gate.
set -euo pipefail
cd "$(dirname "$0")/.."

idle="${IDLE_SECONDS:-60}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$work/clawd" .

# measure MODE [serve flags...]: runs serve, feeds the sessions, then
# samples /proc. Runs inside the session bus.
cat >"$work/measure.sh" <<'INNER'
set -euo pipefail
bin="$1"; mode="$2"; idle="$3"; shift 3
export CLAWD_HOME="$(mktemp -d)"
"$bin" serve --port 0 "$@" >/dev/null 2>"$CLAWD_HOME/serve.log" &
pid=$!
for _ in $(seq 100); do [ -s "$CLAWD_HOME/runtime.json" ] && break; sleep 0.05; done
for i in $(seq 10); do
  printf '{"session_id":"s%d","hook_event_name":"UserPromptSubmit","cwd":"/tmp/p%d","prompt":"task %d"}' "$i" "$i" "$i" |
    CLAUDE_CODE_ENTRYPOINT=cli "$bin" hook claude
done
sleep 5
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(ticks); s0=$(date +%s%N)
sleep "$idle"
t1=$(ticks); s1=$(date +%s%N)
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
hz=$(getconf CLK_TCK)
awk -v m="$mode" -v r="$rss" -v t="$((t1 - t0))" -v hz="$hz" -v ns="$((s1 - s0))" 'BEGIN {
  printf "%-28s RSS %6.1f MiB   CPU %.3f%% of one core (%d ticks in %.0f s)\n", m, r / 1024, 100 * (t / hz) / (ns / 1e9), t, ns / 1e9 }'
grep -i "no desktop\|tray" "$CLAWD_HOME/serve.log" | sed 's/^/    serve: /' || true
kill "$pid"; wait "$pid" || true
rm -rf "$CLAWD_HOME"
INNER

echo "== clawd serve idle for ${idle}s, 10 sessions"
dbus-run-session -- bash "$work/measure.sh" "$work/clawd" "tray + notifications" "$idle"
bash "$work/measure.sh" "$work/clawd" "--headless" "$idle" --headless
