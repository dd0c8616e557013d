import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { makeQueryClient } from "@/api";
import { App } from "@/App";
import { guessCommitment } from "@/lib/commitment";
import { render } from "@testing-library/react";
import { saveSubmission, listSubmissions } from "@/wallet/pending";
import { PLAYER, TX_HASH } from "../../../test/fakeWallet";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { MySubmissionsPanel } from "./MySubmissionsPanel";
import { submittedRecord } from "../../../test/submissions";
import vectors from "../../../../tests/vectors.json";

const RECORD = submittedRecord();

/** The page asks for its own claim by the guess commitment (several claims can name one hash). */
let STATUS_URL = "";
beforeAll(async () => {
  const commitment = await guessCommitment({ ...RECORD, submitterAddress: PLAYER });
  STATUS_URL = `/api/responses/${TX_HASH}?commitment=${commitment}`;
});

afterEach(() => vi.unstubAllGlobals());

describe("My submissions", () => {
  it("says when this browser has none", () => {
    installFakeServer();
    renderWithClient(<MySubmissionsPanel />);
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
  });

  it("lists a guess with its server status and an explorer link", async () => {
    const server = installFakeServer();
    server.on("GET", STATUS_URL, () =>
      json({
        ...RECORD,
        id: 1,
        status: "rejected",
        rejectionCode: "late",
        rejectionReason: "The payment was mined after the challenge closed.",
      }),
    );
    saveSubmission(RECORD);
    renderWithClient(<MySubmissionsPanel />);
    const item = screen.getByRole("listitem");
    expect(within(item).getByText("#7")).toBeInTheDocument();
    expect(within(item).getByText("29.979175, 31.134258")).toBeInTheDocument();
    expect(within(item).getByText("2.50 USDC")).toBeInTheDocument();
    expect(await within(item).findByText("Rejected")).toBeInTheDocument();
    expect(within(item).getByText(/mined after the challenge closed/)).toBeInTheDocument();
    expect(within(item).getByRole("link", { name: /View transaction/ })).toHaveAttribute(
      "href",
      `https://sepolia.etherscan.io/tx/${TX_HASH}`,
    );
  });

  it("says why a claim that reached the site after resolution does not count, in the server's words", async () => {
    // The server sends the sentence of its reason code (responses/reasons.py, which tests/test_vectors.py
    // holds to the shared vectors): the page shows it as sent, beside the status.
    const server = installFakeServer();
    server.on("GET", STATUS_URL, () =>
      json({
        ...RECORD,
        id: 1,
        status: "rejected",
        rejectionCode: vectors.exceptions.code,
        rejectionReason: vectors.exceptions.sentence,
      }),
    );
    saveSubmission(RECORD);
    renderWithClient(<MySubmissionsPanel />);
    const item = screen.getByRole("listitem");
    expect(await within(item).findByText("Rejected")).toBeInTheDocument();
    expect(within(item).getByText(`: ${vectors.exceptions.sentence}`, { exact: true })).toBeInTheDocument();
  });

  it("shows the player's own claim, never a stranger's on the same transaction", async () => {
    const server = installFakeServer();
    // A stranger posted first on the player's hash: asked by hash alone, the server could only
    // answer with a claim that is not this browser's.
    server.on("GET", `/api/responses/${TX_HASH}`, () =>
      json({
        ...RECORD,
        id: 1,
        status: "rejected",
        rejectionCode: "commitment_mismatch",
        rejectionReason: "Not yours.",
      }),
    );
    server.on("GET", STATUS_URL, () =>
      json({ ...RECORD, id: 2, status: "confirmed", rejectionCode: "", rejectionReason: "" }),
    );
    saveSubmission(RECORD);
    renderWithClient(<MySubmissionsPanel />);
    expect(await screen.findByText("Confirmed")).toBeInTheDocument();
    expect(screen.queryByText("Rejected")).not.toBeInTheDocument();
    expect(server.calls.map((c) => c.url)).toEqual([STATUS_URL]);
  });

  it("asks by the commitment kept in the record, without computing it again", async () => {
    const server = installFakeServer();
    const kept = "c".repeat(64);
    server.on("GET", `/api/responses/${TX_HASH}?commitment=${kept}`, () =>
      json({ ...RECORD, id: 3, status: "pending", rejectionCode: "", rejectionReason: "" }),
    );
    saveSubmission({ ...RECORD, commitment: kept });
    renderWithClient(<MySubmissionsPanel />);
    expect(await screen.findByText("Pending")).toBeInTheDocument();
    expect(server.calls.map((c) => c.url)).toEqual([`/api/responses/${TX_HASH}?commitment=${kept}`]);
  });

  it("says a stake cancelled in the wallet paid nothing, asks Geopoem nothing about it, and can be removed", async () => {
    const server = installFakeServer();
    saveSubmission({ ...RECORD, state: "cancelled" });
    renderWithClient(<MySubmissionsPanel />);
    expect(screen.getByText("Cancelled in your wallet: no payment was made")).toBeInTheDocument();
    expect(screen.queryByText("Server status")).not.toBeInTheDocument();
    expect(server.fetch).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole("button", { name: "Remove" }));
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
  });

  it("shows a sped-up stake under its new transaction and says it is the same payment", async () => {
    const server = installFakeServer();
    const faster = `0x${"cd".repeat(32)}`;
    const commitment = await guessCommitment({ ...RECORD, submitterAddress: PLAYER });
    server.on("GET", `/api/responses/${faster}?commitment=${commitment}`, () =>
      json({ ...RECORD, transactionHash: faster, id: 1, status: "confirmed", rejectionCode: "", rejectionReason: "" }),
    );
    saveSubmission({ ...RECORD, transactionHash: faster, replacedHashes: [TX_HASH] });
    renderWithClient(<MySubmissionsPanel />);
    expect(
      screen.getByText("Your wallet replaced the first transaction with this one: the same payment"),
    ).toBeInTheDocument();
    expect(await screen.findByText("Confirmed")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: /View transaction/ })).toHaveAttribute(
      "href",
      expect.stringContaining(faster),
    );
  });

  it("lets the player remove a guess that was never paid", async () => {
    installFakeServer();
    saveSubmission({ ...RECORD, transactionHash: undefined, state: "prepared" });
    renderWithClient(<MySubmissionsPanel />);
    expect(screen.getByText("Not paid: the transaction was not sent")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Remove" }));
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
  });
});

