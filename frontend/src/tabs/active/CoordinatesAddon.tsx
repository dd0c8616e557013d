import type { ComponentType } from "react";
import { PickMapAddon } from "@/maps/PickMapAddon";

/** The slot beside the coordinates field: the map (frontend/src/maps). Its toggle is in the main
 * bundle; the map and Leaflet are a lazy chunk loaded when the player opens it.
 *
 * `value` is the field's current text (as typed, maybe invalid); `onChange` replaces it (a map
 * click writes canonical "lat, lon" text); `disabled` is true while a payment is in progress. */
export interface CoordinatesAddonProps {
  value: string;
  onChange: (text: string) => void;
  disabled: boolean;
  /** The id of the coordinates input, for aria-controls / aria-describedby. */
  inputId: string;
}

export const CoordinatesAddon: ComponentType<CoordinatesAddonProps> | null = PickMapAddon;
