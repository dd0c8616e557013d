import { vi } from "vitest";

/** The files the page offers for download (a Blob behind an object URL, an <a> clicked), kept here
 * instead: jsdom has no object URLs and navigates nowhere. */
export function captureDownloads() {
  const blobs: Blob[] = [];
  URL.createObjectURL = vi.fn((blob: Blob) => {
    blobs.push(blob);
    return "blob:record";
  });
  URL.revokeObjectURL = vi.fn();
  const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => undefined);
  return { blobs, click };
}
