import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { getPublicConfig } from "@/config";
import { readAllowance } from "@/lib/pot/calls";
import { PREFLIGHT, StakeRefused } from "@/lib/pot/preflight";
import { httpChain } from "@/lib/pot/rpc";
import { guessCommitment } from "@/lib/protocol/commitment";
import { RpcError } from "../../test/fakeWallet";
import { openChallenge, startPotChain, USDC, USDC_UNIT, type OpenedChallenge, type PotChain } from "../../test/pot";
import { anvilWallet, installPotConfig, payerEvents, serveSite, SITE_CHAIN_ID, type FakeSite } from "../../test/site";
import { guessFor, progressLog } from "../../test/stakes";
import { WalletError } from "./errors";
import { PROGRESS, submitByApproval } from "./flow";
import { listStakes } from "./pending";

/** The stake by approval against the real pot on anvil: the page's checks before the wallet is
 * asked, approve then stake, and the record. Only Geopoem's server (fetch) and the wallet's prompts
 * are faked. */

let chain: PotChain;
let opened: OpenedChallenge;
let site: FakeSite;

beforeAll(async () => {
  chain = await startPotChain({ chainId: SITE_CHAIN_ID });
  opened = await openChallenge(chain);
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

beforeEach(async () => {
  installPotConfig(chain);
  site = await serveSite(chain, opened);
  vi.spyOn(console, "error").mockImplementation(() => undefined);
});

const options = (wallet = anvilWallet(chain), extra: object = {}) => ({
  provider: wallet,
  config: getPublicConfig(),
  expectChainSwitch: () => undefined,
  sleep: () => Promise.resolve(),
  ...extra,
});

describe("a stake by approval", () => {
  it("approves the pot, stakes the v2 commitment with the payer bound in, and keeps the record first", async () => {
    const wallet = anvilWallet(chain, chain.other);
    const guess = guessFor(site.challenge, "29.9753, 31.1378", "2.5");
    // What the record holds when the wallet is first asked to send.
    let recordWhenAsked: unknown = null;
    const send = wallet.handlers.eth_sendTransaction!;
    wallet.handlers.eth_sendTransaction = (params) => {
      recordWhenAsked ??= listStakes()[0] ?? null;
      return send(params);
    };
    const log = progressLog();
    const result = await submitByApproval(guess, options(wallet, { onProgress: log.onProgress }));

    const commitment = await guessCommitment({
      chainId: BigInt(chain.chainId),
      pot: chain.pot,
      challengeId: BigInt(opened.id),
      payer: chain.other,
      latE6: guess.latE6,
      lonE6: guess.lonE6,
      salt: guess.salt,
    });
    expect(recordWhenAsked).toMatchObject({
      salt: guess.salt,
      commitment,
      text: "29.9753, 31.1378",
      state: "prepared",
    });
    const events = await payerEvents(chain, opened.id, chain.other);
    const staked = events.find((e) => e.kind === "Staked");
    expect(staked).toMatchObject({ amount: 2_500_000n, commitment });
    expect(result.record).toMatchObject({
      paymentMethod: "approval",
      state: "staked",
      seq: staked?.kind === "Staked" ? staked.seq : -1,
      pot: chain.pot,
      amountUnits: "2500000",
      latE6: "29975300",
      lonE6: "31137800",
    });
    expect(log.messages).toEqual([
      PROGRESS.connecting,
      PROGRESS.selectAccount,
      PROGRESS.sending,
      PROGRESS.waiting,
      PROGRESS.confirmed,
      PROGRESS.sending,
      PROGRESS.waiting,
      PROGRESS.confirmed,
    ]);
    // The guess never left the browser: nothing was posted.
    expect(site.posted.stakes).toEqual([]);
    expect(site.posted.guesses).toEqual([]);
  });

  it("skips the approval when the allowance already covers the stake", async () => {
    const node = httpChain(chain.anvil.url);
    await chain.send(chain.player, chain.usdc, USDC.encodeFunctionData("approve", [chain.pot, 50n * USDC_UNIT]));
    const wallet = anvilWallet(chain);
    await submitByApproval(guessFor(site.challenge, "1, 1", "3"), options(wallet));
    const sent = wallet.calls.filter((c) => c.method === "eth_sendTransaction");
    expect(sent).toHaveLength(1);
    expect(await readAllowance(node.rpc, chain.usdc, chain.player, chain.pot)).toBe(47n * USDC_UNIT);
  });

  it("refuses before any wallet prompt when the challenge shown differs from the pot's terms", async () => {
    const wallet = anvilWallet(chain);
    const shown = {
      ...site.challenge,
      poemText: "<p>Another poem</p>",
      closesTimestamp: site.challenge.closesTimestamp + 60,
    };
    const error = await submitByApproval(guessFor(shown), options(wallet)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StakeRefused);
    expect((error as Error).message).toBe(PREFLIGHT.differs(["the poem, its title or the instructions", "the close"]));
    expect(wallet.calls).toEqual([]);
    expect(listStakes()).toEqual([]);
  });

  it("refuses a stake below the pot's minimum, and more USDC than the wallet holds, before the wallet is asked to send", async () => {
    const wallet = anvilWallet(chain);
    await expect(submitByApproval(guessFor(site.challenge, "1, 1", "0.5"), options(wallet))).rejects.toThrow(
      "The stake is below this challenge's minimum. Stake at least 1 USDC.",
    );
    const error = await submitByApproval(guessFor(site.challenge, "1, 1", "500"), options(wallet)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StakeRefused);
    expect((error as Error).message).toMatch(
      /^This wallet does not hold enough USDC for the stake: it holds \d+(\.\d+)? USDC\. Add USDC to it, or stake less\.$/,
    );
    expect(wallet.methods()).not.toContain("eth_sendTransaction");
  });

  it("says to pay by signature instead when the wallet has no ETH for gas", async () => {
    const [, , , poor] = (await chain.anvil.rpc("eth_accounts")) as string[];
    await chain.send(chain.operator, chain.usdc, USDC.encodeFunctionData("mint", [poor, 10n * USDC_UNIT]));
    await chain.anvil.rpc("anvil_setBalance", [poor, "0x0"]);
    const wallet = anvilWallet(chain, poor!);
    const error = await submitByApproval(guessFor(site.challenge), options(wallet, { signatureOffered: true })).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe(PREFLIGHT.noGas("SepoliaETH", true));
    expect(wallet.methods()).not.toContain("eth_sendTransaction");
    expect(listStakes()).toEqual([]);
  });

  it("takes no more stakes in the last minute before the close", async () => {
    const closing = await openChallenge(chain, { id: 8, closesIn: 45 });
    const shown = {
      ...site.challenge,
      id: 8,
      closesTimestamp: closing.terms.closesAt,
      solutionSha256: closing.terms.solutionCommitment,
    };
    const wallet = anvilWallet(chain);
    await expect(submitByApproval(guessFor(shown), options(wallet))).rejects.toThrow(PREFLIGHT.closingSoon(60));
    expect(wallet.calls).toEqual([]);
  });

  it("takes no stake into a pot other than the one pinned for the chain", async () => {
    installPotConfig(chain, { chainId: 31337, chainIdHex: "0x7a69" });
    const wallet = anvilWallet(chain);
    await expect(submitByApproval(guessFor(site.challenge), options(wallet))).rejects.toThrow(
      /^This site names the pot 0x[0-9a-fA-F]{40}, but the pot pinned in Geopoem's code for Anvil \(local\) is 0x46DDdae9F667Cc93eB0796652a39AbDFb4598245\. This page takes no stake into another pot\.$/,
    );
    expect(wallet.calls).toEqual([]);
  });

  it("keeps nothing when the stake is refused in the wallet, and marks a transaction that failed", async () => {
    const rejecting = anvilWallet(chain, chain.player, {
      eth_sendTransaction: () => {
        throw new RpcError(4001, "User denied transaction signature.");
      },
    });
    await expect(submitByApproval(guessFor(site.challenge), options(rejecting))).rejects.toMatchObject({
      kind: "transactionRejected",
    });
    expect(listStakes()).toEqual([]);

    const reverting = anvilWallet(chain, chain.player, { eth_getTransactionReceipt: () => ({ status: "0x0" }) });
    const error = await submitByApproval(guessFor(site.challenge, "2, 2", "1"), options(reverting)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WalletError);
    // The allowance covered it (an earlier test): the stake's own transaction failed, and the row says so.
    expect(listStakes()).toMatchObject([{ state: "failed", lastError: "The transaction failed: nothing was staked." }]);
  });
});
