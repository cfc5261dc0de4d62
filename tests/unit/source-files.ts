import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Every file under `dir` whose name `keep` accepts (TypeScript by default), folders named in
 * `skip` left out: the one walker the tests that read the tree's own source share.
 */
export function sourceFiles(dir: string, keep: (name: string) => boolean = (name) => /\.tsx?$/.test(name), skip: readonly string[] = []): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (skip.includes(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path, keep, skip) : keep(name) ? [path] : [];
  });
}
