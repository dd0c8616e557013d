import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { makeQueryClient } from "@/api";
import { App } from "@/App";
import { installFakeServer, json } from "../test/http";

afterEach(() => vi.unstubAllGlobals());

describe("App", () => {
  it("shows the page frame and the seven tabs, Active Challenge first and selected", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    render(<App queryClient={makeQueryClient()} path="/" />);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Geopoem");
    expect(screen.getByText("Beta 0.0")).toBeInTheDocument();
    const tabs = screen.getAllByRole("tab").map((tab) => tab.textContent);
    expect(tabs).toEqual([
      "Active Challenge",
      "Resolved Challenges",
      "Winners' Circle",
      "Getting Started",
      "Sepolia Testnet",
      "FAQ",
      "Legal & Terms",
    ]);
    expect(screen.getByRole("tab", { name: "Active Challenge" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("contentinfo")).toHaveTextContent(/©/);
    expect(screen.getByRole("complementary", { name: "Beta notice" })).toHaveTextContent(/fake money/);
  });

  it("opens a lazily loaded tab when clicked", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json(null));
    server.on("GET", "/api/challenges/resolved", () => json([]));
    render(<App queryClient={makeQueryClient()} path="/" />);
    await userEvent.click(screen.getByRole("tab", { name: "FAQ" }));
    expect(screen.getByRole("tab", { name: "FAQ" })).toHaveAttribute("aria-selected", "true");
    expect(await screen.findByRole("tabpanel")).toBeInTheDocument();
  });

  it("shows the 404 page on any other path", () => {
    render(<App queryClient={makeQueryClient()} path="/nowhere" />);
    expect(screen.getByRole("heading", { name: "404 Page Not Found" })).toBeInTheDocument();
    expect(screen.getByText(/add the page to the router/)).toBeInTheDocument();
  });
});
