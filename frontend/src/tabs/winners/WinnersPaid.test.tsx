import { screen, within } from "@testing-library/react";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { guessCommitment } from "@/lib/protocol/commitment";
import { microDegrees } from "@/lib/protocol/coordinates";
import { WalletProvider } from "@/wallet/WalletContext";
import { json } from "../../../test/http";
import { openChallenge, POT, revealSolution, startPotChain, USDC, USDC_UNIT, type PotChain } from "../../../test/pot";
import { renderWithClient } from "../../../test/render";
import { revealedStake } from "../../../test/resolvedChallenges";
import { anvilWallet, installPotConfig, serveSite, usdc6 } from "../../../test/site";
import { WinnersTab } from "./index";

/** Whether each prize is paid comes from the pot's Paid events, read through the page's node, and
 * the cards say which prize each is and mark the connected wallet's. A challenge played to the end
 * on a real pot (anvil); Geopoem's server (fetch) answers with the same stakes. */

let chain: PotChain;

beforeAll(async () => {
  chain = await startPotChain({ chainId: 31_340 });
}, 60_000);

afterAll(async () => {
  await chain?.stop();
});

describe("the Winners' Circle, paid by the pot", () => {
  it.each([
    ["holds", 1],
    ["does not hold", 2],
  ] as const)(
    "says which prize each card is, which the pot paid, and marks the connected wallet's (the site %s the guess)",
    async (holds, id) => {
      installPotConfig(chain);
      const opened = await openChallenge(chain, { id, closesIn: 600 });
      const site = await serveSite(chain, opened);
      const text = "29.9753, 31.1378";
      const salt = "9".repeat(64);
      const point = microDegrees(text)!;
      const commitment = await guessCommitment({
        chainId: BigInt(chain.chainId),
        pot: chain.pot,
        challengeId: BigInt(id),
        payer: chain.player,
        ...point,
        salt,
      });
      await chain.send(chain.player, chain.usdc, USDC.encodeFunctionData("approve", [chain.pot, 4n * USDC_UNIT]));
      const staked = await chain.send(
        chain.player,
        chain.pot,
        POT.encodeFunctionData("stake", [id, `0x${commitment}`, 4n * USDC_UNIT]),
      );
      await revealSolution(chain, opened);
      await chain.send(
        chain.operator,
        chain.pot,
        POT.encodeFunctionData("revealGuess", [
          id,
          1,
          chain.player,
          4n * USDC_UNIT,
          point.latE6,
          point.lonE6,
          `0x${salt}`,
        ]),
      );
      await chain.mineAt(opened.terms.closesAt + opened.terms.guessWindow + 10);
      await chain.send(chain.operator, chain.pot, POT.encodeFunctionData("finalize", [id]));
      const paid = await chain.send(
        chain.operator,
        chain.pot,
        POT.encodeFunctionData("payPrize", [id, 0, chain.player, 4n * USDC_UNIT, `0x${commitment}`]),
      );

      // A player who revealed from their own wallet a guess the site never received: the site lists the
      // stake without it, and the page takes the guess from the pot's GuessRevealed event.
      const unknown = { submissionText: null, submissionSalt: null, guessReceived: false, distanceMeters: null };
      const stake = revealedStake({
        id: 1,
        challengeId: id,
        submissionText: text,
        ...(holds === "holds" ? {} : unknown),
        submissionStake: usdc6(4n * USDC_UNIT),
        submitterAddress: chain.player,
        commitment,
        transactionHash: staked.hash,
      });
      const challenge = { ...site.challenge, solutionReveal: opened.solution, phase: "final" as const };
      site.server.on("GET", "/api/challenges/resolved", () => json([challenge]));
      site.server.on("GET", `/api/challenges/${id}/winners`, () =>
        json({
          challengeId: id,
          earliest: stake,
          highest: stake,
          phase: "final",
          final: true,
          guessDeadline: null,
          prizes: { earliest: "1.600000", highest: "1.600000", share: "0.800000" },
          payments: [],
        }),
      );
      window.ethereum = anvilWallet(chain);
      renderWithClient(
        <WalletProvider reload={() => undefined}>
          <WinnersTab />
        </WalletProvider>,
      );
      const earliest = await screen.findByRole("article", { name: /Earliest Correct Response/ });
      const highest = screen.getByRole("article", { name: /Highest Staked Correct Response/ });
      await vi.waitFor(() => expect(earliest).toHaveTextContent(`Payout${"Paid by the pot: "}${paid.hash}`));
      expect(earliest).toHaveTextContent("Prize1.60 USDC");
      // The highest prize is not paid yet: the pot has no Paid event of kind 1.
      expect(highest).toHaveTextContent("PayoutNot paid yet: the pot pays it to the wallet that staked");
      await vi.waitFor(() => expect(within(earliest).getByText("You")).toBeInTheDocument());
      expect(within(highest).getByText("You")).toBeInTheDocument();
      // The guess and its distance, whoever revealed it (the pot's record when the site holds none).
      await vi.waitFor(() => expect(earliest).toHaveTextContent(`Coordinates${text}`));
      expect(earliest).toHaveTextContent(/Distance\d+\.\d\d m/);
      expect(earliest).not.toHaveTextContent("Not revealed");
    },
    60_000,
  );
});
