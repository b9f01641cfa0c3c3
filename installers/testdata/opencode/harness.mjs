// harness.mjs runs clawd's opencode plugin under node the way opencode
// would, for installers/opencode_plugin_test.go:
//
//   node harness.mjs ARGS... PLUGIN FIXTURES
//
// ARGS are opencode's arguments as the plugin sees them from
// process.argv[2] on ("run" for `opencode run`, "tui" for the TUI). PLUGIN is the rendered plugin; its one import
// of node:child_process is pointed at a wrapper that notes every hook
// process it starts (argv, stdin, how it ended) and lets the harness wait
// until the plugin is quiet. FIXTURES is a folder of recorded calls
// (NN-event.<type>.json, NN-hook.chat.message.json, NN-hook.dispose.json):
// they are handed to the plugin in order, each once the hooks of the one
// before have finished (those of permission requests and questions too,
// unless the fake clawd blocks them: FAKE_CLAWD_BLOCK=1). The client the plugin gets
// records what it is asked.
//
// FIXTURES "-" hands it nothing; HARNESS_FLOOD=N first makes N
// chat.message calls at once, HARNESS_DISPOSE=1 ends with a dispose,
// HARNESS_NOWAIT=1 hands over every call at once and kills what still
// runs at the end.
//
// It prints one JSON object: {"hooks": [{event, stdin, signal, code}],
// "replies": [...], "timings": {...}}.
import fs from "node:fs"
import path from "node:path"
import url from "node:url"

const [pluginPath, fixtures] = process.argv.slice(-2)
const here = path.dirname(url.fileURLToPath(import.meta.url))
const work = fs.mkdtempSync(path.join(process.env.HARNESS_TMP || "/tmp", "clawd-plugin-"))

// The plugin, with its spawn counted.
const source = fs.readFileSync(pluginPath, "utf8")
const importLine = 'import { spawn } from "node:child_process"'
if (!source.includes(importLine)) throw new Error("the plugin no longer imports spawn as the harness expects")
fs.writeFileSync(path.join(work, "plugin.mjs"), source.replace(importLine, `import { spawn } from ${JSON.stringify(url.pathToFileURL(path.join(here, "spawn.mjs")).href)}`))
const { ClawdPlugin } = await import(url.pathToFileURL(path.join(work, "plugin.mjs")).href)
const spawns = globalThis.__clawdSpawns

const replies = []
const client = {
  postSessionIdPermissionsPermissionId: async (opts) => {
    replies.push({ via: "v1", ...opts })
    return { response: { ok: true, status: 200 }, data: true }
  },
  _client: {
    post: async (opts) => {
      replies.push({ via: "v2", url: opts.url, path: opts.path, body: opts.body })
      return { response: { ok: true, status: 200 }, data: true }
    },
  },
}

const block = process.env.FAKE_CLAWD_BLOCK === "1"
const noWait = process.env.HARNESS_NOWAIT === "1"
// quiet resolves once no hook process runs but blocked permission and
// question hooks and the plugin has nothing more to start.
const blocked = (s) => block && (s.event === "permission.asked" || s.event === "question.asked")
const quiet = async () => {
  for (let i = 0; i < 2000; i++) {
    await new Promise((r) => setTimeout(r, 5))
    const busy = spawns.filter((s) => !s.done && !blocked(s))
    if (busy.length === 0) {
      // Let promise chains run that start the next hook.
      await new Promise((r) => setTimeout(r, 20))
      if (spawns.every((s) => s.done || blocked(s))) return
    }
  }
  throw new Error("the plugin's hooks did not finish")
}

const t0 = performance.now()
const hooks = await ClawdPlugin({ client, directory: "/home/user/project", worktree: "/home/user/project" })
const timings = { init: performance.now() - t0, event: 0, dispose: 0 }
const flood = Number(process.env.HARNESS_FLOOD || 0)
if (flood > 0) {
  // All at once: opencode does not wait for its plugins' event hooks.
  const calls = []
  for (let i = 0; i < flood; i++) {
    calls.push(hooks["chat.message"]({ sessionID: "ses_flood" }, { message: { id: "msg_" + i }, parts: [{ type: "text", text: "prompt " + i }] }))
  }
  await Promise.all(calls)
}
const files = fixtures === "-" ? [] : fs.readdirSync(fixtures).filter((f) => /^\d+-.*\.json$/.test(f)).sort()
for (const f of files) {
  const label = f.replace(/^\d+-/, "").replace(/\.json$/, "")
  const data = JSON.parse(fs.readFileSync(path.join(fixtures, f), "utf8"))
  const t = performance.now()
  if (label.startsWith("event.")) {
    await hooks.event({ event: data })
    timings.event = Math.max(timings.event, performance.now() - t)
  } else if (label === "hook.chat.message") {
    await hooks["chat.message"](data.input, data.output)
    timings.event = Math.max(timings.event, performance.now() - t)
  } else if (label === "hook.dispose") {
    await hooks.dispose()
    timings.dispose = performance.now() - t
  } else {
    continue
  }
  if (!noWait) await quiet()
}
if (process.env.HARNESS_DISPOSE === "1") {
  const t = performance.now()
  await hooks.dispose()
  timings.dispose = performance.now() - t
}
if (!noWait) await quiet()

const hooksOut = spawns.map((s) => {
  let stdin = s.stdin
  try {
    stdin = JSON.parse(s.stdin)
    if (stdin?.clawd?.pid === process.pid) stdin.clawd.pid = 4242
  } catch {}
  return { argv: s.argv, event: s.event, stdin, signal: s.signal, code: s.code, output: s.output, error: s.error }
})
for (const s of spawns) {
  if (!s.done) s.child.kill("SIGKILL")
}
fs.rmSync(work, { recursive: true, force: true })
process.stdout.write(JSON.stringify({ hooks: hooksOut, replies, timings }) + "\n", () => process.exit(0))
