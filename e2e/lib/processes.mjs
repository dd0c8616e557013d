// Child processes of the suite: each on a free loopback port, logged to a file, and stopped by its
// own PID (its process group, so a gunicorn or celery master takes its workers with it), also when
// a test fails or the runner is interrupted. Never by name: other engineers run the same programs.
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";

const running = new Set();

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function startProcess(name, command, args, { env = process.env, cwd, logDir } = {}) {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const log = createWriteStream(logFile);
  // detached: its own process group, so stopping it reaches its children too.
  const child = spawn(command, args, { env, cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const handle = { name, child, pid: child.pid, logFile, exited: false, exitCode: null };
  child.on("exit", (code, signal) => {
    handle.exited = true;
    handle.exitCode = code ?? signal;
    running.delete(handle);
  });
  running.add(handle);
  return handle;
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

export async function stopProcess(handle, graceMs = 8000) {
  if (!handle || handle.exited) return;
  const exited = new Promise((resolve) => handle.child.once("exit", resolve));
  signalGroup(handle.pid, "SIGTERM");
  const timer = new Promise((resolve) => setTimeout(() => resolve("timeout"), graceMs));
  if ((await Promise.race([exited, timer])) === "timeout") {
    signalGroup(handle.pid, "SIGKILL");
    await exited;
  }
}

// Last resort when the runner itself exits: kill whatever is still ours, by PID.
process.on("exit", () => {
  for (const handle of running) signalGroup(handle.pid, "SIGKILL");
});
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const handle of running) signalGroup(handle.pid, "SIGKILL");
    process.exit(130);
  });
}

export async function waitFor(check, { timeoutMs = 30000, intervalMs = 200, what = "condition", handle } = {}) {
  const end = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < end) {
    if (handle?.exited)
      throw new Error(`${handle.name} exited (${handle.exitCode}) before ${what}; see ${handle.logFile}`);
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError.message}` : ""}`);
}

export function run(command, args, { env = process.env, cwd, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(" ")} exited ${code}\n${stderr || stdout}`));
    });
    // A program that exits without reading its input (psql -c, webpack) closes the pipe first: that
    // EPIPE is no failure (the exit code says how it went), and unhandled it would crash the runner.
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}
