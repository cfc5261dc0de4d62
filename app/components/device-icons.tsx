/** Line icons for the devices and passkeys pages (drawn, so no emoji font is needed). */
const stroke = { fill: "none", stroke: "currentColor", strokeWidth: 1.7, strokeLinecap: "round", strokeLinejoin: "round" } as const;

export function PhoneIcon({ size = 20 }: { size?: number }) {
  return (
    <svg viewBox="0 0 24 24" width={size} height={size} aria-hidden="true">
      <rect x="7" y="2.5" width="10" height="19" rx="2" {...stroke} />
      <path d="M11 18.5h2" {...stroke} />
    </svg>
  );
}

export function LaptopIcon({ size = 20 }: { size?: number }) {
  return (
    <svg viewBox="0 0 24 24" width={size} height={size} aria-hidden="true">
      <rect x="4.5" y="5" width="15" height="10" rx="1.5" {...stroke} />
      <path d="M2.5 19h19" {...stroke} />
    </svg>
  );
}

export function KeyIcon({ size = 20 }: { size?: number }) {
  return (
    <svg viewBox="0 0 24 24" width={size} height={size} aria-hidden="true">
      <circle cx="8" cy="15" r="4" {...stroke} />
      <path d="M11 12l8.5-8.5M16 7l2.5 2.5M14 9l2 2" {...stroke} />
    </svg>
  );
}
