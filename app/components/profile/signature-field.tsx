import { useEffect, useId, useRef } from "react";
import SignaturePad from "signature_pad";
import { useTranslation } from "react-i18next";

/** "data:image/png;base64,..." as a PNG Blob, decoded here (no fetch of a data: URL). */
export function pngBlobOf(dataUrl: string): Blob {
  const binary = atob(dataUrl.slice(dataUrl.indexOf(",") + 1));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type: "image/png" });
}

/** What the page can ask of the pad: is anything drawn, and the drawing as a PNG. */
export type SignatureHandle = { isEmpty(): boolean; toPng(): Blob };

/**
 * A signature drawn with a finger or the mouse (signature_pad), on a white background so the
 * PNG reads the same on the console's light and dark screens. The canvas is sized for the
 * screen's pixel ratio, so strokes stay sharp.
 */
export function SignatureField({ label, hint, handle, onChange }: { label: string; hint: string; handle: React.MutableRefObject<SignatureHandle | null>; onChange: (drawn: boolean) => void }) {
  const { t } = useTranslation("me");
  const id = useId();
  const canvas = useRef<HTMLCanvasElement>(null);
  const pad = useRef<SignaturePad | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  useEffect(() => {
    const el = canvas.current!;
    const p = new SignaturePad(el, { backgroundColor: "rgb(255,255,255)", penColor: "rgb(17,24,39)" });
    pad.current = p;
    let width = -1;
    // Phones fire resize when the address bar hides on scroll: only a real width change
    // refits, and the strokes are redrawn at the new size instead of being lost.
    const fit = () => {
      if (el.offsetWidth === width) return;
      width = el.offsetWidth;
      const strokes = p.toData();
      const ratio = Math.max(window.devicePixelRatio || 1, 1);
      el.width = el.offsetWidth * ratio;
      el.height = el.offsetHeight * ratio;
      el.getContext("2d")!.scale(ratio, ratio);
      p.clear();
      p.fromData(strokes);
    };
    fit();
    const onEnd = () => changed.current(!p.isEmpty());
    p.addEventListener("endStroke", onEnd);
    window.addEventListener("resize", fit);
    handle.current = { isEmpty: () => p.isEmpty(), toPng: () => pngBlobOf(p.toDataURL("image/png")) };
    return () => {
      window.removeEventListener("resize", fit);
      p.removeEventListener("endStroke", onEnd);
      p.off();
      handle.current = null;
    };
  }, [handle]);
  return (
    <div className="field">
      <span className="field-label" id={`${id}-label`}>
        {label}
      </span>
      <canvas ref={canvas} className="signature-pad" aria-labelledby={`${id}-label`} data-testid="profile-signature-pad" />
      <div className="signature-bar">
        <p className="field-hint">{hint}</p>
        <button
          type="button"
          className="btn btn-sm btn-plain"
          data-testid="profile-signature-clear"
          onClick={() => {
            pad.current?.clear();
            onChange(false);
          }}
        >
          {t("profile.clear")}
        </button>
      </div>
    </div>
  );
}
