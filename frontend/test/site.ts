import { beforeEach } from "vitest";
import type { Challenge, PaymentsAuthorization, Stake, TokenDomain } from "@/api/types";
import { POT_ERRORS, refusalOf } from "@/lib/protocol/errors";
import { guessCommitment } from "@/lib/protocol/commitment";
import { termsDigest } from "@/lib/protocol/encoding";
import { microDegrees } from "@/lib/protocol/coordinates";
import { stakeWithAuthorizationData, toTerms } from "@/lib/pot/calls";
import { payerFilters, readPotEvents, TOPICS, challengeTopic } from "@/lib/pot/events";
import { httpChain } from "@/lib/pot/rpc";
import { decimalToUnits } from "@/lib/stake";
import { TEST_CONFIG } from "./fixtures";
import { apiStake } from "./submissions";
import { FakeWallet } from "./fakeWallet";
import { installFakeServer, json, type FakeServer } from "./http";
import { realFetch } from "./anvil";
import { withPotChain, type OpenedChallenge, type OpenOptions, type PotChain, type PotWorld } from "./pot";
import { installPublicConfig } from "./setup";

/** Geopoem's server as the page's tests meet it (only `fetch` is faked): the API of
 * docs/protocol.md section 3 answered from a real pot on anvil. Its relayer sends a signed stake
 * with the relayer's account, so a signature the pot refuses fails here as it would on the site; a
 * stake's status is read from the pot's Staked events (pending in its block, confirmed 2 deep); a
 * guess is stored only once its stake is confirmed and only if it opens the commitment. The page's
 * RPC node (the configuration's rpcUrl) is the real anvil. */

export const SITE_CHAIN_ID = 31_338; // not a chain the page pins a pot for
export const CONFIRMATIONS = 2;

/** The page's configuration for a pot on anvil. */
export function installPotConfig(chain: PotChain, over: object = {}): void {
  installPublicConfig({
    ...TEST_CONFIG,
    chainId: chain.chainId,
    chainIdHex: `0x${chain.chainId.toString(16)}`,
    chainName: "Anvil (local)",
    rpcUrl: chain.anvil.url,
    explorerUrl: "",
    localChain: true,
    usdcAddress: chain.usdc,
    potAddress: chain.pot,
    potDeployBlock: chain.deployBlock,
    confirmations: CONFIRMATIONS,
    ...over,
  });
}

/** Token units as the API writes USDC: 6 decimals. */
export const usdc6 = (units: bigint) => `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, "0")}`;

/** GET /api/payments/authorization of the site on anvil: the test token's domain, the relay on and
 * sending with the operator's account. */
export function sitePayments(chain: PotChain): PaymentsAuthorization & { token: TokenDomain } {
  return {
    token: { name: "Test USD Coin", version: "2", chainId: chain.chainId, verifyingContract: chain.usdc },
    relay: { available: true, reason: "", address: chain.operator },
    validitySeconds: 1800,
    minRemainingSeconds: 60,
  };
}

export async function apiChallenge(chain: PotChain, opened: OpenedChallenge): Promise<Challenge> {
  const { terms } = opened;
  return {
    id: opened.id,
    poemTitle: opened.poemTitle,
    poemText: opened.poemText,
    instructionsText: opened.instructionsText,
    proximityThreshold: terms.thresholdM,
    solutionSha256: terms.solutionCommitment,
    solutionReveal: null,
    solutionSalt: null,
    stakedSum: "0.000000",
    responseCount: 0,
    startTimestamp: terms.opensAt,
    closesTimestamp: terms.closesAt,
    solutionDeadline: terms.solutionDeadline,
    guessWindowSeconds: terms.guessWindow,
    guessDeadline: null,
    minStake: usdc6(terms.minStake),
    bond: usdc6(terms.bond),
    termsSha256: terms.termsHash,
    termsDigest: `0x${await termsDigest(BigInt(opened.id), toTerms(terms))}`,
    openTransactionHash: opened.openHash,
    openBlockNumber: opened.openBlock,
    phase: "open",
  };
}

export interface SiteOptions {
  /** What the relayer does with a signed stake: send it at once, keep it queued, or refuse it. */
  relay?: "send" | "hold" | "refuse";
  /** The relay's availability in GET /api/payments/authorization. */
  relayAvailable?: boolean;
  /** The token's domain is known (a null `token` otherwise). */
  tokenDomain?: boolean;
}

interface Stored {
  challengeId: number;
  submitterAddress: string;
  submissionStake: string;
  commitment: string;
  authorization: { validAfter: number; validBefore: number; signature: string };
}

