import type {
  Challenge,
  Payout,
  RejectedClaim,
  ScoredResponse,
  UnclaimedPayment,
  Winners,
} from "@/lib/verify-outcomes-types";
import { guessCommitment, solutionCommitment, termsSha256 } from "@/lib/commitment";
import {
  AUTHORIZATION_CANCELED_TOPIC,
  AUTHORIZATION_USED_TOPIC,
  TERMS_ANCHORED_TOPIC,
  TRANSFER_TOPIC,
  TRANSFER_WITH_AUTHORIZATION_SELECTOR,
} from "@/lib/verify-outcomes";
import { TEST_CONFIG } from "./fixtures";

/** A resolved challenge as the site publishes it and the chain records it, consistent in every
 * field, built from the protocol's rules (not from the verifier's code paths), for the tests of the
 * in-browser verifier. `route` answers the site's GETs and the RPC node's JSON-RPC batches.
 *
 * The chain: block n was mined at START + 12 n (docs/protocol.md section 6: the terms are anchored
 * in block `anchorBlock` before anyone stakes); the challenge closes two blocks after the last guess,
 * is resolved two blocks later, and its earliest prize is paid in the block after that. Besides the
 * confirmed guesses the honest world holds, unless `extras` is false: a payment whose claim was
 * rejected "amount_mismatch" (the payer claimed another stake), a payment naming the challenge whose
 * claim never reached the site (listed unclaimed), and the payouts: earliest paid, highest due,
 * operations kept in the treasury. */

const pad = (hex: string) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
export const START = 1_800_000_000;
export const blockTime = (block: number) => START + 12 * block;
const blockHash = (block: number) => `0x${block.toString(16).padStart(64, "b")}`;

export interface Guess {
  text: string;
  stake: string; // decimal USDC
  address: string;
  block: number;
  txIndex: number;
  /** Paid by a signed authorization (docs/protocol.md section 2a) instead of a direct transfer. */
  authorization?: Authorization;
}

/** How a stake paid by authorization reached the chain: by default the relayer's transaction to the
 * USDC contract with the 324 bytes of section 2a. */
export interface Authorization {
  /** Who sent the transaction (the relayer by default). */
  sender?: string;
  /** The contract called, when not the USDC contract (a batch contract, a forwarder). */
  via?: string;
  /** The bare 292-byte call, without the challenge word. */
  bare?: boolean;
  /** Another payment's transaction (a hash `pay` returned) this authorization is used in too. */
  sameTransactionAs?: string;
  validBefore?: number;
}

/** A transaction to put on the chain; every field but the first four has the honest default. */
export interface Payment {
  from: string;
  stake: string;
  block: number;
  txIndex: number;
  text?: string;
  salt?: string;
  challengeId?: number;
  /** The calldata's commitment, when not the guess's own. */
  commitment?: string;
  /** The contract called (USDC by default). */
  to?: string;
  /** The calldata's recipient (the treasury by default). */
  recipient?: string;
  status?: 0 | 1;
  /** Whether the USDC contract emitted the Transfer (default yes, for a successful USDC call). */
  transferLog?: boolean;
  /** Paid by a signed authorization instead (docs/protocol.md section 2a). */
  authorization?: Authorization;
}

export interface Paid {
  hash: string;
  salt: string;
  text: string;
  /** The guess commitment of the text, sender and salt (what a claim would carry). */
  commitment: string;
  /** The log index of the Transfer that moved the stake. */
  logIndex: number;
}

