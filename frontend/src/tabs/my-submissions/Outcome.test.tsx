import { screen, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ChallengeResponse, ClaimOutcome } from "@/api/types";
import { guessCommitment } from "@/lib/commitment";
import { saveSubmission } from "@/wallet/pending";
import { WalletProvider } from "@/wallet/WalletContext";
import { FakeWallet, PLAYER, TX_HASH } from "../../../test/fakeWallet";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { installPublicConfig } from "../../../test/setup";
import { submittedRecord } from "../../../test/submissions";
import { MySubmissionsPanel, PAYOUT_FOLLOW_INTERVAL_MS, payoutFollowInterval } from "./MySubmissionsPanel";

/** docs/protocol.md section 6, "What the player sees": each claim of a resolved challenge shows its
 * outcome (correct or not, the distance, the prize) and the payout's status with its transaction. */

const RECORD = submittedRecord();
const PAYOUT_HASH = `0x${"9a".repeat(32)}`;
let STATUS_URL = "";
beforeAll(async () => {
  const commitment = await guessCommitment({ ...RECORD, submitterAddress: PLAYER });
  STATUS_URL = `/api/responses/${TX_HASH}?commitment=${commitment}`;
});

afterEach(() => vi.unstubAllGlobals());

const claim = (outcome: ClaimOutcome | null, over: Partial<ChallengeResponse> = {}): ChallengeResponse => ({
  id: 1,
  challengeId: 7,
  submissionText: RECORD.text,
  submissionStake: "2.500000",
  submissionTimestamp: 1767225700,
  transactionHash: TX_HASH,
  submitterAddress: PLAYER,
  commitment: "c".repeat(64),
  status: "confirmed",
  rejectionCode: "",
  rejectionReason: "",
  outcome,
  ...over,
});

const WON: ClaimOutcome = {
  isCorrect: true,
  distanceMeters: 12.345,
  prize: "7.800000",
  payoutStatus: "paid",
  payoutTransactionHash: PAYOUT_HASH,
};

/** The value beside a field name of the item's list. */
function field(item: HTMLElement, name: string): HTMLElement | null {
  const term = within(item)
    .queryAllByRole("term")
    .find((dt) => dt.textContent === name);
  return (term?.nextElementSibling as HTMLElement | null) ?? null;
}

async function renderRecordWith(answer: ChallengeResponse) {
  const server = installFakeServer();
  server.on("GET", STATUS_URL, () => json(answer));
  saveSubmission(RECORD);
  renderWithClient(<MySubmissionsPanel />);
  await screen.findByText("Confirmed");
  return screen.getByRole("listitem");
}

