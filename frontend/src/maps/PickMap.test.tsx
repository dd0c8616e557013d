import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import * as L from "leaflet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TEST_CONFIG } from "../../test/fixtures";
import { ACTIVE_CHALLENGE, renderActiveTab, serveActiveChallenge } from "../../test/activeChallenge";
import { installPublicConfig } from "../../test/setup";
import { PICK_MAP_LABEL } from "@/maps/PickMap";
import { TILES_UNAVAILABLE } from "@/maps/base-map";
import { mapOf } from "@/maps/registry";

afterEach(() => vi.unstubAllGlobals());

/** The real Active Challenge form, with its default addon: the map toggle. */
async function openForm() {
  serveActiveChallenge({ ...ACTIVE_CHALLENGE, poemTitle: "Iron Lace" });
  renderActiveTab({ map: true });
  const user = userEvent.setup();
  const field = (await screen.findByLabelText("Coordinates (latitude, longitude)")) as HTMLInputElement;
  return { user, field };
}

async function openMap(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole("button", { name: "Show map" }));
  const region = await screen.findByRole("application", { name: PICK_MAP_LABEL });
  // The map is made in an effect after the lazy chunk renders.
  const map = await waitFor(() => {
    const found = mapOf(region);
    if (!found) throw new Error("no Leaflet map in the region yet");
    return found;
  });
  return { region, map };
}

function pin(map: L.Map): L.Marker | null {
  let found: L.Marker | null = null;
  map.eachLayer((layer) => {
    if (layer instanceof L.Marker) found = layer;
  });
  return found;
}

