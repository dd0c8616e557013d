import { readFileSync } from "node:fs";
import path from "node:path";
import { Interface } from "ethers";
import { afterAll, beforeAll } from "vitest";
import { termsSha256 } from "@/lib/commitment";
import { solutionCommitment } from "@/lib/protocol/commitment";
import type { PotTerms } from "@/lib/pot/calls";
import { microDegrees } from "@/lib/protocol/coordinates";
import { startAnvil, type Anvil } from "./anvil";

/** The real pot on a real anvil, for the unit tests of what the page reads from and sends to it:
 * contracts/GeopoemPot.sol as built in contracts/build/ and the project's TestUSDC (Circle's
 * receiveWithAuthorization and revert texts), deployed and opened the way the operator does. Only Geopoem's server is faked in these tests (fetch), and the wallet's
 * prompts (the node signs and sends for its unlocked accounts). */

const ROOT = path.resolve(__dirname, "..", "..");

interface Artifact {
  abi: unknown[];
  bytecode: string;
}

const artifact = (name: string) =>
  JSON.parse(readFileSync(path.join(ROOT, "contracts", "build", `${name}.json`), "utf8")) as Artifact;

/** GeopoemPot as the repository builds it (contracts/compile.js writes the artifact the server and
 * the local stack deploy). */
export const potArtifact = () => artifact("GeopoemPot");

const usdcArtifact = artifact("TestUSDC");

export const POT = new Interface(potArtifact().abi as never);
export const USDC = new Interface(usdcArtifact.abi as never);

export interface PotChain {
  anvil: Anvil;
  usdc: string;
  pot: string;
  deployBlock: number;
  operator: string;
  /** anvil's accounts #1 and #2: players with 100 USDC and ETH. */
  player: string;
  other: string;
  chainId: number;
  /** Sends a transaction from an unlocked account and waits for its receipt (status checked). */
  send: (from: string, to: string, data: string) => Promise<{ hash: string; blockNumber: number; logs: RpcLog[] }>;
  call: (to: string, data: string, from?: string) => Promise<string>;
  /** The next block's timestamp, and a block mined at it. */
  mineAt: (timestamp: number) => Promise<void>;
  now: () => Promise<number>;
  stop: () => Promise<void>;
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  transactionHash: string;
}

export const USDC_UNIT = 1_000_000n;

