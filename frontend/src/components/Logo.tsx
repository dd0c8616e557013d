/** The Geopoem mark: a map pin over an open book, drawn inline so it costs no request. */
export function Logo({ size = 40 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 48 48" aria-hidden="true" focusable="false" className="logo">
      <path d="M6 34c6-3 12-3 18 0 6-3 12-3 18 0v8c-6-3-12-3-18 0-6-3-12-3-18 0z" fill="#1d4ed8" />
      <path
        d="M24 4c-6.1 0-11 4.7-11 10.6C13 22.5 24 32 24 32s11-9.5 11-17.4C35 8.7 30.1 4 24 4zm0 14.6a4 4 0 110-8 4 4 0 010 8z"
        fill="#b91c1c"
      />
    </svg>
  );
}
