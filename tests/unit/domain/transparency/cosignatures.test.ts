/**
 * Witness cosignatures (C2SP tlog-cosignature v1, Ed25519) against a fixed vector, and the
 * quorum rule every verifier applies (checkWitnesses in verify.ts).
 *
 * The vector was derived from the spec with Node's own crypto (OpenSSL), not with the code under
 * test: the witness key is RFC 8032's test 1 key (secret 9d61b1..., public d75a98...), the name
 * "witness.example/w1", the checkpoint body and time those of the spec's own example. Key id =
 * SHA-256("witness.example/w1" || 0x0A || 0x04 || public key)[:4] = eb762cc2; the signed
 * message is "cosignature/v1\ntime 1679315147\n" followed by the body; the line carries
 * base64(key id || u64be(1679315147) || signature).
 */
import { describe, expect, it } from "vitest";
import { checkpointBody, cosign, generateSigningKey, publicKeyOf, signNote, verifierKey, witnessVerifierKey } from "../../../../worker/domain/transparency/note";
import { b64decode, b64encode, checkCosignatureLine, checkWitnesses, cosignatureKeyId, hex, openNote, parseWitnessKey } from "../../../../worker/domain/transparency/verify";

const SEED = Uint8Array.from(Buffer.from("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "hex"));
const NAME = "witness.example/w1";
const VKEY = "witness.example/w1+eb762cc2+BNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea";
const BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
const TIME = 1679315147;
const LINE = "\u2014 witness.example/w1 63YswgAAAABkGFDL+TPmh4BYuAjsYRoqMJCWb/gWJaeRF/kmm5tlCr9sJ57DLErur7K0yDXc2ArN+TIuotuB/HbuL3AJsp3bv/aNCQ==";

describe("cosignature/v1: the fixed vector", () => {
  it("key id, verifier key and the signature line are the spec's, byte for byte", () => {
    expect(hex(publicKeyOf(SEED))).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    expect(hex(cosignatureKeyId(NAME, publicKeyOf(SEED)))).toBe("eb762cc2");
    expect(witnessVerifierKey(NAME, publicKeyOf(SEED))).toBe(VKEY);
    expect(cosign(BODY, NAME, SEED, TIME)).toBe(LINE);
    const key = parseWitnessKey(VKEY)!;
    expect(checkCosignatureLine(LINE, BODY, key)).toEqual({ status: "ok", timestamp_s: TIME });
  });

  it("the line's layout is that of the spec's own example: 76 bytes, key id, then the time big-endian", () => {
    // The spec's example cosignature line (witness.example.com/w1, time 1679315147).
    const example = b64decode("jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==");
    const ours = b64decode(LINE.split(" ")[2]);
    for (const raw of [example, ours]) {
      expect(raw.length).toBe(76);
      expect(new DataView(raw.buffer, raw.byteOffset).getBigUint64(4)).toBe(BigInt(TIME));
    }
    expect(hex(ours.slice(0, 4))).toBe("eb762cc2");
  });

  it("the time is signed: the same signature at another second, or over another body, fails", () => {
    const key = parseWitnessKey(VKEY)!;
    const raw = b64decode(LINE.split(" ")[2]);
    raw[11] ^= 1;
    expect(checkCosignatureLine(`\u2014 ${NAME} ${b64encode(raw)}`, BODY, key).status).toBe("bad_signature");
    expect(checkCosignatureLine(LINE, BODY.replace("20852163", "20852164"), key).status).toBe("bad_signature");
    // A log's note signature (key type 0x01) is not a witness key, and a note key is not a witness's.
    expect(parseWitnessKey(verifierKey(NAME, publicKeyOf(SEED)))).toBeNull();
    expect(parseWitnessKey(VKEY.replace("eb762cc2", "eb762cc3"))).toBeNull();
  });
});

describe("checkWitnesses: the quorum", () => {
  const logSeed = generateSigningKey();
  const logKey = verifierKey("localhost/proofline", publicKeyOf(logSeed));
  const body = checkpointBody("localhost/proofline", 42, new Uint8Array(32).fill(7));
  const note = signNote(body, "localhost/proofline", logSeed);
  const seeds = [generateSigningKey(), generateSigningKey(), generateSigningKey()];
  const names = ["w1.example/w", "w2.example/w", "w3.example/w"];
  const vkeys = seeds.map((s, i) => witnessVerifierKey(names[i], publicKeyOf(s)));
  const line = (i: number, over = body) => `${cosign(over, names[i], seeds[i], 1_800_000_000 + i)}\n`;

  it("accepts a note with a quorum of cosignatures; the log's own signature still opens it", () => {
    const cosigned = note + line(0) + line(2);
    expect(openNote(cosigned, logKey).status).toBe("ok");
    const r = checkWitnesses(cosigned, vkeys, 2);
    expect(r).toMatchObject({ status: "ok", quorum: 2, cosigned: [{ name: names[0], timestamp_s: 1_800_000_000 }, { name: names[2], timestamp_s: 1_800_000_002 }], missing: [{ name: names[1], reason: "absent" }] });
  });

  it("refuses a note lacking the quorum, and says which witnesses are missing", () => {
    expect(checkWitnesses(note, vkeys, 1)).toMatchObject({ status: "no_quorum", cosigned: [], missing: names.map((name) => ({ name, reason: "absent" })) });
    expect(checkWitnesses(note + line(1), vkeys, 2)).toMatchObject({ status: "no_quorum", missing: [{ name: names[0] }, { name: names[2] }] });
    // One witness twice is still one witness.
    expect(checkWitnesses(note + line(1) + line(1), [vkeys[1], vkeys[1], vkeys[0]], 2).status).toBe("no_quorum");
  });

  it("refuses a forged cosignature: right name and key id, wrong key; or a real one over another checkpoint", () => {
    const forger = generateSigningKey();
    const raw = b64decode(cosign(body, names[0], forger, 1_800_000_000).split(" ")[2]);
    raw.set(cosignatureKeyId(names[0], publicKeyOf(seeds[0])), 0);
    const forged = `\u2014 ${names[0]} ${b64encode(raw)}\n`;
    const r = checkWitnesses(note + forged + line(1), vkeys, 2);
    expect(r).toMatchObject({ status: "no_quorum", cosigned: [{ name: names[1] }] });
    expect(r.status !== "bad_format" && r.missing).toContainEqual({ name: names[0], reason: "bad_signature" });
    const otherBody = checkpointBody("localhost/proofline", 41, new Uint8Array(32).fill(7));
    expect(checkWitnesses(note + line(0, otherBody) + line(1), vkeys, 2)).toMatchObject({ status: "no_quorum", missing: [{ name: names[0], reason: "bad_signature" }, { name: names[2], reason: "absent" }] });
  });

  it("with no witnesses configured every signed note passes; a malformed note or key does not", () => {
    expect(checkWitnesses(note, [], 0).status).toBe("ok");
    expect(checkWitnesses(body, vkeys, 1).status).toBe("bad_format");
    expect(checkWitnesses(note + line(0), ["nonsense"], 1)).toMatchObject({ status: "no_quorum", missing: [{ reason: "bad_key" }] });
  });
});
