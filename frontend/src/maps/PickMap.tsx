/** The map of the Active Challenge form (lazy chunk, with Leaflet). A click or tap drops a pin,
 * which can be dragged; the arrow keys move it. Every move writes the canonical, truncated
 * "lat, lon" into the coordinates field, and the field stays the source of truth: typing valid
 * coordinates moves the pin, clearing the field removes it. */
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import type { CoordinatesAddonProps } from "./PickMapAddon";
import { createMap, destroyMap, L, pinIcon } from "./base-map";
import { positionToText, stepMicro, stepText, textToPosition } from "./geo";

export const PICK_MAP_LABEL = "Map for your guess";
export const PICK_MAP_HELP =
  "Click or tap the map to drop a pin there, drag the pin to adjust it, or use the arrow keys to move it (Shift moves it further). The pin fills the coordinates field.";

const WORLD_VIEW: { center: L.LatLngExpression; zoom: number } = { center: [20, 0], zoom: 2 };
const PLACE_ZOOM = 12;

const ARROWS: Record<string, [number, number]> = {
  ArrowUp: [1, 0],
  ArrowDown: [-1, 0],
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
};

export default function PickMap({ value, onChange, disabled, inputId }: CoordinatesAddonProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const mapRef = useRef<L.Map | null>(null);
  const markerRef = useRef<L.Marker | null>(null);
  // The handlers Leaflet holds read the latest props through this ref.
  const latest = useRef({ value, onChange, disabled });
  useLayoutEffect(() => {
    latest.current = { value, onChange, disabled };
  });
  const [announcement, setAnnouncement] = useState("");

  const write = (text: string) => {
    latest.current.onChange(text);
    setAnnouncement(`Pin at ${text}`);
  };

  // The map lives as long as the component; the marker follows the field (below).
  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    const start = textToPosition(latest.current.value);
    const map = createMap(container, {
      // The arrow keys move the pin (onKeyDown below), so Leaflet's own keyboard panning is off.
      keyboard: false,
      ...(start ? { center: [start.lat, start.lon], zoom: PLACE_ZOOM } : WORLD_VIEW),
    });
    mapRef.current = map;
    map.on("click", (event: L.LeafletMouseEvent) => {
      if (latest.current.disabled) return;
      write(positionToText(event.latlng.lat, event.latlng.lng));
    });
    return () => {
      markerRef.current = null;
      mapRef.current = null;
      destroyMap(container, map);
    };
    // Created once: the handlers read the latest props through `latest`.
  }, []);

  // The field is the source of truth: the pin shows what it holds.
  useEffect(() => {
    const map = mapRef.current;
    if (!map) return;
    const position = textToPosition(value);
    if (!position) {
      // Cleared (after a submission, or by hand): no pin. Half-typed text leaves the pin be.
      if (value.trim() === "" && markerRef.current) {
        markerRef.current.remove();
        markerRef.current = null;
      }
      return;
    }
    const latLng = L.latLng(position.lat, position.lon);
    let marker = markerRef.current;
    if (!marker) {
      marker = L.marker(latLng, {
        icon: pinIcon("map-pin-guess"),
        draggable: !latest.current.disabled,
        keyboard: false, // the map itself takes the arrow keys: one tab stop, not two
        title: "Your guess",
        autoPan: true,
      });
      marker.on("dragend", () => {
        const moved = marker?.getLatLng();
        if (moved && !latest.current.disabled) write(positionToText(moved.lat, moved.lng));
      });
      marker.addTo(map);
      markerRef.current = marker;
    } else if (!marker.getLatLng().equals(latLng, 0)) {
      marker.setLatLng(latLng);
    }
    const size = map.getSize();
    if (size.x > 0 && size.y > 0 && !map.getBounds().contains(latLng)) {
      map.setView(latLng, Math.max(map.getZoom(), PLACE_ZOOM));
    }
  }, [value]);

  useEffect(() => {
    const dragging = markerRef.current?.dragging;
    if (!dragging) return;
    if (disabled) dragging.disable();
    else dragging.enable();
  }, [disabled, value]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const map = mapRef.current;
    if (!map || event.target !== event.currentTarget) return; // not the zoom buttons' keys
    if (event.key === "+" || event.key === "=") {
      event.preventDefault();
      map.zoomIn();
      return;
    }
    if (event.key === "-" || event.key === "_") {
      event.preventDefault();
      map.zoomOut();
      return;
    }
    const direction = ARROWS[event.key];
    if (!direction) return;
    event.preventDefault();
    if (disabled) return;
    const current = textToPosition(value);
    if (!current) {
      // No pin yet: the first arrow drops it in the middle of the view.
      const center = map.getCenter();
      write(positionToText(center.lat, center.lng));
      return;
    }
    const step = stepMicro(map.getZoom()) * (event.shiftKey ? 10 : 1);
    const next = stepText(current.text, direction[0] * step, direction[1] * step);
    if (next) {
      write(next);
      const moved = textToPosition(next);
      if (moved) map.panInside([moved.lat, moved.lon], { padding: [40, 40] });
    }
  };

  const helpId = `${inputId}-map-help`;
  return (
    <div className="pick-map">
      <p id={helpId} className="field-hint">
        {PICK_MAP_HELP}
      </p>
      <div
        ref={containerRef}
        className="map-canvas"
        role="application"
        aria-label={PICK_MAP_LABEL}
        aria-describedby={helpId}
        aria-controls={inputId}
        aria-disabled={disabled || undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
      />
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
    </div>
  );
}
