import { act, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TEST_CONFIG } from "../../../test/fixtures";
import { installFakeServer } from "../../../test/http";
import { servePayments } from "../../../test/payments";
import { renderWithClient } from "../../../test/render";
import { installPublicConfig } from "../../../test/setup";
import { GettingStartedTab, platformName } from "./index";

const SIX = {
  x: "https://x.com/geopoem",
  instagram: "https://www.instagram.com/geopoem",
  tiktok: "https://www.tiktok.com/@geopoem",
  youtube: "https://www.youtube.com/@geopoem",
  facebook: "https://www.facebook.com/geopoem",
  linkedin: "https://www.linkedin.com/company/geopoem",
};

// GET /api/payments/authorization unanswered (599): the guides say what the direct transfer needs.
beforeEach(() => {
  installFakeServer();
});
afterEach(() => vi.unstubAllGlobals());

describe("Getting Started tab", () => {
  it("links the six platforms of the public config, opening in a new tab", () => {
    installPublicConfig({ ...TEST_CONFIG, socialLinks: SIX });
    renderWithClient(<GettingStartedTab />);
    expect(screen.getByRole("heading", { level: 2, name: "Getting Started" })).toBeInTheDocument();
    const names = ["X (Twitter)", "Instagram", "TikTok", "YouTube", "Facebook", "LinkedIn"];
    for (const [index, url] of Object.values(SIX).entries()) {
      const link = screen.getByRole("link", { name: `Geopoem on ${names[index]}` });
      expect(link).toHaveAttribute("href", url);
      expect(link).toHaveAttribute("target", "_blank");
      expect(link).toHaveAttribute("rel", "noopener noreferrer");
    }
  });

  it("embeds the two configured videos with titles, lazily and without tracking cookies", () => {
    installPublicConfig({ ...TEST_CONFIG, videoIds: ["abcDEF12345", "M7lc1UVf-VE"] });
    renderWithClient(<GettingStartedTab />);
    const first = screen.getByTitle("Geopoem video 1 of 2");
    expect(first).toHaveAttribute("src", "https://www.youtube-nocookie.com/embed/abcDEF12345");
    expect(first).toHaveAttribute("loading", "lazy");
    expect(screen.getByTitle("Geopoem video 2 of 2")).toHaveAttribute(
      "src",
      "https://www.youtube-nocookie.com/embed/M7lc1UVf-VE",
    );
  });

  it("drops a malformed video id rather than building a URL from it", () => {
    installPublicConfig({ ...TEST_CONFIG, videoIds: ["../../evil?x=1", "M7lc1UVf-VE"] });
    renderWithClient(<GettingStartedTab />);
    expect(screen.getByTitle("Geopoem video 1 of 1")).toHaveAttribute(
      "src",
      "https://www.youtube-nocookie.com/embed/M7lc1UVf-VE",
    );
  });

  it("says so when nothing is configured", () => {
    installPublicConfig({ ...TEST_CONFIG, socialLinks: {}, videoIds: [] });
    renderWithClient(<GettingStartedTab />);
    expect(screen.getByText("No social links are configured yet.")).toBeInTheDocument();
    expect(screen.getByText("No videos are configured yet.")).toBeInTheDocument();
  });

  it("explains how to play, naming the spec's button and minimum stake", () => {
    renderWithClient(<GettingStartedTab />);
    const steps = screen.getAllByRole("listitem");
    expect(steps[3]).toHaveTextContent("Submit Your Solution & Pay Your Bid");
    expect(steps[3]).toHaveTextContent("at least 1.00 USDC");
    expect(steps[0]).toHaveTextContent("Sepolia network");
  });

  it("says ETH for gas is needed only to pay by approval where the relay sends signed stakes", async () => {
    servePayments(installFakeServer());
    renderWithClient(<GettingStartedTab />);
    const step = await screen.findByText(/Paying by signature needs nothing else/);
    expect(step).toHaveTextContent(
      "Get test USDC for your stake. Paying by signature needs nothing else: Geopoem's relayer puts your signed stake into the pot and pays the gas. To pay from your wallet by approval you also need test ETH for gas. The Sepolia Testnet tab walks you through it step by step.",
    );
    expect(screen.queryByText(/Get test ETH for gas and test USDC/)).not.toBeInTheDocument();
  });

  it("says the stake goes into the pot, which pays the winners or returns every stake", () => {
    renderWithClient(<GettingStartedTab />);
    const steps = screen.getAllByRole("listitem");
    expect(steps[3]).toHaveTextContent("Your stake goes into the Geopoem pot, a contract nobody can take it from.");
    expect(steps[4]).toHaveTextContent("If nobody is correct, it returns every stake.");
  });

  it("names unknown platforms as written", () => {
    expect(platformName("mastodon")).toBe("Mastodon");
    expect(platformName("TikTok")).toBe("TikTok");
  });
});

describe("Getting Started videos when YouTube cannot be reached", () => {
  it("shows a link to each video instead of a black box", async () => {
    const probes: HTMLImageElement[] = [];
    const RealImage = globalThis.Image;
    // jsdom loads no images: the stand-in records the probes so the test can fail them, as a
    // browser without access to YouTube does.
    vi.stubGlobal(
      "Image",
      class extends RealImage {
        constructor() {
          super();
          probes.push(this);
        }
      },
    );
    installPublicConfig({ ...TEST_CONFIG, videoIds: ["abcDEF12345", "M7lc1UVf-VE"] });
    renderWithClient(<GettingStartedTab />);
    expect(screen.getByTitle("Geopoem video 1 of 2")).toBeInTheDocument();
    // Even before the answer, a link sits under each player.
    expect(screen.getByRole("link", { name: "Watch video 1 of 2 on YouTube" })).toHaveAttribute(
      "href",
      "https://www.youtube.com/watch?v=abcDEF12345",
    );
    expect(probes.map((p) => p.src)).toEqual([
      "https://i.ytimg.com/vi/abcDEF12345/default.jpg",
      "https://i.ytimg.com/vi/M7lc1UVf-VE/default.jpg",
    ]);
    act(() => probes[0]!.onerror?.(new Event("error")));
    expect(screen.queryByTitle("Geopoem video 1 of 2")).not.toBeInTheDocument();
    expect(screen.getAllByText("The video cannot be loaded here.")).toHaveLength(1);
    expect(screen.getByRole("link", { name: "Watch video 1 of 2 on YouTube" })).toBeInTheDocument();
    expect(screen.getByTitle("Geopoem video 2 of 2")).toBeInTheDocument();
    vi.unstubAllGlobals();
  });
});
