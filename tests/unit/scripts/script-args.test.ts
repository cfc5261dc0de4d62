import { describe, expect, it } from "vitest";
import { DEFAULT_PERSIST_TO, UsageError } from "../../../scripts/args";
import { ledgerCheckArgs } from "../../../scripts/ledger-check";
import { operatorCreateArgs } from "../../../scripts/operator-create";
import { seedArgs } from "../../../scripts/seed";

/**
 * The scripts that read local state take `--persist-to` in both spellings, and refuse a flag
 * they do not know: a typo must not send a command to the default state without a word.
 */
const persistTo = [
  ["ledger:check", (argv: string[]) => ledgerCheckArgs(argv).persist_to],
  ["seed", (argv: string[]) => seedArgs(argv).persist_to],
  ["operator:create", (argv: string[]) => operatorCreateArgs(["ops1", ...argv]).persist_to],
] as const;

describe("script arguments (node:util parseArgs)", () => {
  for (const [name, read] of persistTo) {
    it(`${name}: --persist-to=DIR and --persist-to DIR are both honoured; none means the default state`, () => {
      expect(read(["--persist-to=/tmp/state-a"])).toBe("/tmp/state-a");
      expect(read(["--persist-to", "/tmp/state-b"])).toBe("/tmp/state-b");
      expect(read([])).toBe(DEFAULT_PERSIST_TO);
    });

    it(`${name}: an unknown flag is refused, naming it, with the usage`, () => {
      const run = () => read(["--persist=/tmp/typo"]);
      expect(run).toThrow(UsageError);
      expect(run).toThrow(/Unknown option '--persist'[\s\S]*usage: /);
    });

    it(`${name}: --persist-to without its directory is refused`, () => {
      expect(() => read(["--persist-to"])).toThrow(/--persist-to[\s\S]*usage: /);
    });
  }

  it("operator:create: one account; flags anywhere; a second word (a password?) is refused", () => {
    expect(operatorCreateArgs(["--print-sql", "ops1", "--persist-to=/tmp/s"])).toEqual({ account: "ops1", persist_to: "/tmp/s", print_sql: true, reset_two_factor: false });
    expect(operatorCreateArgs(["ops1", "--reset-two-factor"])).toMatchObject({ account: "ops1", reset_two_factor: true });
    expect(() => operatorCreateArgs([])).toThrow(/usage: npm run operator:create/);
    expect(() => operatorCreateArgs(["ops1", "secret123"])).toThrow(/not taken from the command line/);
  });
});
