/** The page's verifier (lib/verify, "Verify every outcome") run outside the browser, so the chain
 * tests hold it to the same site and chain as verify_challenge.py: pytest's live server and its anvil
 * (chain/tests/verify/verifier_support.py, `run_page_verifier`, bundles this file with esbuild and runs it
 * with node). It reads what the page reads: the public configuration the site embeds, then whatever
 * verifyChallenge asks of the site and of the RPC node named on the command line. The pot given is
 * pinned for the node's chain, as PINNED_POTS pins the real ones.
 *
 *     node verify-on-node.mjs <site> <rpc> <challengeId> <pot> [record.json]
 *
 * Prints one JSON line: whether every outcome was reproduced, the counts, the checks, and every
 * difference as the script prints it. Exit status 0 when it ran (whatever it found), 2 when it could
 * not. */

import { readFile } from "node:fs/promises";
import { type StakeRecord, verifyChallenge } from "@/lib/verify";
import { Report } from "@/lib/verify/report";

async function main(): Promise<number> {
  const [site, rpcUrl, id, pot, recordPath] = process.argv.slice(2);
  if (!site || !rpcUrl || !id || !pot) {
    process.stderr.write("usage: verify-on-node.mjs <site> <rpc> <challengeId> <pot> [record.json]\n");
    return 2;
  }
  const origin = site.replace(/\/$/, "");
  const page = await (await fetch(`${origin}/`)).text();
  const embedded = /<script id="geopoem-config" type="application\/json">([\s\S]*?)<\/script>/.exec(page);
  if (!embedded?.[1]) throw new Error(`${origin}/ embeds no public configuration`);
  const config = JSON.parse(embedded[1]) as Record<string, unknown>;
  const chainId = Number(config.chainId);
  const records = recordPath ? [JSON.parse(await readFile(recordPath, "utf8")) as StakeRecord] : [];
  const report = await verifyChallenge({
    challengeId: Number(id),
    config: {
      rpcUrl,
      chainId,
      potAddress: typeof config.potAddress === "string" ? config.potAddress : null,
      potDeployBlock: Number(config.potDeployBlock ?? 0),
      tokenDecimals: Number(config.tokenDecimals ?? 6),
    },
    pins: { [chainId]: { address: pot, deployBlock: 0 } },
    site: origin,
    records,
  });
  const summary = {
    ok: report.ok,
    total: report.total,
    reproduced: report.reproduced,
    lines: report.lines,
    differences: report.differences.map((d) => Report.text(d)),
    stakes: report.stakes,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return 0;
}

// process.exitCode, not process.exit(): exiting at once would cut a long report written to a pipe.
main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`could not verify: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
