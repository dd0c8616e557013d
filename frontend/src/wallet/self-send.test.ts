import { describe, expect, it, vi } from "vitest";
import { getPublicConfig } from "@/config";
import { revealSolution } from "../../test/pot";
import { anvilWallet, payerEvents, sitePayments, withPotSite } from "../../test/site";
import { guessFor } from "../../test/stakes";
import { listStakes } from "./pending";
import { followOwnTransaction, NO_GAS_FOR_OWN, revealFromWallet, sendItYourself } from "./self-send";
import { submitBySignature } from "./signed";

/** What the player's own wallet sends for a stake, against the real pot: "Send it yourself" with the
 * signature Geopoem's relayer holds, and "Reveal my guess" in the guess window. */

const world = withPotSite({ open: { closesIn: 3600 }, site: { relay: "hold" } });

const own = (wallet = anvilWallet(world.chain)) => ({
  provider: wallet,
  config: getPublicConfig(),
  expectChainSwitch: () => undefined,
});

async function heldStake(text: string) {
  const result = await submitBySignature(guessFor(world.site.challenge, text, "2"), {
    ...own(),
    payments: sitePayments(world.chain),
  });
  return result.record;
}

describe("Send it yourself", () => {
  it("puts the signed stake Geopoem holds into the pot from the player's wallet", async () => {
    const record = await heldStake("29.9753, 31.1378");
    expect(record.state).toBe("relayed");
    const hash = await sendItYourself(record, own());
    expect(listStakes()[0]!.selfSent).toEqual({ state: "sent", hash });
    await vi.waitFor(async () => expect(await followOwnTransaction(listStakes()[0]!, "selfSent", own())).toBe("mined"));
    const staked = (await payerEvents(world.chain, world.opened.id, world.chain.player)).find(
      (e) => e.kind === "Staked" && e.commitment === record.commitment,
    );
    expect(listStakes()[0]).toMatchObject({
      state: "staked",
      transactionHash: hash,
      seq: staked?.kind === "Staked" ? staked.seq : -1,
    });
  });

  it("says why before the wallet is asked when the signature was already used", async () => {
    const record = await heldStake("1, 2");
    await world.site.relayNow(record.commitment);
    const wallet = anvilWallet(world.chain);
    await expect(sendItYourself(record, own(wallet))).rejects.toThrow(
      "This payment authorization has already been used or was cancelled.",
    );
    expect(wallet.methods()).not.toContain("eth_sendTransaction");
    expect(listStakes()[0]!.selfSent).toEqual({
      state: "error",
      message: "This payment authorization has already been used or was cancelled.",
    });
  });

  it("says to add ETH when the wallet has none for gas", async () => {
    const record = await heldStake("3, 4");
    const [, , , , poor] = (await world.chain.anvil.rpc("eth_accounts")) as string[];
    await world.chain.anvil.rpc("anvil_setBalance", [poor, "0x0"]);
    await expect(sendItYourself(record, own(anvilWallet(world.chain, poor!)))).rejects.toThrow(
      NO_GAS_FOR_OWN("SepoliaETH"),
    );
  });
});

describe("Reveal my guess from the wallet", () => {
  it("reveals the guess in the guess window, and the pot scores it", async () => {
    const record = await heldStake("29.9753, 31.1378");
    await world.site.relayNow(record.commitment);
    const staked = (await payerEvents(world.chain, world.opened.id, world.chain.player)).find(
      (e) => e.kind === "Staked" && e.commitment === record.commitment,
    );
    const seq = staked?.kind === "Staked" ? staked.seq : 0;
    // Too early: the pot's refusal, in words, before the wallet sends anything.
    await expect(revealFromWallet(record, seq, own())).rejects.toThrow(
      "The solution has not been revealed yet, so guesses cannot be revealed.",
    );
    await revealSolution(world.chain, world.opened);
    await revealFromWallet(record, seq, own());
    // The node mines it a moment later: looked at until it has a receipt, as the page does.
    await vi.waitFor(async () => expect(await followOwnTransaction(listStakes()[0]!, "reveal", own())).toBe("mined"));
    const revealed = (await payerEvents(world.chain, world.opened.id, world.chain.player)).find(
      (e) => e.kind === "GuessRevealed" && e.seq === seq,
    );
    expect(revealed).toMatchObject({ correct: true, latE6: 29_975_300n });
  });
});
