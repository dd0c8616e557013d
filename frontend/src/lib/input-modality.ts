/** Keyboard or pointer: which one moved focus last. Browsers decide :focus-visible themselves, and
 * Chromium shows it when a script focuses an element, as Radix does on a tab's mousedown and when a
 * select closes: a thick ring then stayed around a tab after a click. The page marks
 * <html data-input="pointer|keyboard"> and main.css hides the ring of buttons, tabs, selects and
 * links while the last input was a pointer. Keyboard focus always shows it. */
export function trackInputModality(doc: Document = document): () => void {
  const root = doc.documentElement;
  const pointer = () => {
    root.dataset.input = "pointer";
  };
  const keyboard = (event: KeyboardEvent) => {
    // A modifier alone (Shift before a click) is not keyboard navigation.
    if (["Shift", "Control", "Alt", "Meta"].includes(event.key)) return;
    root.dataset.input = "keyboard";
  };
  doc.addEventListener("pointerdown", pointer, true);
  doc.addEventListener("keydown", keyboard, true);
  return () => {
    doc.removeEventListener("pointerdown", pointer, true);
    doc.removeEventListener("keydown", keyboard, true);
    delete root.dataset.input;
  };
}
