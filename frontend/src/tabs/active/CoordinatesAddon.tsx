import type { ComponentType } from "react";

/** The slot beside the coordinates field, for a map (the maps engineer's component).
 *
 * `value` is the field's current text (as typed, maybe invalid); `onChange` replaces it (a map
 * click writes canonical "lat, lon" text); `disabled` is true while a payment is in progress.
 * To plug a map in, set `CoordinatesAddon` below to a lazily loaded component, e.g.
 *   export const CoordinatesAddon = lazy(() => import("@/map").then((m) => ({ default: m.CoordinatesMap })));
 * The form renders it inside <Suspense>, so the map's code stays out of the initial bundle. */
export interface CoordinatesAddonProps {
  value: string;
  onChange: (text: string) => void;
  disabled: boolean;
  /** The id of the coordinates input, for aria-controls / aria-describedby. */
  inputId: string;
}

export const CoordinatesAddon: ComponentType<CoordinatesAddonProps> | null = null;
