import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoUtc, mayRunAsFormula, toCsv, utcDayStart } from "../../../worker/domain/export/csv";

/** RFC 4180 read back. */
function parse(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(field), (field = "");
    else if (ch === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), i++;
    else field += ch;
  }
  return rows;
}

describe("CSV (RFC 4180)", () => {
  it("quotes commas, quotes and line breaks, and ends every record with CRLF", () => {
    expect(toCsv(["a", "b"], [["x,y", 'say "hi"'], ["line\nbreak", null], [12, "-3.50"]])).toBe('a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",\r\n12,-3.50\r\n');
  });

  it("a cell that a spreadsheet would run as a formula is kept as text", () => {
    expect(toCsv(["a"], [["=SUM(A1)"], ["@x"], ["+1"]])).toBe("a\r\n\"'=SUM(A1)\"\r\n\"'@x\"\r\n\"'+1\"\r\n");
  });

  it("OWASP's whole list: = + - @ TAB and CR, and a minus that is not a plain number", () => {
    const guarded = (cell: string) => parse(toCsv(["a"], [[cell]]))[1][0];
    for (const cell of ["-1+cmd|' /C calc'!A0", "-2+3", "-x", "-", "--1", "-1e3", "-1.", "-.5", "-1.2.3", "\t=1+1", "\tx", "\r=1+1", "\rx", "-12.50\n=1"]) {
      expect(guarded(cell), JSON.stringify(cell)).toBe(`'${cell}`);
    }
  });

  it("a plain negative amount stays a number", () => {
    expect(toCsv(["a", "b", "c"], [["-12.50", "-3", -7]])).toBe("a,b,c\r\n-12.50,-3,-7\r\n");
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: -1 }), fc.integer({ min: 0, max: 6 }), (micro, decimals) => {
        const text = (micro / 10 ** decimals).toFixed(decimals);
        expect(toCsv(["a"], [[text]])).toBe(`a\r\n${text}\r\n`);
      }),
    );
  });

  it("no cell a spreadsheet could run leaves without its apostrophe, whatever follows the first character", () => {
    const rest = fc.string({ unit: fc.constantFrom("1", "2", ".", "+", "-", "=", "(", ")", "a", "|", "!", " ", "\t", "\r", "\n", ","), maxLength: 10 });
    fc.assert(
      fc.property(fc.constantFrom("=", "+", "-", "@", "\t", "\r"), rest, (first, tail) => {
        const cell = first + tail;
        const read = parse(toCsv(["a"], [[cell]]))[1][0];
        const plainNegative = /^-\d+(?:\.\d+)?$/.test(cell);
        expect(read).toBe(plainNegative ? cell : `'${cell}`);
        expect(mayRunAsFormula(cell)).toBe(!plainNegative);
      }),
    );
  });

  it("reads back to the same fields, whatever they hold (a cell that may run as a formula gets its apostrophe)", () => {
    const cell = fc.string({ unit: fc.constantFrom("a", "Z", "1", ",", '"', "\r", "\n", "\t", " ", "-", "=", "é", "ไ"), maxLength: 12 });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { maxLength: 8 }), (rows) => {
        const shown = rows.map((r) => r.map((c) => (mayRunAsFormula(c) ? `'${c}` : c)));
        expect(parse(toCsv(["x", "y", "z"], rows))).toEqual([["x", "y", "z"], ...shown]);
      }),
    );
  });

  it("dates: only real UTC days; times as ISO 8601 UTC", () => {
    expect(utcDayStart("2026-11-23")).toBe(Date.UTC(2026, 10, 23));
    for (const bad of ["2026-02-30", "2026-1-02", "23/11/2026", ""]) expect(utcDayStart(bad)).toBeNull();
    expect(isoUtc(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("2026-01-02T03:04:05.000Z");
    expect(isoUtc(null)).toBe("");
  });
});
