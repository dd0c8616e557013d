import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installPublicConfig } from "../../../test/setup";
import { FaqTab } from "./index";

function answerOf(question: string): HTMLElement {
  const details = screen.getByText(question).closest("details");
  if (!details) throw new Error(`no disclosure for ${question}`);
  return details;
}

describe("FAQ tab", () => {
  it("groups the questions under headings in order", () => {
    render(<FaqTab />);
    expect(screen.getByRole("heading", { level: 2, name: "Frequently Asked Questions" })).toBeInTheDocument();
    expect(screen.getAllByRole("heading", { level: 3 }).map((h) => h.textContent)).toEqual([
      "Playing",
      "Prizes",
      "Payments",
      "Fairness and checking",
    ]);
  });

  it("opens and closes an answer from the keyboard or a click", async () => {
    const user = userEvent.setup();
    render(<FaqTab />);
    const details = answerOf("How is the prize pot split?");
    expect(details).not.toHaveAttribute("open");
    await user.click(screen.getByText("How is the prize pot split?"));
    expect(details).toHaveAttribute("open");
    await user.click(screen.getByText("How is the prize pot split?"));
    expect(details).not.toHaveAttribute("open");
  });

  it("explains the 40/40/20 split and both tie rules", () => {
    render(<FaqTab />);
    const split = answerOf("How is the prize pot split?");
    expect(split).toHaveTextContent("40% to the earliest correct response");
    expect(split).toHaveTextContent("40% to the highest staked correct response");
    expect(split).toHaveTextContent("20% to site operations and student donations");
    expect(answerOf("Who is the earliest correct response?")).toHaveTextContent(
      "each stake gets the next sequence number when the pot takes it",
    );
    expect(answerOf("What if two correct responses have the same highest stake?")).toHaveTextContent(
      "The tie goes to the earliest of them",
    );
    expect(answerOf("When is a guess correct?")).toHaveTextContent("6,371,000 m");
    const nobody = answerOf("What happens if nobody is correct?");
    expect(nobody).toHaveTextContent("No correct responses found for this challenge.");
    expect(nobody).toHaveTextContent("The pot returns every stake to the wallet that paid it");
    expect(answerOf("What if the solution is never revealed?")).toHaveTextContent("with a share of the bond");
  });

  it("describes both ways into the pot, that nobody can take a stake out, and how to check a reveal", () => {
    render(<FaqTab />);
    const pay = answerOf("How do I pay, and where does my stake go?");
    expect(pay).toHaveTextContent(
      `Every stake goes into the Geopoem pot, a contract on the blockchain at ${TEST_CONFIG.potAddress}`,
    );
    expect(pay).toHaveTextContent("no key, Geopoem's included, can take a stake out of it");
    expect(pay).toHaveTextContent("By signature (USDC only)");
    expect(pay).toHaveTextContent("By approval (USDC and SepoliaETH)");
    expect(answerOf("Do I need ETH if I pay in USDC?")).toHaveTextContent(
      "Not to pay by signature: Geopoem's relayer pays the gas.",
    );
    expect(answerOf("How are guesses revealed and scored?")).toHaveTextContent('"Reveal my guess"');
    const reveal = answerOf("How can I check that the solution was not changed?");
    expect(reveal).toHaveTextContent('bytes32 "geopoem:solution:v2", chain id, pot, challenge id');
    expect(reveal).toHaveTextContent("Recompute SHA-256 in this browser");
    expect(reveal).toHaveTextContent("the pot refuses a reveal that does not match it");
  });

  it("names a local development chain as such, and promises no explorer links it has not", () => {
    installPublicConfig({ ...TEST_CONFIG, chainName: "Anvil (local)", localChain: true, explorerUrl: "" });
    render(<FaqTab />);
    expect(answerOf("Is this real money?")).toHaveTextContent(
      "runs on the Anvil (local) development chain on this computer",
    );
    const status = answerOf("Where can I see the status of my guess?");
    expect(status).toHaveTextContent("This chain has no public block explorer");
    expect(status).not.toHaveTextContent("links to the block explorer");
  });

  it("takes the network, minimum stake and chain id from the public config", () => {
    installPublicConfig({
      ...TEST_CONFIG,
      chainName: "Geonet",
      chainId: 31337,
      minStake: "2.50",
      nativeCurrency: { name: "GeoETH", symbol: "GETH", decimals: 18 },
    });
    render(<FaqTab />);
    expect(answerOf("Is this real money?")).toHaveTextContent("runs on the Geonet test network");
    expect(answerOf("How do I play?")).toHaveTextContent("a stake of at least 2.50 USDC");
    expect(answerOf("How can I check my own guess's commitment?")).toHaveTextContent("The chain id here is 31337.");
    expect(answerOf("Do I need ETH if I pay in USDC?")).toHaveTextContent("(GETH during the beta)");
  });
});
