// The real server side for the suite: PostgreSQL (database geopoem_e2e, recreated), Redis (DB 9 of
// the local server, or a private redis-server on a free port when none answers), anvil with the
// project's test USDC, gunicorn and a Celery worker (with its embedded beat). Every process gets a
// free loopback port and is stopped by its PID in stop(), which the suite calls in `after`.
import crypto from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { freePort, run, startProcess, stopProcess, waitFor } from "./processes.mjs";
import { rpc } from "./rpc.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const ARTIFACTS = path.join(ROOT, "e2e", "artifacts");
const PY = path.join(ROOT, ".venv", "bin", "python");
const PG_ADMIN_URL = process.env.E2E_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

// This node's own chain id (anvil's default); the wallet's "other chain" is Ethereum mainnet.
export const CHAIN_ID = 31337;
export const STAFF = { username: "e2e-staff", password: "e2e-staff-password-not-secret" };

function anvilBinary() {
  const scope = path.join(ROOT, "node_modules", "@foundry-rs");
  for (const entry of existsSync(scope) ? readdirSync(scope).sort() : []) {
    const candidate = path.join(scope, entry, "bin", "anvil");
    if (entry.startsWith("anvil-") && existsSync(candidate)) return candidate;
  }
  return path.join(ROOT, "node_modules", ".bin", "anvil");
}

async function redisPing(port) {
  try {
    return (await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), "ping"])).trim() === "PONG";
  } catch {
    return false;
  }
}

/** Awaits every promise; then throws the first failure, if any. */
async function settled(promises) {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
}

/** `options.env`: settings the caller adds to (or changes in) the servers' environment, e.g.
 * bench/live.mjs's CHAIN_CONFIRMATIONS=2; the suite passes none. */
