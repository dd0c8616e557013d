import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { makeQueryClient } from "@/api";
import { App } from "@/App";
import { render } from "@testing-library/react";
import { saveSubmission, listSubmissions, type StoredSubmission } from "@/wallet/pending";
import { PLAYER, TX_HASH } from "../../../test/fakeWallet";
import { installFakeServer, json } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { MySubmissionsPanel } from "./MySubmissionsPanel";

const RECORD: StoredSubmission = {
  salt: "1".repeat(64),
  challengeId: 7,
  text: "29.979175, 31.134258",
  stake: "2.5",
  chainId: 11155111,
  submitterAddress: PLAYER,
  transactionHash: TX_HASH,
  state: "submitted",
  createdAt: 1767225600000,
};

afterEach(() => vi.unstubAllGlobals());

describe("My submissions", () => {
  it("says when this browser has none", () => {
    installFakeServer();
    renderWithClient(<MySubmissionsPanel />);
    expect(screen.getByText("No submissions from this browser yet.")).toBeInTheDocument();
  });

  it("lists a guess with its server status and an explorer link", async () => {
    const server = installFakeServer();
    server.on("GET", `/api/responses/${TX_HASH}`, () =>
      json({ ...RECORD, id: 1, status: "rejected", rejectionCode: "late", rejectionReason: "The payment was mined after the challenge closed." }),
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
    server.on("GET", `/api/responses/${TX_HASH}`, () => json({ ...RECORD, id: 1, status: "pending", rejectionCode: "", rejectionReason: "" }));
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

  it("keeps the guess and warns when the retry fails too", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    server.on("GET", `/api/responses/${TX_HASH}`, () => json({ message: "No submission uses this transaction." }, 404));
    server.on("POST", "/api/responses", () => json({ message: "Service unavailable." }, 503));
    saveSubmission({ ...RECORD, state: "post-failed" });
    render(<App queryClient={makeQueryClient()} path="/" reload={() => undefined} />);
    expect(await screen.findByText("Submission Failed")).toBeInTheDocument();
    expect(listSubmissions()[0]).toMatchObject({ state: "post-failed", lastError: "503: Service unavailable." });
    expect(await screen.findByText("Not recorded by Geopoem yet")).toBeInTheDocument();
  });
});
