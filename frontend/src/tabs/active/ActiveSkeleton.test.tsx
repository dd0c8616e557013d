import { screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WalletProvider } from "@/wallet/WalletContext";
import { installFakeServer } from "../../../test/http";
import { renderWithClient } from "../../../test/render";
import { ActiveChallengeTab } from "./ActiveChallengeTab";

afterEach(() => vi.unstubAllGlobals());

describe("Active Challenge: space reserved while loading", () => {
  it("shows the outlines of the challenge card and the form above My submissions, with one status", () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => new Promise<Response>(() => undefined));
    const { container } = renderWithClient(
      <WalletProvider reload={() => undefined}>
        <ActiveChallengeTab coordinatesAddon={null} />
      </WalletProvider>,
    );
    const skeleton = container.querySelector(".active-skeleton");
    if (!skeleton) throw new Error("no skeleton while loading");
    expect(skeleton.querySelector(".skeleton-challenge")).not.toBeNull();
    expect(skeleton.querySelector(".skeleton-form")).toHaveAttribute("aria-hidden", "true");
    expect(screen.getByRole("status")).toHaveTextContent("Loading the active challenge...");
    const submissions = screen.getByRole("heading", { name: "My submissions" });
    // The skeleton comes first in the document, so the panel sits below the reserved space.
    expect(skeleton.compareDocumentPosition(submissions) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});
