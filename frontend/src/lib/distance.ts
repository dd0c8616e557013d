/** The distance shown to people (never the verdict: lib/protocol/geometry.ts decides it in
 * integers): the haversine on a sphere of 6,371,000 m, as challenges/scoring.py computes it, so the
 * two show the same metres. A float is fine for a measurement shown with 2 decimals. */
import type { Point } from "@/lib/protocol/geometry";

const EARTH_RADIUS_M = 6_371_000;

export function haversineMeters(a: Point, b: Point): number {
  const deg = (e6: bigint) => Number(e6) / 1e6;
  const rad = (degrees: number) => degrees * (Math.PI / 180);
  const dLat = rad(deg(b.latE6) - deg(a.latE6));
  const dLon = rad(deg(b.lonE6) - deg(a.lonE6));
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(rad(deg(a.latE6))) * Math.cos(rad(deg(b.latE6))) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}
