// Every text the page ever shows, in order, so that a progress message shown for a few
// milliseconds is still seen (polling the DOM could miss it).
export const TEXT_RECORDER = `(() => {
  window.__e2eTexts = [];
  const note = (text) => {
    const value = (text || '').replace(/\\s+/g, ' ').trim();
    if (value && value.length < 300 && window.__e2eTexts[window.__e2eTexts.length - 1] !== value) window.__e2eTexts.push(value);
  };
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) note(node.data);
    else if (node.nodeType === Node.ELEMENT_NODE) for (const child of node.childNodes) walk(child);
  };
  const observer = new MutationObserver((mutations) => {
    for (const m of mutations) {
      if (m.type === 'characterData') note(m.target.data);
      for (const added of m.addedNodes ?? []) walk(added);
    }
  });
  const start = () => observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true });
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();`;
