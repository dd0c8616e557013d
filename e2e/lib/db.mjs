// What the database holds, read with psql as JSON (the suite asserts on rows, not on API answers).
import { run } from "./processes.mjs";

export async function query(dbUrl, sql) {
  const out = await run("psql", [
    dbUrl,
    "-At",
    "-v",
    "ON_ERROR_STOP=1",
    "-c",
    `SELECT coalesce(json_agg(t), '[]'::json) FROM (${sql}) t`,
  ]);
  return JSON.parse(out.trim());
}

export const sqlString = (value) => `'${String(value).replaceAll("'", "''")}'`;