export interface ChainWorld {
  challenge: Challenge;
  responses: ScoredResponse[];
  rejected: RejectedClaim[];
  unclaimed: UnclaimedPayment[];
  winners: Winners;
  /** The registry's logs (TermsAnchored), as eth_getLogs returns them. */
  registryLogs: Record<string, unknown>[];
  txs: Map<string, Record<string, unknown>>;
  receipts: Map<string, Record<string, unknown> & { logs: Record<string, unknown>[] }>;
  head: number;
  closeBlock: number;
  resolveBlock: number;
  rpcRequests: number;
  siteRequests: number;
  /** eth_getLogs calls answered, with their block ranges. */
  logQueries: { fromBlock: string; toBlock: string; address: string }[];
  pay: (payment: Payment) => Promise<Paid>;
  /** The payer cancels an authorization (its nonce, the guess commitment): the cancel's hash. */
  cancel: (from: string, commitment: string, block: number, txIndex: number) => string;
  /** A TermsAnchored log as the registry emits it. */
  anchorLog: (fields: AnchorFields) => Record<string, unknown>;
  route: (url: string, init?: RequestInit) => Response;
}

export interface AnchorFields {
  block: number;
  txIndex?: number;
  logIndex?: number;
  solutionSha256: string;
  termsSha256: string;
  opensAt: number;
  threshold: number;
  registry?: string;
  challengeId?: number;
}

/** The site's scoring: haversine on a sphere of 6,371,000 m (docs/protocol.md section 4). */
function siteDistance(a: string, b: string): number {
  const [lat1, lon1] = a.split(", ").map((x) => (Number(x) * Math.PI) / 180) as [number, number];
  const [lat2, lon2] = b.split(", ").map((x) => (Number(x) * Math.PI) / 180) as [number, number];
  const h = Math.sin((lat2 - lat1) / 2) ** 2 + Math.cos(lat1) * Math.cos(lat2) * Math.sin((lon2 - lon1) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(Math.min(1, h)));
}

const units = (stake: string) => {
  const [whole, fraction = ""] = stake.split(".");
  return BigInt(whole! + fraction.padEnd(6, "0"));
};
export const decimal = (u: bigint) => `${u / 1000000n}.${(u % 1000000n).toString().padStart(6, "0")}`;

const USDC = TEST_CONFIG.usdcAddress.toLowerCase();
const TREASURY = TEST_CONFIG.treasuryAddress.toLowerCase();
export const REGISTRY = TEST_CONFIG.registryAddress.toLowerCase();
export const OPERATIONS = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65";
/** Geopoem's relayer: sends the transactions of stakes paid by authorization. */
export const RELAYER = "0x976ea74026e726554db657fa54763abd0c3a0aa9";
/** A contract that submits several authorizations in one transaction. */
export const BATCHER = "0xb47c8c9d3a7b8bbe3b1e5a4ac6bc9c3e2d1f0a11";
const VALID_BEFORE = START + 100_000;

