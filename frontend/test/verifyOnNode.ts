/** The page's verifier (lib/verify-outcomes.ts, "Verify every outcome") run outside the browser, so
 * the chain tests can hold it to the same chain states as verify_challenge.py: pytest's live server
 * and its anvil (chain/tests/verifier_support.py, `run_page_verifier`, bundles this file with esbuild
 * and runs it with node). It reads what the page reads: the public configuration the site embeds,
 * the resolved challenge, and then whatever verifyChallenge asks of the site (on the site's origin,
 * as the page's relative requests are) and of the RPC node named on the command line (the page's
 * CHAIN_PUBLIC_RPC_URL).
 *
 *     node verify-on-node.mjs <site> <rpc> <challengeId>
 *
 * Prints one JSON line: whether every outcome was reproduced, the counts, and every difference in
 * the words the page shows. Exit status 0 when it ran (whatever it found), 2 when it could not. */

import type { Challenge } from "@/lib/verify-outcomes-types";
import { verifyChallenge, type VerificationReport } from "@/lib/verify-outcomes";

/** The report as plain JSON (no bigints): what a test asserts on. */
function summary(report: VerificationReport) {
  return {
    ok: report.ok,
    reproduced: report.reproduced,
    outcomes: report.outcomes.length,
    terms: report.terms,
    differenceCount: report.differenceCount,
    differences: [
      ...report.outcomes.flatMap((o) => o.problems.map((p) => `response ${o.response.id}: ${p}`)),
      ...report.rejected.flatMap((r) => r.problems.map((p) => `rejected claim ${r.claim.id}: ${p}`)),
      ...report.payouts.flatMap((p) => p.problems.map((problem) => `payout ${p.kind}: ${problem}`)),
      ...report.differences,
    ],
    rejected: report.rejected.map((r) => ({ id: r.claim.id, expected: r.expected, problems: r.problems })),
    payments: report.payments.map((p) => ({
      transactionHash: p.transactionHash,
      logIndex: p.logIndex,
      accountedAs: p.accountedAs,
      inWindow: p.inWindow,
    })),
    exceptions: report.exceptions,
  };
}

async function main(): Promise<number> {
  const [site, rpcUrl, id] = process.argv.slice(2);
  if (!site || !rpcUrl || !id) {
    process.stderr.write("usage: verify-on-node.mjs <site> <rpc> <challengeId>\n");
    return 2;
  }
  const origin = site.replace(/\/$/, "");
  const page = await (await fetch(`${origin}/`)).text();
  const embedded = /<script id="geopoem-config" type="application\/json">([\s\S]*?)<\/script>/.exec(page);
  if (!embedded?.[1]) throw new Error(`${origin}/ embeds no public configuration`);
  const config = JSON.parse(embedded[1]) as Record<string, unknown>;
  const resolved = (await (await fetch(`${origin}/api/challenges/resolved`)).json()) as Challenge[];
  const challenge = resolved.find((c) => c.id === Number(id));
  if (!challenge) throw new Error(`challenge ${id} is not among the site's resolved challenges`);
  const report = await verifyChallenge({
    challenge,
    config: {
      rpcUrl,
      chainId: Number(config.chainId),
      usdcAddress: String(config.usdcAddress),
      treasuryAddress: String(config.treasuryAddress),
      registryAddress: (config.registryAddress as string | null) ?? null,
      operationsAddress: (config.operationsAddress as string | null) ?? null,
      tokenDecimals: Number(config.tokenDecimals),
    },
    // The page asks the site by path; outside a page, the path is put on the site's origin.
    fetchImpl: ((input: RequestInfo | URL, init?: RequestInit) =>
      fetch(typeof input === "string" && input.startsWith("/") ? `${origin}${input}` : input, init)) as typeof fetch,
  });
  process.stdout.write(`${JSON.stringify(summary(report))}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`could not verify: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