// Typing and lazy chunks under a loaded machine (two cores, several engineers) can take seconds.
describe("the pick map of the Active Challenge form", { timeout: 30000 }, () => {
  it("is closed at first and loads only when asked; the field works without it", async () => {
    const { user, field } = await openForm();
    expect(screen.queryByRole("application")).not.toBeInTheDocument();
    await user.type(field, "1, 2");
    expect(field.value).toBe("1, 2");
    const toggle = screen.getByRole("button", { name: "Show map" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await openMap(user);
    expect(screen.getByRole("button", { name: "Hide map" })).toHaveAttribute("aria-expanded", "true");
  });

  it("says so on the map when the tiles cannot be loaded, and still takes clicks", async () => {
    installPublicConfig({ ...TEST_CONFIG, mapTilesUrl: "https://tiles.example.org/{z}/{x}/{y}.png" });
    const { user, field } = await openForm();
    const { region, map } = await openMap(user);
    let tiles: L.TileLayer | null = null;
    map.eachLayer((layer) => {
      if (layer instanceof L.TileLayer) tiles = layer;
    });
    expect(tiles).not.toBeNull();
    expect(screen.queryByText(TILES_UNAVAILABLE)).not.toBeInTheDocument();
    // jsdom fetches no tiles: the layer's own event stands for the browser's failed request.
    act(() => {
      tiles!.fire("tileerror", {
        tile: document.createElement("img"),
        coords: L.point(0, 0),
        error: new Error("offline"),
      });
    });
    expect(region.parentElement!.querySelector(".map-tiles-note")).toHaveTextContent(
      "Map tiles unavailable — markers and clicks still work",
    );
    act(() => {
      map.fire("click", { latlng: L.latLng(48.85837009, 2.29448099) });
    });
    expect(field.value).toBe("48.85837, 2.29448");
    act(() => {
      tiles!.fire("tileload", { tile: document.createElement("img"), coords: L.point(0, 0) });
    });
    expect(screen.queryByText(TILES_UNAVAILABLE)).not.toBeInTheDocument();
  });

  it("a click drops a pin and fills the field with the canonical, truncated text", async () => {
    const { user, field } = await openForm();
    const { map } = await openMap(user);
    expect(pin(map)).toBeNull();
    act(() => {
      map.fire("click", { latlng: L.latLng(48.85837009, 2.29448099) });
    });
    // Truncated toward zero to 6 decimals, then written canonically (no trailing zeros).
    expect(field.value).toBe("48.85837, 2.29448");
    await waitFor(() => expect(pin(map)).not.toBeNull());
    expect(pin(map)!.getLatLng()).toEqual(L.latLng(48.85837, 2.29448));

    // Truncation, not rounding, on the negative side too; and a click on a repeated world wraps.
    act(() => {
      map.fire("click", { latlng: L.latLng(-33.85678499, 151.21529999) });
    });
    expect(field.value).toBe("-33.856784, 151.215299");
    act(() => {
      map.fire("click", { latlng: L.latLng(40.6892479, -74.0445029 + 360) });
    });
    expect(field.value).toBe("40.689247, -74.044502");
  });

  it("the submitted guess is the text the map wrote", async () => {
    const { user, field } = await openForm();
    const { map } = await openMap(user);
    act(() => {
      map.fire("click", { latlng: L.latLng(29.97917549, 31.13425899) });
    });
    expect(field.value).toBe("29.979175, 31.134258");
    await user.type(screen.getByLabelText("USDC bid amount"), "2");
    await user.click(screen.getByRole("button", { name: "Submit Your Solution & Pay Your Bid" }));
    const dialog = await screen.findByRole("dialog", { name: "Confirm Solution Submission" });
    expect(dialog).toHaveTextContent("29.979175, 31.134258");
  });

  it("dragging the pin rewrites the field", async () => {
    const { user, field } = await openForm();
    const { map } = await openMap(user);
    act(() => {
      map.fire("click", { latlng: L.latLng(10, 20) });
    });
    await waitFor(() => expect(pin(map)).not.toBeNull());
    const marker = pin(map)!;
    expect(marker.dragging?.enabled()).toBe(true);
    act(() => {
      marker.setLatLng([10.12345678, -20.98765432]);
      marker.fire("dragend");
    });
    expect(field.value).toBe("10.123456, -20.987654");
  });

  it("typing valid coordinates moves the pin; half-typed text leaves it; clearing removes it", async () => {
    const { user, field } = await openForm();
    const { map } = await openMap(user);
    await user.type(field, "29.979175, 31.134258");
    await waitFor(() => expect(pin(map)?.getLatLng()).toEqual(L.latLng(29.979175, 31.134258)));
    await user.clear(field);
    await user.type(field, "-33.8567849999, 151.2152");
    // The pin goes where the canonical (truncated) text says.
    await waitFor(() => expect(pin(map)?.getLatLng()).toEqual(L.latLng(-33.856784, 151.2152)));
    await user.type(field, ",");
    expect(pin(map)?.getLatLng()).toEqual(L.latLng(-33.856784, 151.2152));
    await user.clear(field);
    await waitFor(() => expect(pin(map)).toBeNull());
  });

  it("opening the map with coordinates already typed starts with the pin there", async () => {
    const { user, field } = await openForm();
    await user.type(field, "51.500729, -0.124625");
    const { map } = await openMap(user);
    expect(pin(map)?.getLatLng()).toEqual(L.latLng(51.500729, -0.124625));
    expect(map.getZoom()).toBe(12);
  });

  it("the arrow keys move the pin by a zoom-sized step and write the field", async () => {
    const { user, field } = await openForm();
    const { region, map } = await openMap(user);
    act(() => {
      map.setView([10, 20], 12, { animate: false });
    });
    region.focus();
    // No pin yet: the first arrow drops it in the middle of the view.
    await user.keyboard("{ArrowUp}");
    expect(field.value).toBe("10, 20");
    // 10 px at zoom 12 = 10 * 360 / (256 * 2^12) degrees = 0.003433 (in whole micro-degrees).
    await user.keyboard("{ArrowUp}");
    expect(field.value).toBe("10.003433, 20");
    await user.keyboard("{ArrowRight}{ArrowRight}");
    expect(field.value).toBe("10.003433, 20.006866");
    await user.keyboard("{Shift>}{ArrowDown}{/Shift}");
    expect(field.value).toBe("9.969103, 20.006866");
    await user.keyboard("{ArrowLeft}");
    expect(field.value).toBe("9.969103, 20.003433");
    await waitFor(() => expect(pin(map)?.getLatLng()).toEqual(L.latLng(9.969103, 20.003433)));
    expect(screen.getByText("Pin at 9.969103, 20.003433")).toBeInTheDocument();

    // At the pole the latitude stops; across the antimeridian the longitude wraps.
    await user.clear(field);
    await user.type(field, "89.999, 179.999");
    region.focus();
    await user.keyboard("{ArrowUp}{ArrowRight}");
    expect(field.value).toBe("90, -179.997567");
  });

  it("can be skipped from the keyboard", async () => {
    const { user } = await openForm();
    await openMap(user);
    await user.click(screen.getByRole("button", { name: "Skip the map" }));
    await user.tab();
    expect(screen.getByLabelText("USDC bid amount")).toHaveFocus();
  });

  it("draws the configured tiles with their attribution", async () => {
    installPublicConfig({
      ...TEST_CONFIG,
      mapTilesUrl: "https://tiles.example.org/{z}/{x}/{y}.png",
      mapAttribution: '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    });
    const { user } = await openForm();
    const { region } = await openMap(user);
    expect(region.querySelector('img.leaflet-tile[src^="https://tiles.example.org/"]')).not.toBeNull();
    expect(screen.getByRole("link", { name: "OpenStreetMap" })).toHaveAttribute(
      "href",
      "https://www.openstreetmap.org/copyright",
    );
  });
});
