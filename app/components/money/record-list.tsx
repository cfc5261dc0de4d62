import type { ReactNode } from "react";
import { Empty } from "../nav";
import { LoadMore } from "./load-more";
import { Notice } from "./notice";

/**
 * The body of a records page (recharges, withdrawals, statement): an error notice if the
 * list could not load, 'No data yet' with an optional next step, the rows, and "load more".
 */
export function RecordList<T>({
  label,
  items,
  error,
  pages,
  total,
  emptyAction,
  listClassName = "m-list",
  renderItem,
}: {
  label: string;
  items: T[];
  error?: string | null;
  pages: number;
  total: number;
  emptyAction?: ReactNode;
  listClassName?: string;
  renderItem: (item: T) => ReactNode;
}) {
  return (
    <>
      {error ? (
        <Notice tone="bad">
          <p>{error}</p>
        </Notice>
      ) : null}
      {items.length === 0 ? (
        <section className="card">
          <Empty />
          {emptyAction ? <div className="m-empty-actions">{emptyAction}</div> : null}
        </section>
      ) : (
        <ul className={listClassName} aria-label={label}>
          {items.map(renderItem)}
        </ul>
      )}
      <LoadMore pages={pages} total={total} count={items.length} />
    </>
  );
}
