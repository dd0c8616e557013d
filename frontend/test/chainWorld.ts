import type { Challenge, ScoredResponse, Winners } from "@/api";
import { guessCommitment, solutionCommitment } from "@/lib/commitment";
import { TRANSFER_TOPIC } from "@/lib/verify-outcomes";
import { TEST_CONFIG } from "./fixtures";

/** A resolved challenge as the site publishes it and the chain records it, consistent in every
 * field, built from the protocol's rules (not from the verifier's code paths), for the tests of the
 * in-browser verifier. `route` answers the site's GETs and the RPC node's JSON-RPC batches. */

const pad = (hex: string) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

export interface Guess {
  text: string;
  stake: string; // decimal USDC
  address: string;
  block: number;
  txIndex: number;
}

/** The site's scoring: haversine on a sphere of 6,371,000 m (docs/protocol.md section 4). */
function siteDistance(a: string, b: string): number {
  const [lat1, lon1] = a.split(", ").map((x) => (Number(x) * Math.PI) / 180) as [number, number];
  const [lat2, lon2] = b.split(", ").map((x) => (Number(x) * Math.PI) / 180) as [number, number];
  const h = Math.sin((lat2 - lat1) / 2) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin((lon2 - lon1) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(Math.min(1, h)));
}

export interface ChainWorld {
  challenge: Challenge;
  responses: ScoredResponse[];
  winners: Winners;
  rpcRequests: number;
  siteRequests: number;
  route: (url: string, init?: RequestInit) => Response;
}

const units = (stake: string) => {
  const [whole, fraction = ""] = stake.split(".");
  return BigInt(whole! + fraction.padEnd(6, "0"));
};
const decimal = (u: bigint) => `${u / 1000000n}.${(u % 1000000n).toString().padStart(6, "0")}`;