export interface FakeSite {
  server: FakeServer;
  challenge: Challenge;
  posted: { stakes: Record<string, unknown>[]; guesses: Record<string, unknown>[] };
  guesses: Map<string, { text: string; salt: string }>;
  options: SiteOptions;
  /** Answers the next POSTs of a guess with this instead (a 503, say), while set. */
  guessAnswer: (() => Response) | null;
  /** Answers the next POSTs of a stake with this instead, while set. */
  stakeAnswer: (() => Response) | null;
  /** Sends a stored signed stake as the relayer would. */
  relayNow: (commitment: string) => Promise<string>;
}

export async function serveSite(
  chain: PotChain,
  opened: OpenedChallenge,
  options: SiteOptions = {},
): Promise<FakeSite> {
  const server = installFakeServer();
  const node = httpChain(chain.anvil.url);
  const challenge = await apiChallenge(chain, opened);
  const stored = new Map<string, Stored>();
  const relayed = new Map<string, string>();
  const site: FakeSite = {
    server,
    challenge,
    posted: { stakes: [], guesses: [] },
    guesses: new Map(),
    options,
    guessAnswer: null,
    stakeAnswer: null,
    relayNow: async (commitment) => {
      const body = stored.get(commitment)!;
      const { hash } = await chain.send(
        chain.operator,
        chain.pot,
        stakeWithAuthorizationData({
          challengeId: body.challengeId,
          commitment: body.commitment,
          payer: body.submitterAddress,
          amount: decimalToUnits(body.submissionStake)!,
          ...body.authorization,
        }),
      );
      relayed.set(commitment, hash);
      return hash;
    },
  };
  server.on("POST", chain.anvil.url, (init) => realFetch(chain.anvil.url, init));
  server.on("GET", "/api/challenges/active", () => json(site.challenge));
  server.on("GET", "/api/payments/authorization", () => {
    const payments: PaymentsAuthorization = sitePayments(chain);
    if (options.tokenDomain === false) payments.token = null;
    if (options.relayAvailable === false)
      payments.relay = { available: false, reason: "Geopoem's relay is switched off.", address: chain.operator };
    return json(payments);
  });

  /** The stake with this commitment as the API shows it, from the pot's events; null when unknown. */
  const stakeOf = async (commitment: string): Promise<Stake | null> => {
    const body = stored.get(commitment);
    const logs = (await node.rpc("eth_getLogs", [
      { address: chain.pot, fromBlock: "0x0", toBlock: "latest", topics: [TOPICS.Staked, challengeTopic(opened.id)] },
    ])) as { data: string; topics: string[]; blockNumber: string; transactionHash: string; logIndex: string }[];
    const log = logs.find((l) => l.data.slice(2 + 128, 2 + 192) === commitment);
    if (!log && !body) return null;
    const head = Number(await node.rpc("eth_blockNumber"));
    const guessReceived = site.guesses.has(commitment);
    const base = {
      challengeId: opened.id,
      commitment,
      paymentMethod: body ? "authorization" : "approval",
      guessReceived,
    } as const;
    if (!log) {
      const status = options.relay === "refuse" ? "refused" : "relaying";
      return apiStake({
        ...base,
        id: null,
        submitterAddress: body!.submitterAddress,
        submissionStake: usdc6(decimalToUnits(body!.submissionStake)!),
        status,
        transactionHash: null,
        blockNumber: null,
        logIndex: null,
        submissionTimestamp: null,
        authorization: {
          validBefore: body!.authorization.validBefore,
          relayStatus: status === "refused" ? "refused" : "queued",
          relayCode: status === "refused" ? "address_limit" : "",
          relayReason: status === "refused" ? "This wallet had its stakes relayed 20 times today." : "",
          relayTransactionHash: null,
        },
      });
    }
    const block = Number(log.blockNumber);
    return apiStake({
      ...base,
      id: Number(BigInt(`0x${log.data.slice(2, 66)}`)),
      submitterAddress: `0x${log.topics[2]!.slice(-40)}`,
      submissionStake: usdc6(BigInt(`0x${log.data.slice(66, 130)}`)),
      status: head - block + 1 >= CONFIRMATIONS ? "confirmed" : "pending",
      transactionHash: log.transactionHash,
      blockNumber: block,
      logIndex: Number(log.logIndex),
      submissionTimestamp: null,
      authorization: body
        ? {
            validBefore: body.authorization.validBefore,
            relayStatus: relayed.has(commitment) ? "sent" : "not_needed",
            relayCode: "",
            relayReason: "",
            relayTransactionHash: relayed.get(commitment) ?? null,
          }
        : null,
    });
  };

  const originalFetch = server.fetch.getMockImplementation() as (
    input: RequestInfo | URL,
    init?: RequestInit,
  ) => Promise<Response>;
  server.fetch.mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? "GET").toUpperCase();
    const match = /^\/api\/responses\/([0-9a-f]{64})$/.exec(url);
    if (method === "GET" && match) {
      server.calls.push({ url, init });
      const stake = await stakeOf(match[1]!);
      return stake ? json(stake) : json({ message: "No stake has this commitment.", errors: {} }, 404);
    }
    if (method === "POST" && url === "/api/responses") {
      server.calls.push({ url, init });
      const body = JSON.parse(String(init?.body)) as Stored & Record<string, unknown>;
      site.posted.stakes.push(body);
      if (site.stakeAnswer) return site.stakeAnswer();
      if ("submissionText" in body || "submissionSalt" in body)
        return json({ message: "A signed stake carries no guess.", errors: {} }, 400);
      const known = stored.get(body.commitment);
      stored.set(body.commitment, body);
      if (!known && options.relay !== "hold" && options.relay !== "refuse") {
        try {
          await site.relayNow(body.commitment);
        } catch (error) {
          stored.delete(body.commitment);
          const refusal = refusalOf(error);
          return json(
            { message: refusal?.sentence ?? "The chain refused it.", errors: {}, code: refusal?.name ?? "reverted" },
            422,
          );
        }
      }
      return json(await stakeOf(body.commitment), known ? 200 : 201);
    }
    if (method === "POST" && url === "/api/responses/guess") {
      server.calls.push({ url, init });
      const body = JSON.parse(String(init?.body)) as Record<string, string> & { challengeId: number };
      site.posted.guesses.push(body);
      if (site.guessAnswer) return site.guessAnswer();
      const stake = await stakeOf(body.commitment!);
      if (stake?.status !== "confirmed")
        return json(
          {
            message: "This stake is not confirmed in the pot yet; the page sends the guess once it is.",
            errors: {},
            code: "stake_not_confirmed",
          },
          409,
        );
      const point = microDegrees(body.submissionText!)!;
      const opens = await guessCommitment({
        chainId: BigInt(chain.chainId),
        pot: chain.pot,
        challengeId: BigInt(body.challengeId),
        payer: body.submitterAddress!,
        ...point,
        salt: body.submissionSalt!,
      });
      if (opens !== body.commitment)
        return json({ message: POT_ERRORS["0x0ae0700a"]!.sentence, errors: {}, code: "commitment_mismatch" }, 422);
      const before = site.guesses.has(body.commitment!);
      site.guesses.set(body.commitment!, { text: body.submissionText!, salt: body.submissionSalt! });
      return new Response(null, { status: before ? 200 : 201 });
    }
    return originalFetch(input, init);
  });
  return site;
}

