import type { ReactNode } from "react";

/** A boxed message: `warn` for what can cost the user money, `info` for how things work. */
export function Notice({ tone = "info", title, children, testId }: { tone?: "info" | "warn" | "bad"; title?: string; children: ReactNode; testId?: string }) {
  return (
    <div className={`m-notice m-notice-${tone}`} role={tone === "info" ? "note" : "alert"} data-testid={testId}>
      <span className="m-notice-icon" aria-hidden="true">
        {tone === "info" ? "i" : "!"}
      </span>
      <div className="m-notice-body">
        {title ? <strong className="m-notice-title">{title}</strong> : null}
        {children}
      </div>
    </div>
  );
}
