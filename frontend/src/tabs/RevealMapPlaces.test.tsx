import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { mapOf } from "@/maps/registry";
import { renderWithClient } from "../../test/render";
import { layers, openRevealMap, servePyramid } from "../../test/revealMap";
import { ResolvedTab } from "./resolved";
import { WinnersTab } from "./winners";

afterEach(() => vi.unstubAllGlobals());

// Typing and lazy chunks under a loaded machine (two cores, several engineers) can take seconds.
describe("the reveal map's places", { timeout: 30000 }, () => {
  it("is in the Resolved details dialog", async () => {
    servePyramid();
    renderWithClient(<ResolvedTab />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: /Four Thousand Summers/ }));
    const dialog = await screen.findByRole("dialog", { name: "Resolved Challenge Details" });
    await user.click(within(dialog).getByRole("button", { name: "Show the map" }));
    const region = await within(dialog).findByRole("region", { name: /^Map of the solution/ });
    await waitFor(() => expect(layers(mapOf(region)!).circles[0]!.getRadius()).toBe(150));
  });

  it("is in the Winners' Circle", async () => {
    servePyramid();
    renderWithClient(<WinnersTab />);
    const user = userEvent.setup();
    const trigger = await screen.findByRole("combobox", { name: "Choose a completed challenge to view winners" });
    await vi.waitFor(() => expect(trigger).toBeEnabled());
    await user.click(trigger);
    await user.click(await screen.findByRole("option", { name: "Challenge #1: Four Thousand Summers" }));
    const { map } = await openRevealMap();
    expect(layers(map).lines).toHaveLength(2);
  });
});
