/**
 * The witnesses' setting (LOG_WITNESSES, LOG_WITNESS_QUORUM) and the add-checkpoint request
 * body (C2SP tlog-witness), as plain functions.
 */
import { describe, expect, it } from "vitest";
import { generateSigningKey, publicKeyOf, verifierKey, witnessVerifierKey } from "../../../../worker/domain/transparency/note";
import { b64decode, hex } from "../../../../worker/domain/transparency/verify";
import { addCheckpointBody, parseWitnessConfig, withCosignatures } from "../../../../worker/domain/transparency/witnesses";

const keys = [generateSigningKey(), generateSigningKey()].map((k, i) => witnessVerifierKey(`w${i}.example/w`, publicKeyOf(k)));

describe("LOG_WITNESSES and LOG_WITNESS_QUORUM", () => {
  it("empty is no witnesses and a quorum of 0", () => {
    expect(parseWitnessConfig("", "")).toEqual({ witnesses: [], quorum: 0 });
    expect(parseWitnessConfig(undefined, undefined)).toEqual({ witnesses: [], quorum: 0 });
  });

  it("one witness a line (or comma): its key checked, its URL kept without a trailing slash; the quorum is all of them unless set", () => {
    const c = parseWitnessConfig(`${keys[0]} https://w0.example/w/\n  ${keys[1]}   https://w1.example/w`, "");
    expect(c.quorum).toBe(2);
    expect(c.witnesses.map((w) => [w.name, w.url, w.vkey])).toEqual([
      ["w0.example/w", "https://w0.example/w", keys[0]],
      ["w1.example/w", "https://w1.example/w", keys[1]],
    ]);
    expect(hex(c.witnesses[0].key_id)).toBe(keys[0].split("+")[1]);
    expect(parseWitnessConfig(`${keys[0]} https://a.example,${keys[1]} https://b.example`, "1").quorum).toBe(1);
    expect(parseWitnessConfig(`${keys[0]} http://127.0.0.1:9000`, "1").witnesses[0].url).toBe("http://127.0.0.1:9000");
  });

  it("anything malformed throws rather than running with fewer witnesses than written down", () => {
    const bad: [string, string][] = [
      [`${keys[0]}`, "1"], // no URL
      [`${keys[0]} https://a.example extra`, "1"],
      [`${keys[0]} http://a.example`, "1"], // not https
      [`${keys[0]} not a url`, "1"],
      [`${verifierKey("w0.example/w", publicKeyOf(generateSigningKey()))} https://a.example`, "1"], // a note key (0x01), not a witness key
      [`${keys[0].replace(/\+[0-9a-f]{8}\+/, "+00000000+")} https://a.example`, "1"], // wrong key id
      [`${keys[0]} https://a.example\n${keys[0]} https://b.example`, "1"], // the same name twice
      [`${keys[0]} https://a.example`, "2"], // quorum above the witnesses
      [`${keys[0]} https://a.example`, "0"],
      [`${keys[0]} https://a.example`, "one"],
      ["", "1"], // a quorum of no witnesses
    ];
    for (const [list, quorum] of bad) expect(() => parseWitnessConfig(list, quorum), `${list} / ${quorum}`).toThrow();
  });
});

describe("add-checkpoint", () => {
  const note = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n";

  it("is the old size line, one base64 hash a line, a blank line and the note (the spec's example)", () => {
    const proof = ["PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=", "jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk="].map(b64decode);
    expect(addCheckpointBody(20852014, proof, note)).toBe(`old 20852014\nPlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\njrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n\n${note}`);
    expect(addCheckpointBody(0, [], note)).toBe(`old 0\n\n${note}`);
  });

  it("a served note is the log's note with each cosignature line after it", () => {
    expect(withCosignatures(note, ["\u2014 w a", "\u2014 v b"])).toBe(`${note}\u2014 w a\n\u2014 v b\n`);
    expect(withCosignatures(note, [])).toBe(note);
  });
});