export async function startStack({ env: extraEnv = {} } = {}) {
  // A flow run on its own beside the suite (e2e/flows/maps.mjs) names its own database, Redis DB
  // and log folder; read here, when the stack starts, not when this module is imported.
  const DB_NAME = process.env.E2E_DB_NAME ?? "geopoem_e2e";
  const REDIS_DB = Number(process.env.E2E_REDIS_DB ?? 9);
  const logDir = process.env.E2E_LOG_DIR ?? path.join(ARTIFACTS, "logs");
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const tmp = mkdtempSync(path.join(os.tmpdir(), "geopoem-e2e-"));
  const stack = { processes: [], tmp, logDir };
  const started = Date.now();
  const phase = (what) =>
    appendFileSync(path.join(logDir, "stack-phases.log"), `${((Date.now() - started) / 1000).toFixed(1)} s ${what}\n`);
  // The suite's own bundle of the current source, built while the services start.
  const buildDir = path.join(tmp, "bundle");
  const building = run(
    path.join(ROOT, "node_modules", ".bin", "webpack"),
    ["--mode", "production", "--config", path.join(ROOT, "e2e", "webpack.e2e.mjs")],
    { cwd: ROOT, env: { ...process.env, E2E_BUILD_DIR: buildDir } },
  );
  building.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  try {
    // PostgreSQL, Redis and anvil are independent: started side by side (allSettled, so that a
    // failure stops the stack only once every start has finished and recorded its process).
    await settled([
      (async () => {
        // PostgreSQL: our own database, new for every run.
        const dbUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${DB_NAME}`);
        await run("psql", [PG_ADMIN_URL, "-q", "-c", `DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`]);
        await run("psql", [PG_ADMIN_URL, "-q", "-c", `CREATE DATABASE ${DB_NAME}`]);
        stack.dbUrl = dbUrl;
        phase("database");
      })(),
      (async () => {
        // Redis: DB 9 of the machine's server, emptied; a private server when there is none.
        if (await redisPing(6379)) {
          await run("redis-cli", ["-h", "127.0.0.1", "-p", "6379", "-n", String(REDIS_DB), "flushdb"]);
          stack.redisUrl = `redis://127.0.0.1:6379/${REDIS_DB}`;
        } else {
          const port = await freePort();
          const redis = startProcess(
            "redis",
            "redis-server",
            ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"],
            { logDir },
          );
          stack.processes.push(redis);
          await waitFor(() => redisPing(port), { what: "redis-server", handle: redis });
          stack.redisUrl = `redis://127.0.0.1:${port}/0`;
        }
        phase("redis");
      })(),
      (async () => {
        // anvil: automine while the token is deployed and minted, then a block every second so
        // that payments gain confirmations as they would on a real chain.
        const anvilPort = await freePort();
        const anvil = startProcess(
          "anvil",
          anvilBinary(),
          ["--host", "127.0.0.1", "--port", String(anvilPort), "--chain-id", String(CHAIN_ID), "--accounts", "10"],
          { logDir },
        );
        stack.processes.push(anvil);
        const rpcUrl = `http://127.0.0.1:${anvilPort}`;
        stack.rpcUrl = rpcUrl;
        await waitFor(() => rpc(rpcUrl, "eth_chainId"), { what: "anvil", handle: anvil });
        const accounts = await rpc(rpcUrl, "eth_accounts");
        // Accounts 1-7 are players with USDC, 8 an unlocked account with none, 9 the pot's share
        // and sweep receiver (scripts/devchain.py).
        stack.accounts = {
          deployer: accounts[0],
          players: accounts.slice(1, 8),
          broke: accounts[8],
          house: accounts[9],
        };
        const deployed = JSON.parse(
          await run(
            PY,
            [
              path.join(ROOT, "scripts", "devchain.py"),
              "deploy",
              "--rpc",
              rpcUrl,
              "--mint-to",
              ...accounts.slice(1, 8),
            ],
            { cwd: ROOT },
          ),
        );
        stack.usdc = deployed.usdcAddress;
        // The pot, at the local chain's pinned address (a fresh anvil: scripts/devchain.py deploys it
        // through the CREATE2 factory), owned by the development operator key (ETH only): the worker
        // opens every challenge staff publish, and only then does it take stakes.
        stack.pot = deployed.potAddress;
        stack.potDeployBlock = deployed.potDeployBlock;
        stack.operatorKey = deployed.operatorKey;
        // The development relayer key (ETH only): it relays players' signed stakes and the game's steps.
        stack.relayerKey = deployed.relayerKey;
        await rpc(rpcUrl, "evm_setIntervalMining", [1]);
        phase("anvil + token");
      })(),
    ]);
    const { dbUrl, redisUrl, rpcUrl } = stack;

    const webPort = await freePort();
    stack.baseUrl = `http://127.0.0.1:${webPort}`;
    stack.env = {
      ...process.env,
      DJANGO_SETTINGS_MODULE: "e2e.settings",
      E2E_STATIC_ROOT: path.join(tmp, "static"),
      E2E_BUILD_DIR: buildDir,
      // Production's settings refuse a key Django's deploy check calls insecure (under 50 characters).
      SECRET_KEY: `e2e-only-${crypto.randomBytes(32).toString("hex")}`,
      ALLOWED_HOSTS: "127.0.0.1,localhost",
      CSRF_TRUSTED_ORIGINS: stack.baseUrl,
      DATABASE_URL: dbUrl,
      REDIS_URL: redisUrl,
      CHAIN_ID: String(CHAIN_ID),
      CHAIN_NAME: "Anvil (e2e)",
      CHAIN_CURRENCY_NAME: "ETH",
      CHAIN_CURRENCY_SYMBOL: "ETH",
      CHAIN_RPC_URLS: rpcUrl,
      CHAIN_PUBLIC_RPC_URL: rpcUrl,
      CHAIN_RPC_TIMEOUT_SECONDS: "5",
      USDC_ADDRESS: stack.usdc,
      POT_ADDRESS: stack.pot,
      POT_DEPLOY_BLOCK: String(stack.potDeployBlock),
      POT_OPERATOR_KEY: stack.operatorKey,
      RELAYER_KEY: stack.relayerKey,
      CHAIN_CONFIRMATIONS: "1",
      // The shortest guess window the pot allows: the flows move anvil's clock past it.
      POT_GUESS_WINDOW_SECONDS: "3600",
      ADMIN_URL: "admin/",
      LOG_LEVEL: "INFO",
      PYTHONUNBUFFERED: "1",
      ...extraEnv,
    };
    const manage = (...args) => run(PY, [path.join(ROOT, "manage.py"), ...args], { env: stack.env, cwd: ROOT });
    // The bundle and its collectstatic, beside the database's migrate, demo seed and staff user.
    await settled([
      (async () => {
        await building;
        phase("bundle built");
        await manage("collectstatic", "--noinput");
        phase("collectstatic");
      })(),
      (async () => {
        await manage("migrate", "--noinput");
        phase("migrate");
        await manage("seed_demo");
        phase("seed");
        await manage(
          "shell",
          "-c",
          `from django.contrib.auth import get_user_model as g; g().objects.create_superuser(${JSON.stringify(STAFF.username)}, 'staff@e2e.invalid', ${JSON.stringify(STAFF.password)})`,
        );
        phase("staff user");
      })(),
    ]);

    const gunicorn = startProcess(
      "gunicorn",
      path.join(ROOT, ".venv", "bin", "gunicorn"),
      [
        "config.wsgi:application",
        "--bind",
        `127.0.0.1:${webPort}`,
        "--workers",
        "2",
        "--threads",
        "2",
        "--access-logfile",
        "-",
      ],
      { env: stack.env, cwd: ROOT, logDir },
    );
    stack.processes.push(gunicorn);
    const worker = startProcess(
      "celery",
      path.join(ROOT, ".venv", "bin", "celery"),
      [
        "-A",
        "config",
        "worker",
        "--beat",
        "--schedule",
        path.join(tmp, "celerybeat-schedule"),
        "--loglevel",
        "INFO",
        "--concurrency",
        "2",
        "--prefetch-multiplier",
        "1",
        // The default queue and the relayer's own, as the Procfile's worker consumes them.
        "-Q",
        "celery,relay",
        "--hostname",
        `e2e-${process.pid}@%h`,
      ],
      { env: stack.env, cwd: ROOT, logDir },
    );
    stack.processes.push(worker);
    await waitFor(
      async () => {
        const answer = await fetch(`${stack.baseUrl}/healthz`);
        return answer.status === 200;
      },
      { what: "gunicorn /healthz 200", timeoutMs: 60000, handle: gunicorn },
    );
    phase("gunicorn answers");
    return stack;
  } catch (error) {
    await stopStack(stack);
    throw error;
  }
}

export async function stopStack(stack) {
  if (!stack) return;
  for (const handle of [...stack.processes].reverse()) await stopProcess(handle);
  rmSync(stack.tmp, { recursive: true, force: true });
}
