/**
 * `npm run deploy:check`: builds, bundles the Worker exactly as `wrangler deploy` would (dry
 * run, nothing uploaded, offline) and checks the compressed size against Cloudflare's 3 MiB
 * limit for a Worker on the free plan: a bundle over it is refused at deploy time, long after
 * every local test passed. Exits 1 above the limit.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { bin, run } from "./lib";

const GZIP_LIMIT_BYTES = 3 * 1024 * 1024;

/** The uploaded modules of a bundle directory: everything wrangler wrote but source maps and its README. */
function moduleFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && !f.name.endsWith(".map") && f.name !== "README.md")
    .map((f) => join(f.parentPath, f.name));
}

/** Raw and gzip bytes of the modules (each compressed as the upload compresses it). */
function bundleSize(files: string[]): { raw: number; gzip: number } {
  let raw = 0;
  let gzip = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip };
}

const kib = (n: number) => (n / 1024).toFixed(1);

async function main() {
  await run(bin("remix"), ["build"]);
  const outdir = mkdtempSync(join(tmpdir(), "proofline-deploy-check-"));
  try {
    await run(bin("wrangler"), ["deploy", "--dry-run", "--outdir", outdir]);
    const files = moduleFiles(outdir);
    if (files.length === 0) throw new Error(`wrangler wrote no modules to ${outdir}`);
    const { raw, gzip } = bundleSize(files);
    console.log(`bundle: ${kib(raw)} KiB, gzip: ${kib(gzip)} KiB (limit 3 MiB)`);
    if (gzip > GZIP_LIMIT_BYTES) {
      console.error(`deploy check failed: the compressed bundle is ${kib(gzip - GZIP_LIMIT_BYTES)} KiB over the limit`);
      process.exitCode = 1;
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

await main();
