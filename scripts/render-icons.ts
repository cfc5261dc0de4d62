/**
 * Renders the app icons once from their SVG sources (public/icons/*.svg) to the PNGs the web
 * app manifest and iOS need. Run it after changing an SVG and commit the PNGs:
 *
 *   npx tsx scripts/render-icons.ts
 *
 * Debian's Chromium draws them (the same browser the journeys use; no image library to add).
 * The plain icon keeps its transparent rounded corners; the maskable one is full-bleed with the
 * mark inside the central 80 % circle that every launcher mask keeps.
 */
import { readFileSync } from "node:fs";
import { chromium } from "@playwright/test";

const DIR = new URL("../public/icons/", import.meta.url);
const OUTPUTS = [
  { svg: "icon.svg", png: "icon-192.png", size: 192 },
  { svg: "icon.svg", png: "icon-512.png", size: 512 },
  { svg: "icon-maskable.svg", png: "icon-maskable-512.png", size: 512 },
  // iOS ignores the manifest's icons and takes this one, without transparency.
  { svg: "icon-maskable.svg", png: "apple-touch-icon-180.png", size: 180 },
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const out of OUTPUTS) {
    const svg = readFileSync(new URL(out.svg, DIR), "utf8");
    await page.setViewportSize({ width: out.size, height: out.size });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace("<svg ", `<svg width="${out.size}" height="${out.size}" style="display:block" `)}</body></html>`);
    await page.locator("svg").screenshot({ path: new URL(out.png, DIR).pathname, omitBackground: true });
    console.log(`public/icons/${out.png} ${out.size}×${out.size}`);
  }
} finally {
  await browser.close();
}
