import { beforeEach, describe, expect, it, vi } from "vitest";
import { getPublicConfig } from "@/config";
import { readAllowance } from "@/lib/pot/calls";
import { PREFLIGHT, StakeRefused } from "@/lib/pot/preflight";
import { httpChain } from "@/lib/pot/rpc";
import { guessCommitment } from "@/lib/protocol/commitment";
import { RpcError } from "../../test/fakeWallet";
import { openChallenge, USDC, USDC_UNIT } from "../../test/pot";
import { anvilWallet, installPotConfig, payerEvents, withPotSite } from "../../test/site";
import { guessFor, progressLog } from "../../test/stakes";
import { WalletError } from "./errors";
import { PROGRESS, submitByApproval } from "./flow";
import { listStakes } from "./pending";

/** The stake by approval against the real pot on anvil: the page's checks before the wallet is
 * asked, approve then stake, and the record. Only Geopoem's server (fetch) and the wallet's prompts
 * are faked. */

const world = withPotSite();

beforeEach(() => {
  vi.spyOn(console, "error").mockImplementation(() => undefined);
});

const options = (wallet = anvilWallet(world.chain), extra: object = {}) => ({
  provider: wallet,
  config: getPublicConfig(),
  expectChainSwitch: () => undefined,
  sleep: () => Promise.resolve(),
  ...extra,
});

describe("a stake by approval", () => {
  it("approves the pot, stakes the v2 commitment with the payer bound in, and keeps the record first", async () => {
    const wallet = anvilWallet(world.chain, world.chain.other);
    const guess = guessFor(world.site.challenge, "29.9753, 31.1378", "2.5");
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
      chainId: BigInt(world.chain.chainId),
      pot: world.chain.pot,
      challengeId: BigInt(world.opened.id),
      payer: world.chain.other,
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
    const events = await payerEvents(world.chain, world.opened.id, world.chain.other);
    const staked = events.find((e) => e.kind === "Staked");
    expect(staked).toMatchObject({ amount: 2_500_000n, commitment });
    expect(result.record).toMatchObject({
      paymentMethod: "approval",
      state: "staked",
      seq: staked?.kind === "Staked" ? staked.seq : -1,
      pot: world.chain.pot,
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
    expect(world.site.posted.stakes).toEqual([]);
    expect(world.site.posted.guesses).toEqual([]);
  });

  it("skips the approval when the allowance already covers the stake", async () => {
    const node = httpChain(world.chain.anvil.url);
    await world.chain.send(
      world.chain.player,
      world.chain.usdc,
      USDC.encodeFunctionData("approve", [world.chain.pot, 50n * USDC_UNIT]),
    );
    const wallet = anvilWallet(world.chain);
    await submitByApproval(guessFor(world.site.challenge, "1, 1", "3"), options(wallet));
    const sent = wallet.calls.filter((c) => c.method === "eth_sendTransaction");
    expect(sent).toHaveLength(1);
    expect(await readAllowance(node.rpc, world.chain.usdc, world.chain.player, world.chain.pot)).toBe(47n * USDC_UNIT);
  });

  it("refuses before any wallet prompt when the challenge shown differs from the pot's terms", async () => {
    const wallet = anvilWallet(world.chain);
    const shown = {
      ...world.site.challenge,
      poemText: "<p>Another poem</p>",
      closesTimestamp: world.site.challenge.closesTimestamp + 60,
    };
    const error = await submitByApproval(guessFor(shown), options(wallet)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StakeRefused);
    expect((error as Error).message).toBe(PREFLIGHT.differs(["the poem, its title or the instructions", "the close"]));
    expect(wallet.calls).toEqual([]);
    expect(listStakes()).toEqual([]);
  });

  it("refuses a stake below the pot's minimum, and more USDC than the wallet holds, before the wallet is asked to send", async () => {
    const wallet = anvilWallet(world.chain);
    await expect(submitByApproval(guessFor(world.site.challenge, "1, 1", "0.5"), options(wallet))).rejects.toThrow(
      "The stake is below this challenge's minimum. Stake at least 1.00 USDC.",
    );
    const error = await submitByApproval(guessFor(world.site.challenge, "1, 1", "500"), options(wallet)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StakeRefused);
    expect((error as Error).message).toMatch(
      /^This wallet does not hold enough USDC for the stake: it holds \d+\.\d\d+ USDC\. Add USDC to it, or stake less\.$/,
    );
    expect(wallet.methods()).not.toContain("eth_sendTransaction");
  });

  it("says to pay by signature instead when the wallet has no ETH for gas", async () => {
    const [, , , poor] = (await world.chain.anvil.rpc("eth_accounts")) as string[];
    await world.chain.send(
      world.chain.operator,
      world.chain.usdc,
      USDC.encodeFunctionData("mint", [poor, 10n * USDC_UNIT]),
    );
    await world.chain.anvil.rpc("anvil_setBalance", [poor, "0x0"]);
    const wallet = anvilWallet(world.chain, poor!);
    const error = await submitByApproval(
      guessFor(world.site.challenge),
      options(wallet, { signatureOffered: true }),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe(PREFLIGHT.noGas("SepoliaETH", true));
    expect(wallet.methods()).not.toContain("eth_sendTransaction");
    expect(listStakes()).toEqual([]);
  });

  it("takes no more stakes in the last minute before the close", async () => {
    const closing = await openChallenge(world.chain, { id: 8, closesIn: 45 });
    const shown = {
      ...world.site.challenge,
      id: 8,
      closesTimestamp: closing.terms.closesAt,
      solutionSha256: closing.terms.solutionCommitment,
    };
    const wallet = anvilWallet(world.chain);
    await expect(submitByApproval(guessFor(shown), options(wallet))).rejects.toThrow(PREFLIGHT.closingSoon(60));
    expect(wallet.calls).toEqual([]);
  });

  it("takes no stake into a pot other than the one pinned for the chain", async () => {
    installPotConfig(world.chain, { chainId: 31337, chainIdHex: "0x7a69" });
    const wallet = anvilWallet(world.chain);
    await expect(submitByApproval(guessFor(world.site.challenge), options(wallet))).rejects.toThrow(
      /^This site names the pot 0x[0-9a-fA-F]{40}, but the pot pinned in Geopoem's code for Anvil \(local\) is 0x46DDdae9F667Cc93eB0796652a39AbDFb4598245\. This page takes no stake into another pot\.$/,
    );
    expect(wallet.calls).toEqual([]);
  });

  it("keeps nothing when the stake is refused in the wallet, and marks a transaction that failed", async () => {
    const rejecting = anvilWallet(world.chain, world.chain.player, {
      eth_sendTransaction: () => {
        throw new RpcError(4001, "User denied transaction signature.");
      },
    });
    await expect(submitByApproval(guessFor(world.site.challenge), options(rejecting))).rejects.toMatchObject({
      kind: "transactionRejected",
    });
    expect(listStakes()).toEqual([]);

    const reverting = anvilWallet(world.chain, world.chain.player, {
      eth_getTransactionReceipt: () => ({ status: "0x0" }),
    });
    const error = await submitByApproval(guessFor(world.site.challenge, "2, 2", "1"), options(reverting)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WalletError);
    // The allowance covered it (an earlier test): the stake's own transaction failed, and the row says so.
    expect(listStakes()).toMatchObject([{ state: "failed", lastError: "The transaction failed: nothing was staked." }]);
  });
});
