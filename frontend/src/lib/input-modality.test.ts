import { afterEach, describe, expect, it } from "vitest";
import { trackInputModality } from "./input-modality";

let stop: () => void = () => undefined;
afterEach(() => stop());

describe("input modality", () => {
  it("marks the page pointer after a click and keyboard after a key, so only keyboard focus shows a ring", () => {
    stop = trackInputModality();
    const root = document.documentElement;
    expect(root.dataset.input).toBeUndefined();
    document.body.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(root.dataset.input).toBe("pointer");
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Shift", bubbles: true }));
    expect(root.dataset.input).toBe("pointer"); // a modifier alone is not navigation
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "Tab", bubbles: true }));
    expect(root.dataset.input).toBe("keyboard");
    stop();
    expect(root.dataset.input).toBeUndefined();
  });
});
