import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { RESOURCES, type Messages } from "../../locales";
import { LANGUAGES } from "../../locales/languages";
import { REASON_CODES } from "../../worker/domain/ledger/reasons";
import { CHECK_NAMES, CHECK_REASONS } from "../../worker/observability/checks";
import { CRON_JOBS } from "../../worker/cron";
import { AUDIT_ACTIONS, auditActionKey } from "../../worker/domain/audit/actions";
import { MAIL_KINDS } from "../../worker/mail/templates";
import { CODE_ERROR_KEYS } from "../../worker/api/resources/code-answers";
import { CONTACT_REFUSALS } from "../../worker/domain/profiles/contacts";
import { login_attempts } from "../../worker/db/schema";

const root = join(__dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && /\.tsx?$/.test(f.name))
    .map((f) => join(f.parentPath, f.name));
}

/** The string at a dotted path, or undefined. */
function lookup(messages: Messages, path: string): unknown {
  return path.split(".").reduce<unknown>((node, k) => (node && typeof node === "object" ? (node as Messages)[k] : undefined), messages);
}

describe("ledger reasons have words in every language", () => {
  for (const l of LANGUAGES) {
    it(`${l.key}: a statement label for each of the ${REASON_CODES.length} reason codes`, () => {
      const missing = REASON_CODES.filter((code) => typeof lookup(RESOURCES[l.key].wallet, `record.code.${code}`) !== "string");
      expect(missing, `${l.key}/wallet.json record.code lacks`).toEqual([]);
    });
  }

  it("every reason written as a string in money code is a known reason", () => {
    // Files that build transfers; a reason code there that REASON_CODES lacks would show raw.
    const reasonLike = /["'](deposit|demo_grant|(?:trade|withdrawal|adjustment)_[a-z_]+)["']/g;
    const unknown: string[] = [];
    for (const file of [...sourceFiles("worker"), ...sourceFiles("durable-objects"), ...sourceFiles("scripts")]) {
      const text = readFileSync(file, "utf8");
      if (!/ledger\/transfer["']/.test(text)) continue;
      for (const [, code] of text.matchAll(reasonLike)) {
        if (!(REASON_CODES as readonly string[]).includes(code)) unknown.push(`${relative(root, file)}: ${code}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});

describe("every error the Worker names exists in every language", () => {
  // Literal keys only ("errors.x", 'errors.x', `errors.x`); keys built from a status are
  // covered by the API tests of each resource.
  const keys = new Set<string>();
  for (const file of sourceFiles("worker")) {
    for (const [, key] of readFileSync(file, "utf8").matchAll(/["'`]errors\.([A-Za-z0-9_.]+)["'`]/g)) keys.add(key);
  }

  it("finds the keys it checks", () => {
    expect(keys.size).toBeGreaterThan(40);
    expect(keys).toContain("unauthorized");
  });

  for (const l of LANGUAGES) {
    it(`${l.key}/errors.json has every key`, () => {
      // A message with plural forms exists as its `_other` form (every language has one).
      const has = (key: string) => [key, `${key}_other`].some((k) => typeof lookup(RESOURCES[l.key].errors, k) === "string");
      const missing = [...keys].filter((key) => !has(key)).sort();
      expect(missing).toEqual([]);
    });
  }
});

describe("the operations page's checks, reasons and cron jobs have words in every language", () => {
  // The cron's jobs, and the one pseudo-job a run records when its backlog figures fail.
  const jobs = [...CRON_JOBS.map((j) => j.name), "backlog_figures"];
  const wanted = [
    ...CHECK_NAMES.map((name) => `operations.check.${name}`),
    ...CHECK_REASONS.map((reason) => `operations.reason.${reason}`),
    ...jobs.map((job) => `operations.job.${job}`),
  ];

  it("enumerates every check, reason and job", () => {
    expect(CHECK_NAMES).toContain("cron");
    expect(CHECK_REASONS).toContain("cron_no_run");
    expect(jobs).toContain("settlement_sweep");
    expect(wanted.length).toBe(CHECK_NAMES.length + CHECK_REASONS.length + jobs.length);
  });

  for (const l of LANGUAGES) {
    it(`${l.key}/admin.json names each of the ${wanted.length}`, () => {
      expect(wanted.filter((key) => typeof lookup(RESOURCES[l.key].admin, key) !== "string")).toEqual([]);
    });
  }

  it("every reason readiness gives is a known code", () => {
    const text = readFileSync(join(root, "worker/observability/readiness.ts"), "utf8");
    const given = [...text.matchAll(/(?:reason: |"ms", |"count", )"([a-z_]+)"/g)].map(([, code]) => code);
    expect(given.length).toBeGreaterThan(8);
    expect(given.filter((code) => !(CHECK_REASONS as readonly string[]).includes(code))).toEqual([]);
  });
});

describe("every audit action has words in every language", () => {
  for (const l of LANGUAGES) {
    it(`${l.key}/admin.json labels each of the ${AUDIT_ACTIONS.length} actions`, () => {
      expect(AUDIT_ACTIONS.filter((a) => typeof lookup(RESOURCES[l.key].admin, auditActionKey(a)) !== "string")).toEqual([]);
    });
  }

  it("every action written in SQL or by a script is a known action (the type holds the rest)", () => {
    const unknown: string[] = [];
    for (const file of [...sourceFiles("worker"), ...sourceFiles("scripts")]) {
      const text = readFileSync(file, "utf8");
      for (const [, code] of text.matchAll(/INSERT INTO audit_log[^']*'([a-z_]+\.[a-z_]+)'/g)) {
        if (!(AUDIT_ACTIONS as readonly string[]).includes(code)) unknown.push(`${relative(root, file)}: ${code}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});

describe("codes, mail and recovery have words in every language (decision 138)", () => {
  const errors = [...CODE_ERROR_KEYS, ...CONTACT_REFUSALS.map((r) => `errors.${r}`)].map((k) => k.replace(/^errors\./, ""));
  const mail = [...MAIL_KINDS.flatMap((k) => [`${k}.subject`, `${k}.body`]), "footer", "sms_code"];
  const methods = login_attempts.method.enumValues.map((m) => `devices.method_${m}`);

  it("enumerates every refusal, mail and sign-in method", () => {
    expect(errors).toEqual(expect.arrayContaining(["code_wrong", "code_void", "code_expired", "code_resend_wait", "code_limit", "sms_unavailable"]));
    expect(MAIL_KINDS).toContain("code_reset_password");
    expect(methods).toContain("devices.method_recovery");
  });

  for (const l of LANGUAGES) {
    it(`${l.key}: errors, mail.json and the sign-in history name each`, () => {
      const r = RESOURCES[l.key];
      expect(errors.filter((k) => typeof lookup(r.errors, k) !== "string")).toEqual([]);
      expect(mail.filter((k) => typeof lookup(r.mail, k) !== "string")).toEqual([]);
      expect(methods.filter((k) => typeof lookup(r.me, k) !== "string")).toEqual([]);
    });
  }
});