describe("My submissions: the outcome of a resolved challenge", () => {
  it("shows a winning claim's verdict, distance, prize and paid payout with its transaction", async () => {
    const item = await renderRecordWith(claim(WON));
    expect(field(item, "Result")).toHaveTextContent("Correct: 12.35 m from the solution");
    expect(field(item, "Prize")).toHaveTextContent("7.80 USDC");
    const payout = field(item, "Payout")!;
    expect(payout).toHaveTextContent(/^Paid: View the payout transaction/);
    expect(within(payout).getByRole("link", { name: /View the payout transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${PAYOUT_HASH}`,
    );
  });

  it("shows a claim that won nothing as not correct, with no prize and no payout", async () => {
    const item = await renderRecordWith(
      claim({
        isCorrect: false,
        distanceMeters: 1234.5,
        prize: "0.000000",
        payoutStatus: null,
        payoutTransactionHash: null,
      }),
    );
    expect(field(item, "Result")).toHaveTextContent("Not correct: 1234.50 m from the solution");
    expect(field(item, "Prize")).toHaveTextContent("None");
    expect(field(item, "Payout")).toBeNull();
  });

  it("shows a correct claim that won no prize as correct, with no prize", async () => {
    const item = await renderRecordWith(
      claim({
        isCorrect: true,
        distanceMeters: 40,
        prize: "0.000000",
        payoutStatus: null,
        payoutTransactionHash: null,
      }),
    );
    expect(field(item, "Result")).toHaveTextContent("Correct: 40.00 m from the solution");
    expect(field(item, "Prize")).toHaveTextContent("None");
  });

  it.each([
    ["due", "Not paid yet: it is sent to the wallet that paid the bid"],
    ["verifying", "Sent, being verified on chain"],
    ["failed", "Not paid yet: the recorded payout could not be verified on chain and is being sent again"],
  ] as const)("says a %s payout is on its way", async (payoutStatus, text) => {
    const item = await renderRecordWith(claim({ ...WON, payoutStatus, payoutTransactionHash: null }));
    expect(field(item, "Payout")).toHaveTextContent(text);
    expect(within(field(item, "Payout")!).queryByRole("link")).not.toBeInTheDocument();
  });

  it("shows the payout transaction without a link on a chain without an explorer", async () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, explorerUrl: "", localChain: true });
    const item = await renderRecordWith(claim(WON));
    expect(field(item, "Payout")).toHaveTextContent(`Paid: ${PAYOUT_HASH}`);
    expect(within(field(item, "Payout")!).queryByRole("link")).not.toBeInTheDocument();
  });

  it("shows no outcome before resolution", async () => {
    const item = await renderRecordWith(claim(null));
    expect(field(item, "Result")).toBeNull();
    expect(field(item, "Prize")).toBeNull();
  });

  it("shows the outcome of a claim listed by Geopoem for the connected wallet", async () => {
    const server = installFakeServer();
    server.on("GET", `/api/responses?address=${PLAYER}`, () => json([claim(WON)]));
    window.ethereum = new FakeWallet();
    renderWithClient(
      <WalletProvider reload={() => undefined}>
        <MySubmissionsPanel />
      </WalletProvider>,
    );
    const item = (await screen.findByText("No record: listed by Geopoem for your wallet")).closest("li")!;
    expect(field(item, "Result")).toHaveTextContent("Correct: 12.35 m from the solution");
    expect(field(item, "Prize")).toHaveTextContent("7.80 USDC");
    expect(within(field(item, "Payout")!).getByRole("link", { name: /View the payout transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${PAYOUT_HASH}`,
    );
  });

  it.each([
    ["due", PAYOUT_FOLLOW_INTERVAL_MS],
    ["paid", false],
  ] as const)(
    "follows this browser's claim and the wallet's list while a payout is %s: %s",
    async (payoutStatus, ms) => {
      const server = installFakeServer();
      server.on("GET", STATUS_URL, () => json(claim({ ...WON, payoutStatus })));
      const listed = claim({ ...WON, payoutStatus }, { id: 2, transactionHash: `0x${"cd".repeat(32)}` });
      server.on("GET", `/api/responses?address=${PLAYER}`, () => json([listed]));
      window.ethereum = new FakeWallet();
      saveSubmission(RECORD);
      const { queryClient } = renderWithClient(
        <WalletProvider reload={() => undefined}>
          <MySubmissionsPanel />
        </WalletProvider>,
      );
      await screen.findByText("No record: listed by Geopoem for your wallet");
      await screen.findAllByText("Confirmed");
      for (const key of [STATUS_URL, `/api/responses?address=${PLAYER}`]) {
        const query = queryClient.getQueryCache().find({ queryKey: [key] })!;
        const interval = query.observers[0]!.options.refetchInterval as (q: typeof query) => number | false;
        expect(interval(query)).toBe(ms);
      }
    },
  );

  it("asks again while a prize is on its way, and never for a settled one", () => {
    for (const payoutStatus of ["due", "verifying", "failed"] as const) {
      expect(payoutFollowInterval(claim({ ...WON, payoutStatus }))).toBe(PAYOUT_FOLLOW_INTERVAL_MS);
    }
    for (const payoutStatus of ["paid", "kept", null] as const) {
      expect(payoutFollowInterval(claim({ ...WON, payoutStatus }))).toBe(false);
    }
    expect(payoutFollowInterval(claim(null))).toBe(false);
    expect(payoutFollowInterval(undefined)).toBe(false);
  });
});
