import { describe, expect, it } from "vitest";
import { trustedKey } from "../../../../app/lib/proof/check";
import { checkpointBody, generateSigningKey, publicKeyOf, signNote, verifierKey } from "../../../../worker/domain/transparency/note";
import { followKeys, HANDOVER_LINE, openNote } from "../../../../worker/domain/transparency/verify";

const ORIGIN = "example.test/log";
const root = new Uint8Array(32).fill(9);
const key = () => {
  const seed = generateSigningKey();
  return { seed, vkey: verifierKey(ORIGIN, publicKeyOf(seed)) };
};
/** A handover checkpoint at `size` from `a` to `b`, signed by the given keys. */
const handover = (size: number, to: string, ...seeds: Uint8Array[]) => ({ tree_size: size, note: signNote(checkpointBody(ORIGIN, size, root, [`${HANDOVER_LINE}${to}`]), ORIGIN, ...seeds) });

describe("log-key handover (decision 136)", () => {
  it("a note may carry two signature lines; each key opens it", () => {
    const [a, b] = [key(), key()];
    const h = handover(5, b.vkey, a.seed, b.seed);
    expect(h.note.split("\n").filter((l) => l.startsWith("\u2014 "))).toHaveLength(2);
    expect(openNote(h.note, a.vkey).status).toBe("ok");
    expect(openNote(h.note, b.vkey).status).toBe("ok");
  });

  it("follows a chain of rotations from the pinned key to the current one", () => {
    const [a, b, c] = [key(), key(), key()];
    const chain = [handover(10, c.vkey, b.seed, c.seed), handover(5, b.vkey, a.seed, b.seed)];
    expect(followKeys(a.vkey, chain, c.vkey)).toEqual({ status: "ok", verifier_key: c.vkey, followed: [b.vkey, c.vkey] });
    expect(trustedKey(a.vkey, c.vkey, chain)).toBe(c.vkey);
    // A browser already on b needs only the second.
    expect(trustedKey(b.vkey, c.vkey, chain)).toBe(c.vkey);
  });

  it("refuses a new key no trusted key handed over to", () => {
    const [a, b, c] = [key(), key(), key()];
    // Signed by the new key only.
    expect(followKeys(a.vkey, [handover(5, c.vkey, c.seed)], c.vkey).status).toBe("untrusted");
    // Signed by both, but naming another key than the one the log now uses.
    expect(followKeys(a.vkey, [handover(5, b.vkey, a.seed, b.seed)], c.vkey).status).toBe("untrusted");
    // The old key's signature on a body that names no new key, with the new key's line added.
    const plain = signNote(checkpointBody(ORIGIN, 5, root), ORIGIN, a.seed);
    const withC = plain + signNote(checkpointBody(ORIGIN, 5, root), ORIGIN, c.seed).split("\n\n")[1];
    expect(followKeys(a.vkey, [{ tree_size: 5, note: withC }], c.vkey).status).toBe("untrusted");
    // Naming the new key, but the new key never signed (no proof its holder agreed).
    expect(followKeys(a.vkey, [handover(5, c.vkey, a.seed)], c.vkey).status).toBe("untrusted");
    expect(trustedKey(a.vkey, c.vkey, [handover(5, c.vkey, c.seed)])).toBe(a.vkey);
    // A browser with nothing pinned takes the key it meets, as before.
    expect(trustedKey(null, c.vkey, [])).toBe(c.vkey);
  });
});
