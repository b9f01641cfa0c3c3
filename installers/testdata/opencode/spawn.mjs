// spawn.mjs is node:child_process's spawn, noting every process it starts
// in globalThis.__clawdSpawns: its argv, what was written to its stdin,
// what it printed when read, and how it ended. See harness.mjs.
import { spawn as realSpawn } from "node:child_process"

const spawns = (globalThis.__clawdSpawns = [])

export function spawn(cmd, args, opts) {
  const rec = { argv: [cmd, ...args], event: args[2], stdin: "", output: "", done: false, code: null, signal: null }
  spawns.push(rec)
  const child = realSpawn(cmd, args, opts)
  Object.defineProperty(rec, "child", { value: child, enumerable: false })
  const end = child.stdin.end.bind(child.stdin)
  child.stdin.end = (data, ...rest) => {
    if (typeof data === "string") rec.stdin += data
    return end(data, ...rest)
  }
  child.stdout?.on("data", (d) => {
    rec.output += d
  })
  const finish = (code, signal) => {
    rec.done = true
    rec.code = code
    rec.signal = signal
  }
  child.on("close", finish)
  child.on("error", (err) => {
    rec.error = String(err)
    finish(null, null)
  })
  return child
}
