import type { Map as LeafletMap } from "leaflet";

/** The Leaflet map drawn in a container element, for tests (in jsdom a DOM click carries no
 * position, so a test fires Leaflet's own events on the instance) and for debugging. */
const maps = new WeakMap<Element, LeafletMap>();

export function registerMap(container: Element, map: LeafletMap): void {
  maps.set(container, map);
}

export function forgetMap(container: Element): void {
  maps.delete(container);
}

export function mapOf(container: Element): LeafletMap | undefined {
  return maps.get(container);
}