/** The pot's chain, a challenge opened in it, and Geopoem's server answering from them, for the tests
 * of one file: the chain started and the challenge opened once (withPotChain), the page's
 * configuration and a fresh site before each test. */
export interface PotSiteWorld extends PotWorld {
  site: FakeSite;
}

export function withPotSite(options: { open?: OpenOptions; site?: SiteOptions } = {}): PotSiteWorld {
  const world = withPotChain({ chainId: SITE_CHAIN_ID, open: options.open }) as PotSiteWorld;
  beforeEach(async () => {
    installPotConfig(world.chain);
    world.site = await serveSite(world.chain, world.opened, options.site);
  });
  return world;
}

/** The payer's events in the pot, for assertions. */
export function payerEvents(chain: PotChain, challengeId: number, payer: string) {
  return readPotEvents(httpChain(chain.anvil.url), {
    pot: chain.pot,
    fromBlock: 0,
    filters: payerFilters(challengeId, payer),
  });
}

/** The player's wallet: anvil's unlocked account behind EIP-1193, the prompts (account picker,
 * network switch) answered at once; `handlers` change what a test needs. */
export function anvilWallet(
  chain: PotChain,
  account: string = chain.player,
  handlers: ConstructorParameters<typeof FakeWallet>[0] = {},
): FakeWallet {
  const forward = (method: string) => (params: unknown) => chain.anvil.rpc(method, (params as unknown[]) ?? []);
  const forwarded = [
    "eth_sendTransaction",
    "eth_signTypedData_v4",
    "eth_getTransactionReceipt",
    "eth_getTransactionByHash",
    "eth_call",
    "eth_getBalance",
    "eth_blockNumber",
    "eth_getBlockByNumber",
    "eth_getLogs",
    "eth_gasPrice",
    "eth_estimateGas",
  ];
  return new FakeWallet({
    ...Object.fromEntries(forwarded.map((m) => [m, forward(m)])),
    eth_accounts: () => [account],
    eth_requestAccounts: () => [account],
    eth_chainId: () => `0x${chain.chainId.toString(16)}`,
    ...handlers,
  });
}
