import { useLocation } from "@remix-run/react";
import { useEffect, useRef, type ReactNode } from "react";

/**
 * The 'pop-in' transition (300 ms) on each new page. Only the page's content moves (the CSS
 * animates .screen-body and .admin-main, app/styles/shell.css), never the navbar or the tab bar,
 * and nothing is remounted: the class is taken off and put back to restart the animation.
 * Under prefers-reduced-motion the CSS turns the animation off.
 */
export function PageTransition({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const box = useRef<HTMLDivElement>(null);
  const first = useRef(true);
  useEffect(() => {
    const el = box.current;
    // The first page is painted by the server: nothing to transition from.
    if (first.current || !el) {
      first.current = false;
      return;
    }
    el.classList.remove("pop-in");
    void el.offsetWidth; // a reflow, so the re-added class starts the animation again
    el.classList.add("pop-in");
  }, [pathname]);
  return (
    <div ref={box} className="page-transition" data-testid="page-transition">
      {children}
    </div>
  );
}