export async function startPotChain(options: { chainId?: number } = {}): Promise<PotChain> {
  const anvil = await startAnvil(options);
  const [operator, player, other] = anvil.accounts as [string, string, string];
  const chainId = Number(await anvil.rpc("eth_chainId"));
  const receipt = async (hash: string) => {
    for (;;) {
      const r = (await anvil.rpc("eth_getTransactionReceipt", [hash])) as {
        status: string;
        contractAddress: string | null;
        blockNumber: string;
        logs: RpcLog[];
      } | null;
      if (r) return r;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const sendRaw = async (tx: Record<string, string>) => {
    const hash = (await anvil.rpc("eth_sendTransaction", [tx])) as string;
    const r = await receipt(hash);
    if (r.status !== "0x1") throw new Error(`transaction ${hash} reverted`);
    return { hash, r };
  };
  const usdc = (await sendRaw({ from: operator, data: usdcArtifact.bytecode })).r.contractAddress!;
  const deployData = potArtifact().bytecode + POT.encodeDeploy([usdc, operator, operator, operator]).slice(2);
  const deployed = await sendRaw({ from: operator, data: deployData });
  const pot = deployed.r.contractAddress!;
  const send = async (from: string, to: string, data: string) => {
    const { hash, r } = await sendRaw({ from, to, data });
    return { hash, blockNumber: Number(r.blockNumber), logs: r.logs };
  };
  for (const account of [player, other, operator])
    await send(operator, usdc, USDC.encodeFunctionData("mint", [account, 100n * USDC_UNIT]));
  const now = async () => {
    const block = (await anvil.rpc("eth_getBlockByNumber", ["latest", false])) as { timestamp: string };
    return Number(block.timestamp);
  };
  return {
    anvil,
    usdc,
    pot,
    deployBlock: Number(deployed.r.blockNumber),
    operator,
    player,
    other,
    chainId,
    send,
    call: async (to, data, from) =>
      (await anvil.rpc("eth_call", [{ to, data, ...(from ? { from } : {}) }, "latest"])) as string,
    mineAt: async (timestamp) => {
      await anvil.rpc("evm_setNextBlockTimestamp", [timestamp]);
      await anvil.rpc("evm_mine", []);
    },
    now,
    stop: anvil.stop,
  };
}

/** A challenge as the site shows it and the pot holds it. */
export interface OpenedChallenge {
  id: number;
  poemTitle: string;
  poemText: string;
  instructionsText: string;
  solution: string;
  solutionSalt: string;
  terms: PotTerms;
  openBlock: number;
  openHash: string;
}

export const SOLUTION_SALT = "5a".repeat(32);

export type OpenOptions = Partial<{
  id: number;
  poemTitle: string;
  poemText: string;
  instructionsText: string;
  solution: string;
  thresholdM: number;
  closesIn: number;
  minStake: bigint;
}>;

/** Opens challenge `id` as staff would: the terms hash of the texts, the solution commitment, open
 * now, close in `closesIn` seconds, a 1-hour guess window, a minimum of `minStake` USDC, no bond. */
export async function openChallenge(
  chain: PotChain,
  {
    id = 7,
    poemTitle = "Where the Sphinx Keeps Watch",
    poemText = "<p>Stone <em>lion</em> with a human face</p>",
    instructionsText = "<p>Give the <strong>paw</strong>'s position.</p>",
    solution = "29.975278, 31.137778",
    thresholdM = 250,
    closesIn = 86_400,
    minStake = USDC_UNIT,
  }: OpenOptions = {},
): Promise<OpenedChallenge> {
  const now = await chain.now();
  const point = microDegrees(solution)!;
  const terms: PotTerms = {
    solutionCommitment: await solutionCommitment({
      chainId: BigInt(chain.chainId),
      pot: chain.pot,
      challengeId: BigInt(id),
      ...point,
      salt: SOLUTION_SALT,
    }),
    termsHash: await termsSha256({ challengeId: id, poemTitle, poemText, instructionsText }),
    thresholdM,
    opensAt: now - 60,
    closesAt: now + closesIn,
    solutionDeadline: now + closesIn + 86_400,
    guessWindow: 3600,
    minStake,
    bond: 0n,
  };
  const tuple = [
    `0x${terms.solutionCommitment}`,
    `0x${terms.termsHash}`,
    terms.thresholdM,
    terms.opensAt,
    terms.closesAt,
    terms.solutionDeadline,
    terms.guessWindow,
    terms.minStake,
    terms.bond,
  ];
  const opened = await chain.send(chain.operator, chain.pot, POT.encodeFunctionData("open", [id, tuple]));
  return {
    id,
    poemTitle,
    poemText,
    instructionsText,
    solution,
    solutionSalt: SOLUTION_SALT,
    terms,
    openBlock: opened.blockNumber,
    openHash: opened.hash,
  };
}

/** The pot's chain and the challenge opened in it, for the tests of one file. */
export interface PotWorld {
  chain: PotChain;
  opened: OpenedChallenge;
}

/** Anvil with the pot for a test file: started, and a challenge opened with openChallenge's `open`
 * options, before the file's tests; stopped after them. Read the fields inside the tests: they are
 * set once the file's tests run. */
export function withPotChain(options: { chainId?: number; open?: OpenOptions } = {}): PotWorld {
  const world = {} as PotWorld;
  beforeAll(async () => {
    world.chain = await startPotChain({ chainId: options.chainId });
    world.opened = await openChallenge(world.chain, options.open);
  }, 60_000);
  afterAll(async () => {
    await world.chain?.stop();
  });
  return world;
}

/** The solution of `opened` revealed in the pot by `from` (the operator by default) at the close. */
export async function revealSolution(chain: PotChain, opened: OpenedChallenge, from: string = chain.operator) {
  const solution = microDegrees(opened.solution)!;
  await chain.mineAt(opened.terms.closesAt);
  await chain.send(
    from,
    chain.pot,
    POT.encodeFunctionData("revealSolution", [opened.id, solution.latE6, solution.lonE6, `0x${opened.solutionSalt}`]),
  );
}
