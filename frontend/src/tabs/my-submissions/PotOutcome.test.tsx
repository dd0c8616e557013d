import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getPublicConfig } from "@/config";
import { submitByApproval } from "@/wallet/flow";
import { listStakes } from "@/wallet/pending";
import { WalletProvider } from "@/wallet/WalletContext";
import { renderWithClient } from "../../../test/render";
import { openChallenge, POT, revealSolution, startPotChain, USDC, USDC_UNIT, type PotChain } from "../../../test/pot";
import { anvilWallet, installPotConfig, serveSite } from "../../../test/site";
import { guessFor } from "../../../test/stakes";
import { MySubmissionsPanel } from "./MySubmissionsPanel";
import { REVEAL } from "./StakeItem";

/** A stake's outcome in My submissions comes from the pot's own events, read through the page's
 * node: the verdict and distance once the solution is revealed on chain, whether the guess is
 * revealed there, "Reveal my guess" while it would beat a winner, the prizes paid, or the refund. A
 * real pot on anvil; Geopoem's server (fetch) and the wallet's prompts are faked. */

let chain: PotChain;

beforeAll(async () => {
  chain = await startPotChain({ chainId: 31_339 });
  await chain.send(chain.other, chain.usdc, USDC.encodeFunctionData("approve", [chain.pot, 100n * USDC_UNIT]));
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

/** Past the guess window of challenge `id`, finalized by the operator. */
async function finalizeAfterWindow(id: number) {
  const state = POT.decodeFunctionResult(
    "stateOf",
    await chain.call(chain.pot, POT.encodeFunctionData("stateOf", [id])),
  );
  await chain.mineAt(Number(state[0].guessDeadline));
  await chain.send(chain.operator, chain.pot, POT.encodeFunctionData("finalize", [id]));
}

const field = (item: HTMLElement, name: string) => within(item).getByText(name).nextElementSibling as HTMLElement;

async function playOut(id: number, mine: string) {
  installPotConfig(chain);
  const opened = await openChallenge(chain, { id, closesIn: 600 });
  const site = await serveSite(chain, opened);
  // Someone else stakes first, then the player (by approval: the same record either way).
  await chain.send(chain.other, chain.pot, POT.encodeFunctionData("stake", [id, `0x${"0e".repeat(32)}`, USDC_UNIT]));
  await submitByApproval(guessFor(site.challenge, mine, "3"), {
    provider: anvilWallet(chain),
    config: getPublicConfig(),
    expectChainSwitch: () => undefined,
    sleep: () => Promise.resolve(),
  });
  await revealSolution(chain, opened);
  window.ethereum = anvilWallet(chain);
  const rendered = renderWithClient(
    <WalletProvider reload={() => undefined}>
      <MySubmissionsPanel />
    </WalletProvider>,
  );
  const reread = () =>
    act(async () => {
      await rendered.queryClient.invalidateQueries({ queryKey: ["pot-view"] });
    });
  return { reread };
}

describe("the outcome of a stake, from the pot", () => {
  it("offers to reveal a correct guess that beats the winners, and shows the prizes the pot paid", async () => {
    const { reread } = await playOut(21, "29.9753, 31.1378");
    await screen.findByText("Status");
    const item = screen.getByRole("listitem");
    expect(
      await within(item).findByText(/^Correct: \d+\.\d\d m from the solution$/, {}, { timeout: 10_000 }),
    ).toBeInTheDocument();
    expect(field(item, "Revealed on chain")).toHaveTextContent("No");
    expect(field(item, "Winners")).toHaveTextContent(
      /^Not fixed yet: a better correct guess may still be revealed until /,
    );
    expect(within(item).getByText(new RegExp(REVEAL.intro.slice(0, 40)))).toBeInTheDocument();

    await userEvent.setup().click(within(item).getByRole("button", { name: REVEAL.wallet }));
    await vi.waitFor(() => expect(listStakes()[0]!.reveal?.state).toBe("mined"), { timeout: 10_000 });
    // Read from the pot again as soon as the reveal is mined (not on the next 30 s round): the offer
    // and "Revealed on chain: No" never stand beside "From your wallet: On the chain".
    await vi.waitFor(() => expect(field(item, "Revealed on chain")).toHaveTextContent("Yes, from your wallet"), {
      timeout: 3_000,
    });
    expect(within(item).queryByRole("button", { name: REVEAL.wallet })).not.toBeInTheDocument();

    // The window ends, the pot is finalized and pays both prizes to the player (4 USDC: 1.60 each).
    await finalizeAfterWindow(21);
    const record = listStakes()[0]!;
    for (const kind of [0, 1])
      await chain.send(
        chain.operator,
        chain.pot,
        POT.encodeFunctionData("payPrize", [21, kind, chain.player, 3n * USDC_UNIT, `0x${record.commitment}`]),
      );
    await reread();
    const prize = await vi.waitFor(() => {
      const text = field(item, "Prize").textContent ?? "";
      expect(text).toContain("Earliest correct response: 1.60 USDC, paid by the pot");
      return text;
    });
    expect(prize).toContain("Highest staked correct response: 1.60 USDC, paid by the pot");
    expect(within(item).queryByText("Winners")).not.toBeInTheDocument();
  }, 60_000);

  it("says nobody was correct and shows the refund the pot sent", async () => {
    const { reread } = await playOut(22, "0.5, 0.5");
    await screen.findByText("Status");
    const item = screen.getByRole("listitem");
    expect(
      await within(item).findByText(/^Not correct: [\d.]+ m from the solution$/, {}, { timeout: 10_000 }),
    ).toBeInTheDocument();
    expect(within(item).queryByRole("button", { name: REVEAL.wallet })).not.toBeInTheDocument();
    await finalizeAfterWindow(22);
    await reread();
    await vi.waitFor(() =>
      expect(field(item, "Refund")).toHaveTextContent(
        "Nobody guessed correctly, so every stake is refunded. Not returned yet: the pot returns it to the wallet that staked.",
      ),
    );
    const record = listStakes()[0]!;
    await chain.send(
      chain.operator,
      chain.pot,
      POT.encodeFunctionData("refund", [22, record.seq, chain.player, 3n * USDC_UNIT, `0x${record.commitment}`]),
    );
    await reread();
    await vi.waitFor(() => expect(field(item, "Refund")).toHaveTextContent("3.00 USDC returned by the pot"));
  }, 60_000);
});
