/** The Content-Security-Policy nonce of this page's styles (style-src 'self' 'nonce-…', never
 * 'unsafe-inline'). The server puts it on <meta property="csp-nonce"> (templates/index.html); the
 * browser hides the attribute from the DOM once the policy applies, but keeps the `nonce` property.
 * Radix Dialog's scroll lock (react-style-singleton, through webpack's __webpack_nonce__) and
 * Radix Select's viewport inject a <style> element: without it each dialog logged a CSP error. */
export function styleNonce(doc: Document = document): string | undefined {
  const meta = doc.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]');
  return meta?.nonce || meta?.getAttribute("nonce") || undefined;
}