export async function buildChainWorld(
  guesses: Guess[],
  {
    id = 7,
    threshold = 150,
    solution = "29.979175, 31.134258",
    anchored = true,
    anchorBlock = 10,
    extras = true,
  }: {
    id?: number;
    threshold?: number;
    solution?: string;
    anchored?: boolean;
    anchorBlock?: number;
    extras?: boolean;
  } = {},
) {
  const solutionSalt = "11".repeat(32);
  const start = START;
  const lastGuessBlock = Math.max(anchorBlock + 1, ...guesses.map((g) => g.block));
  const firstGuessBlock = Math.min(lastGuessBlock, ...guesses.map((g) => g.block));
  const closeBlock = lastGuessBlock + 2;
  const resolveBlock = closeBlock + 2;
  let hashes = 0;

  const txs: ChainWorld["txs"] = new Map();
  const receipts: ChainWorld["receipts"] = new Map();

  async function pay(p: Payment): Promise<Paid> {
    hashes += 1;
    const hash = `0x${hashes.toString(16).padStart(64, "0")}`;
    const salt = p.salt ?? hashes.toString(16).padStart(64, "0");
    const text = p.text ?? "29.9, 31.1";
    const challengeId = p.challengeId ?? id;
    const commitment = await guessCommitment({
      chainId: TEST_CONFIG.chainId,
      challengeId: id,
      submitterAddress: p.from,
      text,
      salt,
    });
    if (p.authorization) return { ...authorize(p, hash, commitment), salt, text, commitment };
    const to = (p.to ?? USDC).toLowerCase();
    const input =
      "0xa9059cbb" +
      pad(p.recipient ?? TREASURY) +
      pad(units(p.stake).toString(16)) +
      (p.commitment ?? commitment) +
      pad(challengeId.toString(16)) +
      pad("6955b900");
    txs.set(hash, { hash, from: p.from.toLowerCase(), to, value: "0x0", input });
    const status = p.status ?? 1;
    const emits = p.transferLog ?? (status === 1 && to === USDC);
    receipts.set(hash, {
      status: hex(status),
      blockNumber: hex(p.block),
      blockHash: blockHash(p.block),
      transactionIndex: hex(p.txIndex),
      logs: emits
        ? [
            {
              address: USDC,
              topics: [TRANSFER_TOPIC, `0x${pad(p.from)}`, `0x${pad(p.recipient ?? TREASURY)}`],
              data: `0x${pad(units(p.stake).toString(16))}`,
              blockNumber: hex(p.block),
              blockHash: blockHash(p.block),
              transactionHash: hash,
              transactionIndex: hex(p.txIndex),
              logIndex: hex(p.txIndex),
              removed: false,
            },
          ]
        : [],
    });
    return { hash, salt, text, commitment, logIndex: p.txIndex };
  }

  /** A stake paid by authorization: the relayed call of section 2a (its signature words made up: no
   * verifier checks the signature, the token did), and in the receipt the token's AuthorizationUsed
   * followed by its Transfer. Several in one transaction append their pairs to its receipt. */
  function authorize(p: Payment, fresh: string, commitment: string): { hash: string; logIndex: number } {
    const a = p.authorization!;
    // Through the same contract in the same place of the same block: the one transaction of a batch.
    const batched = a.via
      ? [...receipts.entries()].find(
          ([h, r]) =>
            r.blockNumber === hex(p.block) &&
            r.transactionIndex === hex(p.txIndex) &&
            txs.get(h)?.to === a.via!.toLowerCase(),
        )?.[0]
      : undefined;
    const hash = a.sameTransactionAs ?? batched ?? fresh;
    const call =
      `0x${TRANSFER_WITH_AUTHORIZATION_SELECTOR}` +
      pad(p.from) +
      pad(p.recipient ?? TREASURY) +
      pad(units(p.stake).toString(16)) +
      pad("0") +
      pad((a.validBefore ?? VALID_BEFORE).toString(16)) +
      (p.commitment ?? commitment) +
      pad("1b") +
      "11".repeat(32) +
      "22".repeat(32) +
      (a.bare ? "" : pad((p.challengeId ?? id).toString(16)));
    const existing = txs.get(hash);
    if (!existing) {
      txs.set(hash, {
        hash,
        from: (a.sender ?? RELAYER).toLowerCase(),
        to: (a.via ?? USDC).toLowerCase(),
        value: "0x0",
        // Through a contract, its own call (the authorizations are its arguments); else the relayed call.
        input: a.via ? `0x5ab1bd53${call.slice(2)}` : call,
      });
      receipts.set(hash, {
        status: hex(p.status ?? 1),
        blockNumber: hex(p.block),
        blockHash: blockHash(p.block),
        transactionIndex: hex(p.txIndex),
        logs: [],
      });
    }
    const receipt = receipts.get(hash)!;
    const at = 1000 + 10 * Number(receipt.transactionIndex) + receipt.logs.length;
    const log = (logIndex: number, address: string, topics: string[], data = "0x") => ({
      address,
      topics,
      data,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      transactionHash: hash,
      transactionIndex: receipt.transactionIndex,
      logIndex: hex(logIndex),
      removed: false,
    });
    if ((p.status ?? 1) === 1) {
      receipt.logs.push(
        log(at, USDC, [AUTHORIZATION_USED_TOPIC, `0x${pad(p.from)}`, `0x${p.commitment ?? commitment}`]),
        log(
          at + 1,
          USDC,
          [TRANSFER_TOPIC, `0x${pad(p.from)}`, `0x${pad(p.recipient ?? TREASURY)}`],
          `0x${pad(units(p.stake).toString(16))}`,
        ),
      );
    }
    return { hash, logIndex: at + 1 };
  }

  /** The payer voids an unused authorization: the token's AuthorizationCanceled, in a transaction
   * of its own. */
  function cancel(from: string, commitment: string, block: number, txIndex: number): string {
    hashes += 1;
    const hash = `0x${hashes.toString(16).padStart(64, "0")}`;
    txs.set(hash, { hash, from: from.toLowerCase(), to: USDC, value: "0x0", input: "0x5a049a70" });
    receipts.set(hash, {
      status: "0x1",
      blockNumber: hex(block),
      blockHash: blockHash(block),
      transactionIndex: hex(txIndex),
      logs: [
        {
          address: USDC,
          topics: [AUTHORIZATION_CANCELED_TOPIC, `0x${pad(from)}`, `0x${commitment}`],
          data: "0x",
          blockNumber: hex(block),
          blockHash: blockHash(block),
          transactionHash: hash,
          transactionIndex: hex(txIndex),
          logIndex: hex(1000 + 10 * txIndex),
          removed: false,
        },
      ],
    });
    return hash;
  }

  const responses: ScoredResponse[] = [];
  for (const [i, g] of guesses.entries()) {
    const salt = (i + 1).toString(16).padStart(64, "0");
    const paid = await pay({
      from: g.address,
      stake: g.stake,
      block: g.block,
      txIndex: g.txIndex,
      text: g.text,
      salt,
      ...(g.authorization ? { authorization: g.authorization } : {}),
    });
    responses.push({
      id: 100 + i,
      challengeId: id,
      submissionText: g.text,
      commitment: paid.commitment,
      submissionStake: decimal(units(g.stake)),
      submissionTimestamp: blockTime(g.block),
      transactionHash: paid.hash,
      submitterAddress: g.address,
      status: "confirmed",
      rejectionCode: "",
      rejectionReason: "",
      distanceMeters: siteDistance(g.text, solution),
      isCorrect: siteDistance(g.text, solution) <= threshold,
      submissionSalt: salt,
      blockNumber: g.block,
      transactionIndex: g.txIndex,
      logIndex: paid.logIndex,
      ...(g.authorization
        ? {
            paymentMethod: "authorization",
            authorization: {
              validBefore: g.authorization.validBefore ?? VALID_BEFORE,
              relayStatus: "sent",
              relayReason: "",
              relayCode: "",
              relayTransactionHash: paid.hash,
            },
          }
        : {}),
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
  const poem = { poemTitle: "Stone Steps", poemText: "<p>A poem</p>", instructionsText: "<p>Guess</p>" };
  const solutionSha256 = await solutionCommitment({ challengeId: id, text: solution, salt: solutionSalt });
  const terms = await termsSha256({ challengeId: id, ...poem });

  const anchorLog = (a: AnchorFields) => ({
    address: (a.registry ?? REGISTRY).toLowerCase(),
    topics: [TERMS_ANCHORED_TOPIC, `0x${pad((a.challengeId ?? id).toString(16))}`],
    data: `0x${pad(a.solutionSha256)}${pad(a.termsSha256)}${pad(a.opensAt.toString(16))}${pad(a.threshold.toString(16))}`,
    blockNumber: hex(a.block),
    blockHash: blockHash(a.block),
    transactionHash: `0x${"a".repeat(60)}${a.block.toString(16).padStart(4, "0")}`,
    transactionIndex: hex(a.txIndex ?? 0),
    logIndex: hex(a.logIndex ?? 0),
    removed: false,
  });
  const registryLogs = anchored
    ? [anchorLog({ block: anchorBlock, solutionSha256, termsSha256: terms, opensAt: start, threshold })]
    : [];

  const challenge: Challenge = {
    id,
    ...poem,
    proximityThreshold: threshold,
    solutionSha256,
    solutionReveal: solution,
    solutionSalt,
    stakedSum: decimal(total),
    responseCount: responses.length,
    startTimestamp: start,
    closedTimestamp: blockTime(closeBlock),
    resolvedTimestamp: blockTime(resolveBlock),
    status: "resolved",
    isDemo: false,
    anchor: anchored
      ? {
          registry: REGISTRY,
          transactionHash: registryLogs[0]!.transactionHash,
          blockNumber: anchorBlock,
          blockTimestamp: blockTime(anchorBlock),
          termsSha256: terms,
        }
      : null,
  };

  const rejected: RejectedClaim[] = [];
  const unclaimed: UnclaimedPayment[] = [];
  if (extras) {
    // The payer of 3 USDC claimed a stake of 4: rejected amount_mismatch, the payer's own claim.
    const player = guesses[0]?.address ?? "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    const short = await pay({ from: player, stake: "3", block: firstGuessBlock, txIndex: 90, text: "10, 20" });
    rejected.push({
      id: 900,
      challengeId: id,
      submissionText: short.text,
      submissionSalt: short.salt,
      commitment: short.commitment,
      submissionStake: "4.000000",
      submissionTimestamp: null,
      transactionHash: short.hash,
      submitterAddress: player,
      status: "rejected",
      rejectionCode: "amount_mismatch",
      rejectionReason: "The amount paid does not match the stake of the guess.",
    });
    // A payment whose claim never reached the site.
    const lost = await pay({ from: player, stake: "1.5", block: firstGuessBlock, txIndex: 91 });
    unclaimed.push({
      transactionHash: lost.hash,
      logIndex: 91,
      blockNumber: firstGuessBlock,
      transactionIndex: 91,
      fromAddress: player.toLowerCase(),
      amount: "1.500000",
    });
  }

  const payouts: Payout[] = [];
  let paidHash: string | null = null;
  if (earliest && highest) {
    if (extras) {
      hashes += 1;
      paidHash = `0x${"e".repeat(56)}${hashes.toString(16).padStart(8, "0")}`;
      const block = resolveBlock + 1;
      txs.set(paidHash, { hash: paidHash, from: TREASURY, to: USDC, value: "0x0", input: "0xa9059cbb" });
      receipts.set(paidHash, {
        status: "0x1",
        blockNumber: hex(block),
        blockHash: blockHash(block),
        transactionIndex: "0x0",
        logs: [
          {
            address: USDC,
            topics: [TRANSFER_TOPIC, `0x${pad(TREASURY)}`, `0x${pad(earliest.submitterAddress)}`],
            data: `0x${pad(prize.toString(16))}`,
            blockNumber: hex(block),
            blockHash: blockHash(block),
            transactionHash: paidHash,
            transactionIndex: "0x0",
            logIndex: "0x0",
            removed: false,
          },
        ],
      });
    }
    payouts.push(
      {
        kind: "earliest",
        address: earliest.submitterAddress,
        amount: decimal(prize),
        status: paidHash ? "paid" : "due",
        transactionHash: paidHash,
      },
      {
        kind: "highest",
        address: highest.submitterAddress,
        amount: decimal(prize),
        status: "due",
        transactionHash: null,
      },
      { kind: "operations", address: TREASURY, amount: decimal(operations), status: "kept", transactionHash: null },
    );
  }
  const winners: Winners = {
    challengeId: id,
    proximityThreshold: threshold,
    totalStaked: decimal(total),
    responseCount: responses.length,
    earliest: earliest && { ...earliest, prize: decimal(prize), payoutTransactionHash: paidHash },
    highest: highest && { ...highest, prize: decimal(prize), payoutTransactionHash: null },
    operations: decimal(operations),
    unallocated: decimal(total - operations - (earliest ? 2n * prize : 0n)),
    payouts,
    exceptions: [],
  };

  const inRange = (block: number, from: string, to: string) =>
    block >= Number(from) && (to === "latest" || block <= Number(to));
  const world: ChainWorld = {
    challenge,
    responses,
    rejected,
    unclaimed,
    winners,
    registryLogs,
    txs,
    receipts,
    head: resolveBlock + 6,
    closeBlock,
    resolveBlock,
    rpcRequests: 0,
    siteRequests: 0,
    logQueries: [],
    pay,
    cancel,
    anchorLog,
    route(url, init) {
      const json = (body: unknown, headers: Record<string, string> = {}) =>
        new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json", ...headers } });
      if (url === TEST_CONFIG.rpcUrl && init?.method === "POST") {
        world.rpcRequests += 1;
        const calls = JSON.parse(String(init.body)) as { id: number; method: string; params: unknown[] }[];
        // An empty batch is an error object, not an empty list (geth, anvil): a client must never send one.
        if (calls.length === 0)
          return json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "empty batch" } });
        const getLogs = (filter: {
          address: string;
          topics: (string | string[] | null)[];
          fromBlock: string;
          toBlock: string;
        }) => {
          world.logQueries.push({ fromBlock: filter.fromBlock, toBlock: filter.toBlock, address: filter.address });
          const all = [...world.registryLogs, ...[...world.receipts.values()].flatMap((r) => r.logs)];
          return all.filter(
            (log) =>
              String(log.address) === filter.address.toLowerCase() &&
              Number(log.blockNumber) <= world.head &&
              inRange(Number(log.blockNumber), filter.fromBlock, filter.toBlock) &&
              filter.topics.every(
                (topic, i) =>
                  topic === null ||
                  (Array.isArray(topic) ? topic : [topic]).some(
                    (one) => (log.topics as string[])[i] === one.toLowerCase(),
                  ),
              ),
          );
        };
        return json(
          calls.map(({ id: callId, method, params }) => {
            const result =
              method === "eth_chainId"
                ? hex(TEST_CONFIG.chainId)
                : method === "eth_blockNumber"
                  ? hex(world.head)
                  : method === "eth_getTransactionByHash"
                    ? (world.txs.get(params[0] as string) ?? null)
                    : method === "eth_getTransactionReceipt"
                      ? (world.receipts.get(params[0] as string) ?? null)
                      : method === "eth_getBlockByNumber"
                        ? Number(params[0]) <= world.head
                          ? { hash: blockHash(Number(params[0])), timestamp: hex(blockTime(Number(params[0]))) }
                          : null
                        : method === "eth_getLogs"
                          ? getLogs(params[0] as Parameters<typeof getLogs>[0])
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
        const rejectedList = parsed.searchParams.get("status") === "rejected";
        const list: { id: number }[] = rejectedList ? world.rejected : world.responses;
        const limit = Number(parsed.searchParams.get("limit") ?? 100);
        const after = Number(parsed.searchParams.get("cursor") ?? 0);
        const page = list.filter((r) => r.id > after).slice(0, limit);
        const more = list.filter((r) => r.id > after).length > limit;
        const status = rejectedList ? "&status=rejected" : "";
        const next = `http://localhost/api/responses?challengeId=${id}${status}&limit=${limit}&cursor=${page.at(-1)?.id}`;
        return json(page, more ? { Link: `<${next}>; rel="next"` } : {});
      }
      if (parsed.pathname === `/api/challenges/${id}/winners`) return json(world.winners);
      if (parsed.pathname === `/api/challenges/${id}/unclaimed`) {
        // Paged as the server pages it (limit, an opaque cursor, a Link header to the next page).
        const limit = Number(parsed.searchParams.get("limit") ?? 100);
        const offset = Number(parsed.searchParams.get("cursor") ?? 0);
        const page = world.unclaimed.slice(offset, offset + limit);
        const more = world.unclaimed.length > offset + limit;
        const next = `http://localhost/api/challenges/${id}/unclaimed?limit=${limit}&cursor=${offset + limit}`;
        return json(page, more ? { Link: `<${next}>; rel="next"` } : {});
      }
      return new Response("not found", { status: 404 });
    },
  };
  return world;
}
