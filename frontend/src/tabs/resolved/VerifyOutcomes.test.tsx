import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { PINNED_POTS } from "@/config";
import type { Progress, VerificationReport, VerifierInput } from "@/lib/verify";
import { installPublicConfig } from "../../../test/setup";
import { TEST_CONFIG } from "../../../test/fixtures";
import { renderWithClient } from "../../../test/render";
import { VerifyOutcomes } from "./VerifyOutcomes";

// The component drives the verifier it is given; the verifier itself runs against a real site and
// anvil in chain/tests/verify/ (through frontend/test/verifyOnNode.ts), and on the shared
// vectors in frontend/src/lib/verify/verify.test.ts.

const POT = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const CHALLENGE = { id: 7, responseCount: 3 };

function report(overrides: Partial<VerificationReport> = {}): VerificationReport {
  return {
    ok: true,
    total: 3,
    reproduced: 3,
    pot: POT,
    unpinned: true,
    lines: ["stakes: the pot holds 3 stakes of 15.000000 USDC; the site shows 3", "winners final: earliest stake 2"],
    differences: [],
    stakes: [],
    ...overrides,
  };
}

/** A verifier that reports each step as it is told to, then answers `result`. */
function controlled() {
  let progress: Progress = () => undefined;
  let finish: (value: VerificationReport) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const calls: VerifierInput[] = [];
  const verify = vi.fn((input: VerifierInput) => {
    calls.push(input);
    progress = input.progress ?? progress;
    return new Promise<VerificationReport>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  });
  // Each answer of the verifier updates the component: inside act, as React's test utilities ask.
  return {
    verify,
    calls,
    step: (...args: Parameters<Progress>) => act(() => progress(...args)),
    finish: (r: VerificationReport) => act(async () => finish(r)),
    fail: (e: Error) => act(async () => fail(e)),
  };
}

async function start(verify: ReturnType<typeof controlled>["verify"]) {
  renderWithClient(<VerifyOutcomes challenge={CHALLENGE} verify={verify} />);
  await userEvent.setup().click(screen.getByRole("button", { name: "Verify every outcome" }));
}

describe("Verify every outcome", () => {
  it("runs the verifier on this challenge with the page's chain and the pinned pots", async () => {
    const run = controlled();
    await start(run.verify);
    expect(run.calls).toHaveLength(1);
    const [input] = run.calls;
    expect(input!.challengeId).toBe(7);
    expect(input!.pins).toBe(PINNED_POTS);
    expect(input!.config).toMatchObject({ chainId: TEST_CONFIG.chainId, rpcUrl: TEST_CONFIG.rpcUrl, tokenDecimals: 6 });
  });

  it("shows each step on an accessible progress bar, and cancels", async () => {
    const run = controlled();
    await start(run.verify);
    await run.step("events", 1_500, 20_000);
    const bar = await screen.findByRole("progressbar", {
      name: "Step 2 of 4: Reading the pot's events from the blockchain: 1,500 of 20,000",
    });
    expect(bar).toHaveAttribute("max", "20000");
    expect(bar).toHaveAttribute("value", "1500");
    await userEvent.setup().click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.getByRole("button", { name: "Verify every outcome" })).toBeInTheDocument();
    expect(run.calls[0]!.signal?.aborted).toBe(true);
  });

  it("says every outcome was reproduced only when nothing differs", async () => {
    const run = controlled();
    await start(run.verify);
    await run.finish(report());
    expect(await screen.findByText("3 of 3 outcomes reproduced")).toHaveClass("check-ok");
    const status = screen.getByRole("status");
    expect(status).toHaveTextContent("Every stake, verdict, winner, prize and payment matches the pot's events");
    expect(status).toHaveTextContent(`The pot checked: ${POT}. No pot is pinned in Geopoem's code for this chain`);
    const checks = within(within(status).getByRole("list", { name: "Checks" })).getAllByRole("listitem");
    expect(checks.map((item) => item.textContent)).toEqual(report().lines);
    expect(within(status).queryByRole("list", { name: "Differences" })).not.toBeInTheDocument();
  });

  it("lists every difference, by stake, and never says reproduced when any", async () => {
    const run = controlled();
    await start(run.verify);
    await run.finish(
      report({
        ok: false,
        reproduced: 2,
        unpinned: false,
        differences: [
          { seq: 2, text: "the site held this guess and did not reveal it" },
          {
            seq: null,
            text: "stakes: the site shows 3 stakes of 16.000000 USDC; the pot holds 3 stakes of 15.000000 USDC",
          },
        ],
      }),
    );
    expect(await screen.findByText("Differences found: 2")).toHaveClass("check-bad");
    const status = screen.getByRole("status");
    expect(status).not.toHaveTextContent(/outcomes reproduced/);
    expect(status).not.toHaveTextContent(/matches the pot's events/);
    expect(status).toHaveTextContent("the one pinned in Geopoem's code for this chain");
    const items = within(within(status).getByRole("list", { name: "Differences" })).getAllByRole("listitem");
    expect(items.map((item) => item.textContent)).toEqual([
      "Stake 2: the site held this guess and did not reveal it",
      "stakes: the site shows 3 stakes of 16.000000 USDC; the pot holds 3 stakes of 15.000000 USDC",
    ]);
  });

  it("says so when it could not run, deciding nothing", async () => {
    const run = controlled();
    await start(run.verify);
    await run.fail(new Error("RPC https://rpc.sepolia.example: HTTP 503"));
    expect(
      await screen.findByText(
        /The check could not run: RPC https:\/\/rpc\.sepolia\.example: HTTP 503 Nothing was decided/,
      ),
    ).toHaveClass("check-bad");
  });

  it("points to the script beyond 10,000 stakes", () => {
    renderWithClient(<VerifyOutcomes challenge={{ id: 7, responseCount: 10_001 }} verify={controlled().verify} />);
    expect(screen.queryByRole("button", { name: "Verify every outcome" })).not.toBeInTheDocument();
    expect(
      screen.getByText(/This challenge has 10,001 stakes, more than 10,000 can be checked in a browser/),
    ).toBeInTheDocument();
  });

  it("offers the script with the command filled in, naming the site's pot where none is pinned", () => {
    installPublicConfig({ ...TEST_CONFIG, potAddress: POT, potDeployBlock: 12 });
    renderWithClient(<VerifyOutcomes challenge={CHALLENGE} verify={controlled().verify} />);
    expect(screen.getByRole("link", { name: "download verify_challenge.py" })).toHaveAttribute(
      "href",
      "/verify_challenge.py",
    );
    expect(screen.getByText(/--rpc https:\/\/rpc\.sepolia\.example --challenge 7 --pot 0x5fbdb/)).toBeInTheDocument();
  });

  it("names no pot on the command line of a chain whose pot is pinned", () => {
    installPublicConfig({ ...TEST_CONFIG, chainId: 31337, potAddress: POT });
    renderWithClient(<VerifyOutcomes challenge={CHALLENGE} verify={controlled().verify} />);
    expect(screen.getByText(/--challenge 7$/)).toBeInTheDocument();
  });
});
