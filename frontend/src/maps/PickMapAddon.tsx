/** The map toggle beside the coordinates field (main bundle: a few hundred bytes). The map
 * itself, with Leaflet and its CSS, loads only when a player opens it, and the field works the
 * same with the map closed. */
import { lazy, Suspense, useId, useRef, useState } from "react";
import { Spinner } from "@/components/Spinner";
import "@/styles/map-addon.css";

const PickMap = lazy(() => import("./PickMap"));

/** What a form gives the slot beside its coordinates field (tabs/active/CoordinatesAddon.tsx).
 * `value` is the field's current text (as typed, maybe invalid); `onChange` replaces it (a map
 * click writes canonical "lat, lon" text); `disabled` is true while a payment is in progress. */
export interface CoordinatesAddonProps {
  value: string;
  onChange: (text: string) => void;
  disabled: boolean;
  /** The id of the coordinates input, for aria-controls / aria-describedby. */
  inputId: string;
}

export const SHOW_MAP = "Show map";
export const HIDE_MAP = "Hide map";
export const SKIP_MAP = "Skip the map";

export function PickMapAddon(props: CoordinatesAddonProps) {
  const [open, setOpen] = useState(false);
  const regionId = useId();
  const afterRef = useRef<HTMLSpanElement>(null);
  return (
    <div className="map-addon">
      <div className="map-addon-actions">
        <button
          type="button"
          className="link-button"
          aria-expanded={open}
          aria-controls={regionId}
          onClick={() => setOpen((was) => !was)}
        >
          {open ? HIDE_MAP : SHOW_MAP}
        </button>
        {open ? (
          <button type="button" className="link-button" onClick={() => afterRef.current?.focus()}>
            {SKIP_MAP}
          </button>
        ) : null}
      </div>
      <div id={regionId}>
        {open ? (
          <Suspense fallback={<Spinner label="Loading the map..." />}>
            <PickMap {...props} />
          </Suspense>
        ) : null}
      </div>
      {/* Where "Skip the map" lands: the next Tab goes on to the bid field. */}
      <span ref={afterRef} tabIndex={-1} className="map-skip-target" />
    </div>
  );
}
