import type { ComponentType } from "react";
import { PickMapAddon, type CoordinatesAddonProps } from "@/maps/PickMapAddon";

export type { CoordinatesAddonProps };

/** The slot beside the coordinates field: the map (frontend/src/maps). Its toggle is in the main
 * bundle; the map and Leaflet are a lazy chunk loaded when the player opens it. */
export const CoordinatesAddon: ComponentType<CoordinatesAddonProps> | null = PickMapAddon;