describe("recovery of a lost POST", () => {
  it("posts a paid but unrecorded guess again on load and says so", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    server.on("GET", STATUS_URL, () =>
      json({ ...RECORD, id: 1, status: "pending", rejectionCode: "", rejectionReason: "" }),
    );
    server.on("POST", "/api/responses", () => json({ ...RECORD, id: 1, status: "pending" }, 200));
    saveSubmission({ ...RECORD, state: "post-failed", lastError: "503: Service unavailable." });
    render(<App queryClient={makeQueryClient()} path="/" reload={() => undefined} />);
    expect(await screen.findByText("Submission Recovered")).toBeInTheDocument();
    const post = server.calls.find((c) => c.init?.method === "POST");
    expect(JSON.parse(post?.init?.body as string)).toEqual({
      challengeId: 7,
      submissionText: "29.979175, 31.134258",
      submissionStake: "2.5",
      transactionHash: TX_HASH,
      submitterAddress: PLAYER,
      submissionSalt: "1".repeat(64),
    });
    expect(listSubmissions()[0]?.state).toBe("submitted");
  });

  it("keeps the guess, says it is sent again, and records it when a later try passes", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    let stored = false;
    server.on("GET", STATUS_URL, () =>
      stored
        ? json({ ...RECORD, id: 1, status: "pending", rejectionCode: "", rejectionReason: "" })
        : json({ message: "No submission uses this transaction." }, 404),
    );
    const answers = [503];
    server.on("POST", "/api/responses", () => {
      if (answers.shift() === 503) return json({ message: "Service unavailable." }, 503);
      stored = true;
      return json({ ...RECORD, id: 1, status: "pending" }, 201);
    });
    saveSubmission({ ...RECORD, state: "post-failed" });
    render(<App queryClient={makeQueryClient()} path="/" reload={() => undefined} />);
    expect(
      await screen.findByText(
        "Payment made, not yet recorded by Geopoem: it is sent again automatically while this page is open and on your next visit",
      ),
    ).toBeInTheDocument();
    await waitFor(() => expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", postAttempts: 1 }));
    // A try that may pass later is no failure to report: no red toast.
    expect(screen.queryByText("Submission Failed")).not.toBeInTheDocument();
    // The next try, about 2 s later, is stored.
    expect(await screen.findByText("Submission Recovered", {}, { timeout: 6000 })).toBeInTheDocument();
    expect(server.calls.filter((c) => c.init?.method === "POST")).toHaveLength(2);
    expect(listSubmissions()[0]?.state).toBe("submitted");
    expect(await screen.findByText("Recorded by Geopoem")).toBeInTheDocument();
  }, 15000);

  it("stops retrying a claim the server refused for good (422) and says why", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    server.on("GET", STATUS_URL, () => json({ message: "No submission uses this transaction." }, 404));
    const reason = "The payment does not carry the commitment of this guess.";
    server.on("POST", "/api/responses", () => json({ message: reason, errors: {}, code: "commitment_mismatch" }, 422));
    saveSubmission({ ...RECORD, state: "post-failed" });
    const first = render(<App queryClient={makeQueryClient()} path="/" reload={() => undefined} />);
    expect(await screen.findByText(reason)).toBeInTheDocument();
    expect(listSubmissions()[0]?.state).toBe("refused");
    expect(screen.getByText(/refused by Geopoem: not sent again/)).toBeInTheDocument();
    first.unmount();

    // The next visit does not post it again: the answer could not change.
    const posts = () => server.calls.filter((c) => c.init?.method === "POST").length;
    const before = posts();
    render(<App queryClient={makeQueryClient()} path="/" reload={() => undefined} />);
    expect(await screen.findByText(reason)).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(posts()).toBe(before);
    expect(listSubmissions()[0]?.state).toBe("refused");
  });
});