export async function buildChainWorld(
  guesses: Guess[],
  { id = 7, threshold = 150, solution = "29.979175, 31.134258" } = {},
) {
  const solutionSalt = "11".repeat(32);
  const start = 1_800_000_000;
  const responses: ScoredResponse[] = [];
  const txs = new Map<string, object>();
  const receipts = new Map<string, object>();
  const blocks = new Map<number, object>();
  for (const [i, g] of guesses.entries()) {
    const salt = (i + 1).toString(16).padStart(64, "0");
    const commitment = await guessCommitment({
      chainId: TEST_CONFIG.chainId,
      challengeId: id,
      submitterAddress: g.address,
      text: g.text,
      salt,
    });
    const hash = `0x${(i + 1).toString(16).padStart(64, "0")}`;
    const input =
      "0xa9059cbb" +
      pad(TEST_CONFIG.treasuryAddress) +
      pad(units(g.stake).toString(16)) +
      commitment +
      pad(id.toString(16)) +
      pad("6955b900");
    const blockHash = `0x${g.block.toString(16).padStart(64, "b")}`;
    txs.set(hash, { from: g.address.toLowerCase(), to: TEST_CONFIG.usdcAddress.toLowerCase(), value: "0x0", input });
    receipts.set(hash, {
      status: "0x1",
      blockNumber: hex(g.block),
      blockHash,
      transactionIndex: hex(g.txIndex),
      logs: [
        {
          address: TEST_CONFIG.usdcAddress.toLowerCase(),
          topics: [TRANSFER_TOPIC, `0x${pad(g.address)}`, `0x${pad(TEST_CONFIG.treasuryAddress)}`],
          data: `0x${pad(units(g.stake).toString(16))}`,
          logIndex: hex(g.txIndex),
          removed: false,
        },
      ],
    });
    blocks.set(g.block, { hash: blockHash, timestamp: hex(start + 12 * g.block) });
    responses.push({
      id: 100 + i,
      challengeId: id,
      submissionText: g.text,
      commitment,
      submissionStake: decimal(units(g.stake)),
      submissionTimestamp: start + 12 * g.block,
      transactionHash: hash,
      submitterAddress: g.address,
      status: "confirmed",
      rejectionCode: "",
      rejectionReason: "",
      distanceMeters: siteDistance(g.text, solution),
      isCorrect: siteDistance(g.text, solution) <= threshold,
      submissionSalt: salt,
      blockNumber: g.block,
      transactionIndex: g.txIndex,
      logIndex: g.txIndex,
    });
  }
  const total = responses.reduce((sum, r) => sum + units(r.submissionStake), 0n);
  const correct = responses.filter((r) => r.isCorrect);
  const order = (r: ScoredResponse) => r.blockNumber! * 1e6 + r.transactionIndex!;
  const earliest = [...correct].sort((a, b) => order(a) - order(b))[0] ?? null;
  const highest =
    [...correct].sort(
      (a, b) => Number(units(b.submissionStake) - units(a.submissionStake)) || order(a) - order(b),
    )[0] ?? null;
  const prize = (total * 40n) / 100n;
  const operations = earliest ? (total * 20n) / 100n : 0n;
  const challenge: Challenge = {
    id,
    poemTitle: "Stone Steps",
    poemText: "<p>A poem</p>",
    instructionsText: "<p>Guess</p>",
    proximityThreshold: threshold,
    solutionSha256: await solutionCommitment({ challengeId: id, text: solution, salt: solutionSalt }),
    solutionReveal: solution,
    solutionSalt,
    stakedSum: decimal(total),
    responseCount: responses.length,
    startTimestamp: start,
    closedTimestamp: start + 12 * 1_000_000,
    resolvedTimestamp: start + 12 * 1_000_001,
    status: "resolved",
    isDemo: false,
  };
  const winners: Winners = {
    challengeId: id,
    proximityThreshold: threshold,
    totalStaked: decimal(total),
    responseCount: responses.length,
    earliest: earliest && { ...earliest, prize: decimal(prize), payoutTransactionHash: null },
    highest: highest && { ...highest, prize: decimal(prize), payoutTransactionHash: null },
    operations: decimal(operations),
    unallocated: decimal(total - operations - (earliest ? 2n * prize : 0n)),
  };
  const head = Math.max(0, ...guesses.map((g) => g.block)) + 5;

  const world: ChainWorld = {
    challenge,
    responses,
    winners,
    rpcRequests: 0,
    siteRequests: 0,
    route(url, init) {
      const json = (body: unknown, headers: Record<string, string> = {}) =>
        new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json", ...headers } });
      if (url === TEST_CONFIG.rpcUrl && init?.method === "POST") {
        world.rpcRequests += 1;
        const calls = JSON.parse(String(init.body)) as { id: number; method: string; params: unknown[] }[];
        return json(
          calls.map(({ id: callId, method, params }) => {
            const result =
              method === "eth_chainId"
                ? hex(TEST_CONFIG.chainId)
                : method === "eth_blockNumber"
                  ? hex(head)
                  : method === "eth_getTransactionByHash"
                    ? (txs.get(params[0] as string) ?? null)
                    : method === "eth_getTransactionReceipt"
                      ? (receipts.get(params[0] as string) ?? null)
                      : method === "eth_getBlockByNumber"
                        ? (blocks.get(Number(params[0])) ?? null)
                        : undefined;
            return result === undefined
              ? { jsonrpc: "2.0", id: callId, error: { code: -32601, message: "no such method" } }
              : { jsonrpc: "2.0", id: callId, result };
          }),
        );
      }
      world.siteRequests += 1;
      const parsed = new URL(url, "http://localhost/");
      if (parsed.pathname === "/api/responses") {
        const limit = Number(parsed.searchParams.get("limit") ?? 100);
        const after = Number(parsed.searchParams.get("cursor") ?? 0);
        const page = world.responses.filter((r) => r.id > after).slice(0, limit);
        const more = world.responses.filter((r) => r.id > after).length > limit;
        const next = `http://localhost/api/responses?challengeId=${id}&limit=${limit}&cursor=${page.at(-1)?.id}`;
        return json(page, more ? { Link: `<${next}>; rel="next"` } : {});
      }
      if (parsed.pathname === `/api/challenges/${id}/winners`) return json(world.winners);
      return new Response("not found", { status: 404 });
    },
  };
  return world;
}
