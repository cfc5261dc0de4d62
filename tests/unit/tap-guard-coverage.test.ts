import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./source-files";

/**
 * Every submitting button goes through the tap rule (decision 142): a form's submit event is
 * guarded app-wide by UiProvider, so what is left to check is code that submits by itself. A
 * fetcher whose `.submit(` is called must come from `useGuardedFetcher` (or the console's
 * `useConsoleFetcher`, built on it), and `useSubmit` is wrapped only by `useGuardedSubmit`, or
 * be listed here with the reason it is not a repeated tap.
 */
const NOT_A_TAP: Record<string, string> = {
  "app/components/admin/step-up.tsx fetcher": "the code prompt's own fetcher.Form (a form: guarded by UiProvider)",
  "app/components/money/image-upload.tsx fetcher": "a file input's change, not a tap; the input is disabled while it uploads",
  "app/components/notifications/push-settings.tsx fetcher": "switches: each change is a new setting, and the subscription follows the browser's answer",
  "app/components/passkey-sign-in.tsx verify": "sent once the authenticator answers, not by a tap",
  "app/components/service/pending-sender.tsx upload": "the chat's queue: one upload per queued picture",
  "app/components/service/pending-sender.tsx send": "the chat's queue: one send per queued message",
  "app/components/shell/theme-switch.tsx fetcher": "a radio group: only a different choice is sent",
  "app/routes/auth/wallet-login.tsx fetcher": "sent once the wallet has signed; its buttons are disabled meanwhile",
  "app/routes/me/limits.tsx fetcher": "called from the forms' onSubmit (a form: guarded by UiProvider)",
  "app/routes/me/passkeys.tsx verify": "sent once the authenticator answers, not by a tap",
  "app/routes/me/profile.tsx save": "called from the form's onSubmit or after its upload (a form: guarded by UiProvider)",
  "app/routes/me/profile.tsx sign": "called from the form's onSubmit (a form: guarded by UiProvider)",
  "app/routes/me/settings.tsx langFetcher": "a radio group: only a different language is sent",
};

const sources = (dir: string) => sourceFiles(dir);

const root = join(import.meta.dirname, "../..");
const files = sources(join(root, "app")).map((path) => ({ file: relative(root, path), text: readFileSync(path, "utf8") }));

describe("every submitting button goes through the tap rule", () => {
  it("a fetcher submitted by code is guarded, or listed with its reason", () => {
    const unguarded: string[] = [];
    for (const { file, text } of files) {
      for (const [, name] of text.matchAll(/const (\w+) = useFetcher\b/g)) {
        if (new RegExp(`\\b${name}\\.submit\\(`).test(text)) unguarded.push(`${file} ${name}`);
      }
    }
    expect(unguarded.filter((key) => !(key in NOT_A_TAP))).toEqual([]);
    // The list holds no stale entry: each still names such a fetcher.
    expect(Object.keys(NOT_A_TAP).filter((key) => !unguarded.includes(key))).toEqual([]);
  });

  it("useSubmit is used only through useGuardedSubmit", () => {
    const users = files.filter(({ text }) => /\buseSubmit\(/.test(text)).map(({ file }) => file);
    expect(users).toEqual(["app/lib/tap-guard.ts"]);
  });

  it("the form guard is installed once, in UiProvider's TapGuard", () => {
    const installs = files.filter(({ text }) => /^\s*useFormTapGuard\(\);/m.test(text)).map(({ file }) => file);
    expect(installs).toEqual(["app/components/ui.tsx"]);
  });
});
