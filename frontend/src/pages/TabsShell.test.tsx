import { fireEvent, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TABS } from "@/tabs";
import { installFakeServer, json } from "../../test/http";
import { renderWithClient } from "../../test/render";
import { TabsShell } from "./TabsShell";

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

function tab(value: string) {
  const found = TABS.find((t) => t.value === value);
  if (!found?.preload) throw new Error(`no lazy tab ${value}`);
  return found as typeof found & { preload: () => Promise<unknown> };
}

describe("TabsShell: lazy tabs", () => {
  it("ships only the Active tab eagerly: every other tab has a chunk to load", () => {
    expect(TABS.filter((t) => !t.preload).map((t) => t.value)).toEqual(["active"]);
  });

  it("starts loading a tab's chunk when its trigger is hovered or focused", () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    const faq = vi.spyOn(tab("faq"), "preload");
    const legal = vi.spyOn(tab("legal"), "preload");
    renderWithClient(<TabsShell />);
    fireEvent.pointerEnter(screen.getByRole("tab", { name: "FAQ" }));
    expect(faq).toHaveBeenCalled();
    expect(legal).not.toHaveBeenCalled();
    fireEvent.focus(screen.getByRole("tab", { name: "Legal & Terms" }));
    expect(legal).toHaveBeenCalled();
  });

  it("loads the chunk once: preloading returns the same promise, and the tab opens from it", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    expect(tab("sepolia").preload()).toBe(tab("sepolia").preload());
    renderWithClient(<TabsShell />);
    await userEvent.click(screen.getByRole("tab", { name: "Sepolia Testnet" }));
    expect(screen.getByRole("tab", { name: "Sepolia Testnet" })).toHaveAttribute("aria-selected", "true");
    const panel = await screen.findByRole("tabpanel");
    expect(await screen.findByRole("heading", { level: 2 })).toBeInTheDocument();
    expect(panel).not.toHaveTextContent("Loading Sepolia Testnet...");
  });
});
