import { readFileSync } from "node:fs";
import * as toml from "smol-toml";
import { describe, expect, it } from "vitest";
import { SECRETS } from "../../../worker/secrets";

/** worker/secrets.ts is the one list of secrets the deploy checks (decision 125). */
const envTs = readFileSync(new URL("../../../worker/env.ts", import.meta.url), "utf8");
const envKeys = new Set([...envTs.matchAll(/^\s+([A-Z][A-Z0-9_]+)\??:/gm)].map((m) => m[1]));

/** Env keys that worker/env.ts documents as secrets: named in a doc comment that says "Secret". */
function documentedSecrets(): string[] {
  const comments = [...envTs.matchAll(/\/\*\*([\s\S]*?)\*\//g)].map((m) => m[1]).filter((c) => /\bSecrets?\b/.test(c));
  return [...new Set(comments.flatMap((c) => [...c.matchAll(/\b([A-Z][A-Z0-9_]{2,})\b/g)].map((m) => m[1])).filter((n) => envKeys.has(n)))].sort();
}

describe("the secrets list", () => {
  it("names every secret worker/env.ts documents, and only Env keys", () => {
    const listed = SECRETS.map((s) => s.name).sort();
    expect(documentedSecrets().length).toBeGreaterThanOrEqual(4);
    expect(listed).toEqual(expect.arrayContaining(documentedSecrets()));
    for (const name of listed) expect(envKeys.has(name)).toBe(true);
    expect(listed).toEqual(expect.arrayContaining(["CARD_KEY", "VAPID_PRIVATE_KEY", "LOG_SIGNING_KEY", "LOG_PSEUDONYM_KEY"]));
  });

  it("never appears as a var in wrangler.toml, at the top or in an environment", () => {
    const config = toml.parse(readFileSync(new URL("../../../wrangler.toml", import.meta.url), "utf8"));
    const vars = [config.vars, ...Object.values(config.env as Record<string, { vars?: object }>).map((e) => e.vars)];
    for (const v of vars) for (const s of SECRETS) expect(v ?? {}).not.toHaveProperty(s.name);
  });
});
