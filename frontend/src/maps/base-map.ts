/** The Leaflet setup both maps share. Imported only by the lazy map components, so Leaflet and
 * its CSS land in a lazy chunk and the first paint never waits for them. */
import * as L from "leaflet";
import "leaflet/dist/leaflet.css";
import "@/styles/maps.css";
import { getPublicConfig } from "@/config";
import { forgetMap, registerMap } from "./registry";

export { L };

/** A map in `container` with the configured tiles and attribution. Without a tile URL, or with
 * no tile server reachable, the map still works: markers, shapes and clicks need no tiles. */
export function createMap(container: HTMLElement, options: L.MapOptions = {}): L.Map {
  const config = getPublicConfig();
  const map = L.map(container, { worldCopyJump: true, ...options });
  if (config.mapTilesUrl) {
    const tiles = L.tileLayer(config.mapTilesUrl, { attribution: config.mapAttribution, maxZoom: 19 }).addTo(map);
    watchTiles(map, tiles);
  }
  registerMap(container, map);
  return map;
}

export const TILES_UNAVAILABLE = "Map tiles unavailable — markers and clicks still work";

/** A tile server that cannot be reached leaves a blank map: say so on the map while no tile has
 * loaded (the markers, the circle and clicks need no tiles), and take the note away once one loads. */
function watchTiles(map: L.Map, tiles: L.TileLayer): void {
  let note: L.Control | null = null;
  let loaded = false;
  tiles.on("tileerror", () => {
    if (loaded || note) return;
    const TilesNote = L.Control.extend({
      onAdd() {
        const box = L.DomUtil.create("div", "map-tiles-note");
        box.setAttribute("role", "status");
        box.textContent = TILES_UNAVAILABLE;
        return box;
      },
    });
    note = new TilesNote({ position: "topright" });
    note.addTo(map);
  });
  tiles.on("tileload", () => {
    loaded = true;
    note?.remove();
    note = null;
  });
}

export function destroyMap(container: HTMLElement, map: L.Map): void {
  forgetMap(container);
  map.remove();
}

/** A round marker drawn with CSS (no image files): `className` picks its look in maps.css. */
export function dotIcon(className: string, size = 18): L.DivIcon {
  return L.divIcon({ className: `map-dot ${className}`, iconSize: [size, size], iconAnchor: [size / 2, size / 2] });
}

/** A pin (a teardrop drawn with CSS) whose tip is the position. */
export function pinIcon(className = ""): L.DivIcon {
  return L.divIcon({
    className: `map-pin ${className}`.trim(),
    html: '<span class="map-pin-head" aria-hidden="true"></span>',
    iconSize: [26, 38],
    iconAnchor: [13, 38],
  });
}
