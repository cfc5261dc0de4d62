import { useState } from "react";
import { useTranslation } from "react-i18next";
import { LANGUAGES } from "../../../locales/languages";
import { useUi } from "../ui";
import { useAction } from "../../lib/admin-console";

export type Canned = { id: number; lang: string; title: string; text: string };

/**
 * Canned replies in the customer's language: "Insert" puts one into the composer (an operator
 * still reads and sends it); a small editor adds, changes and deletes them.
 */
export function CannedReplies({ items, lang, onInsert }: { items: Canned[]; lang: string; onInsert: (text: string) => void }) {
  const { t } = useTranslation("service");
  const ui = useUi();
  const [editing, setEditing] = useState<Canned | "new" | null>(null);
  const remove = useAction();
  const name = LANGUAGES.find((l) => l.key === lang)?.name ?? lang;

  async function del(c: Canned) {
    if (!(await ui.confirm(t("inbox.canned_delete_confirm", { title: c.title })))) return;
    remove.fetcher.submit({ intent: "canned_delete", id: String(c.id) }, { method: "post" });
  }

  return (
    <section data-testid="sv-canned">
      <h3>{t("inbox.canned_title", { language: name })}</h3>
      {items.length === 0 ? <p className="muted">{t("inbox.canned_empty")}</p> : null}
      <ul className="sv-canned">
        {items.map((c) => (
          <li key={c.id} data-testid="sv-canned-item">
            <span className="sv-canned-title" title={c.text}>
              {c.title}
            </span>
            <span className="sv-canned-actions">
              <button type="button" className="link" onClick={() => onInsert(c.text)} data-testid="sv-canned-insert">
                {t("inbox.canned_insert")}
              </button>
              <button type="button" className="link" onClick={() => setEditing(c)}>
                {t("inbox.canned_edit")}
              </button>
              <button type="button" className="link" onClick={() => del(c)} disabled={remove.busy}>
                {t("inbox.canned_delete")}
              </button>
            </span>
          </li>
        ))}
      </ul>
      {editing ? (
        <CannedEditor key={editing === "new" ? "new" : editing.id} item={editing === "new" ? null : editing} lang={lang} onDone={() => setEditing(null)} />
      ) : (
        <button type="button" className="btn btn-plain" onClick={() => setEditing("new")} data-testid="sv-canned-new">
          {t("inbox.canned_new")}
        </button>
      )}
    </section>
  );
}

function CannedEditor({ item, lang, onDone }: { item: Canned | null; lang: string; onDone: () => void }) {
  const { t } = useTranslation("service");
  const save = useAction(onDone);
  return (
    <save.fetcher.Form method="post" className="sv-canned-form" data-testid="sv-canned-form">
      <input type="hidden" name="intent" value="canned_save" />
      {item ? <input type="hidden" name="id" value={item.id} /> : null}
      <label>
        {t("inbox.canned_lang")}{" "}
        <select name="lang" defaultValue={item?.lang ?? lang}>
          {LANGUAGES.map((l) => (
            <option key={l.key} value={l.key}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      <input name="title" required maxLength={100} defaultValue={item?.title ?? ""} placeholder={t("inbox.canned_title_label")} aria-label={t("inbox.canned_title_label")} />
      <textarea name="text" required maxLength={2000} rows={4} defaultValue={item?.text ?? ""} placeholder={t("inbox.canned_text_label")} aria-label={t("inbox.canned_text_label")} />
      <div className="sv-canned-actions">
        <button type="submit" className="btn btn-primary" disabled={save.busy}>
          {t("inbox.canned_save")}
        </button>
        <button type="button" className="btn btn-plain" onClick={onDone}>
          {t("inbox.canned_cancel")}
        </button>
      </div>
    </save.fetcher.Form>
  );
}
