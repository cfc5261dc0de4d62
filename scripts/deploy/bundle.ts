/**
 * The Worker's bundle as `wrangler deploy` uploads it, and its size against Cloudflare's limit
 * (`npm run deploy:check` and the deploy preflight share this). A bundle over the limit is
 * refused at upload, long after every local test passed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { bin, run } from "../lib";

/** Cloudflare's limit for a Worker on the free plan, compressed (the paid plan allows 10 MiB). */
export const GZIP_LIMIT_BYTES = 3 * 1024 * 1024;

/** The uploaded modules of a bundle directory: everything wrangler wrote but source maps and its README. */
export function moduleFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && !f.name.endsWith(".map") && f.name !== "README.md")
    .map((f) => join(f.parentPath, f.name));
}

/** Raw and gzip bytes of the modules (each compressed as the upload compresses it). */
export function bundleSize(files: string[]): { raw: number; gzip: number } {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip };
}

export const kib = (n: number) => (n / 1024).toFixed(1);

export type BundleMeasure = { raw_bytes: number; gzip_bytes: number; limit_bytes: number };

/**
 * Bundles the Worker with `wrangler deploy --dry-run` (offline, nothing uploaded) for one
 * environment ("" is the top-level, local configuration) and measures it. Needs `remix build` first.
 */
export async function measureBundle(envName: string): Promise<BundleMeasure> {
  const outdir = mkdtempSync(join(tmpdir(), "proofline-bundle-"));
  try {
    await run(bin("wrangler"), ["deploy", "--dry-run", "--outdir", outdir, `--env=${envName}`]);
    const files = moduleFiles(outdir);
    if (files.length === 0) throw new Error(`wrangler wrote no modules to ${outdir}`);
    const { raw, gzip } = bundleSize(files);
    return { raw_bytes: raw, gzip_bytes: gzip, limit_bytes: GZIP_LIMIT_BYTES };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** One line for the operator; `over` when the upload would be refused. */
export function describeBundle(m: BundleMeasure): { line: string; over: boolean } {
  const over = m.gzip_bytes > m.limit_bytes;
  const line = `bundle: ${kib(m.raw_bytes)} KiB, gzip: ${kib(m.gzip_bytes)} KiB (limit ${kib(m.limit_bytes)} KiB)` +
    (over ? `: ${kib(m.gzip_bytes - m.limit_bytes)} KiB over the limit` : "");
  return { line, over };
}
