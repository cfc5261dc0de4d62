/**
 * C2SP tlog-tiles: how the log is stored so that anyone can read it without our database, and
 * nothing published is ever rewritten.
 *
 * A tile at tile level L and index N holds, back to back, the 32-byte hashes of Merkle level 8L
 * with indexes N*256 .. N*256+W-1 (W = 256 when full). Hashes of the seven levels between are
 * recomputed from the tile below. A tile at the tree's right edge is partial and published at
 * its own path (".p/W"); when it grows, a new path is written and the old one stays as it was.
 * Entry bundles hold the leaves the same way, each as a big-endian uint16 length and its bytes.
 */
import type { HashId, HashReader } from "./merkle";
import { decodeEntryBundle, encodeIndex, entriesPath, nodeHash, TILE_HEIGHT, TILE_WIDTH, widthSuffix, type Hash } from "./verify";

export { decodeEntryBundle, encodeIndex, entriesPath, TILE_HEIGHT, TILE_WIDTH } from "./verify";
const HASH_SIZE = 32;

export function tilePath(level: number, index: number, width = TILE_WIDTH): string {
  return `tile/${level}/${encodeIndex(index)}${widthSuffix(width)}`;
}

/** How many hashes of Merkle level 8L a tree of `tree_size` has complete. */
const countAt = (tile_level: number, tree_size: number) => Math.floor(tree_size / TILE_WIDTH ** tile_level);

/** The width of tile N at tile level L in a tree of `tree_size` (0: not there yet). */
export function tileWidth(tile_level: number, index: number, tree_size: number): number {
  return Math.max(0, Math.min(TILE_WIDTH, countAt(tile_level, tree_size) - index * TILE_WIDTH));
}

/** Every tile a tree of `tree_size` has, with its width: what a full mirror reads. */
export function tilesForSize(tree_size: number): { level: number; index: number; width: number }[] {
  const out: { level: number; index: number; width: number }[] = [];
  for (let level = 0; countAt(level, tree_size) > 0; level += 1) {
    const count = countAt(level, tree_size);
    for (let index = 0; index * TILE_WIDTH < count; index += 1) out.push({ level, index, width: tileWidth(level, index, tree_size) });
  }
  return out;
}

/** The i-th hash of a tile's bytes. */
function hashAt(tile: Uint8Array, i: number): Hash {
  if ((i + 1) * HASH_SIZE > tile.length) throw new RangeError("hash beyond the tile");
  return tile.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE);
}

/**
 * Reads stored hashes out of the tiles of a tree of `tree_size`; each tile is fetched once per
 * call. `fetch` answers a tile's bytes by path, or null when it is not there.
 */
export function tileReader(fetch: (path: string) => Promise<Uint8Array | null>, tree_size: number): HashReader {
  return async (ids: HashId[]) => {
    const tiles = new Map<string, Promise<Uint8Array>>();
    const tile = (level: number, index: number) => {
      const width = tileWidth(level, index, tree_size);
      const path = tilePath(level, index, width || 1);
      if (!tiles.has(path)) {
        tiles.set(
          path,
          fetch(path).then((bytes) => {
            if (!width || !bytes || bytes.length !== width * HASH_SIZE) throw new Error(`tile ${path} is missing or the wrong size`);
            return bytes;
          }),
        );
      }
      return tiles.get(path)!;
    };
    return Promise.all(
      ids.map(async ({ level, index }) => {
        const tile_level = Math.floor(level / TILE_HEIGHT);
        const below = level % TILE_HEIGHT;
        // The 2^below hashes of level 8L under this node, folded up `below` times.
        const first = index * 2 ** below;
        const n = Math.floor(first / TILE_WIDTH);
        const bytes = await tile(tile_level, n);
        let row = Array.from({ length: 2 ** below }, (_, k) => hashAt(bytes, first - n * TILE_WIDTH + k));
        while (row.length > 1) row = Array.from({ length: row.length / 2 }, (_, k) => nodeHash(row[2 * k], row[2 * k + 1]));
        return row[0];
      }),
    );
  };
}

/**
 * The hash tiles to write after the tree grew from `old_size` to `new_size`: every tile whose
 * contents changed, at its new width. `made` holds the hashes the append created (merkle.ts
 * appendHashes); the old hashes of a growing partial tile come from its previous version.
 */
export async function hashTilesToWrite(
  old_size: number,
  new_size: number,
  made: { id: HashId; hash: Hash }[],
  fetch: (path: string) => Promise<Uint8Array | null>,
): Promise<{ path: string; bytes: Uint8Array }[]> {
  const byId = new Map(made.map((m) => [`${m.id.level}/${m.id.index}`, m.hash]));
  const out: { path: string; bytes: Uint8Array }[] = [];
  for (let level = 0; countAt(level, new_size) > 0; level += 1) {
    const before = countAt(level, old_size);
    const after = countAt(level, new_size);
    if (after === before) continue;
    for (let index = Math.floor(before / TILE_WIDTH); index * TILE_WIDTH < after; index += 1) {
      const width = tileWidth(level, index, new_size);
      const bytes = new Uint8Array(width * HASH_SIZE);
      const kept = Math.max(0, before - index * TILE_WIDTH);
      if (kept > 0) {
        const previous = await fetch(tilePath(level, index, kept));
        if (!previous || previous.length !== kept * HASH_SIZE) throw new Error(`tile ${tilePath(level, index, kept)} is missing`);
        bytes.set(previous, 0);
      }
      for (let k = kept; k < width; k += 1) {
        const hash = byId.get(`${level * TILE_HEIGHT}/${index * TILE_WIDTH + k}`);
        if (!hash) throw new Error(`hash ${level * TILE_HEIGHT}/${index * TILE_WIDTH + k} was not made by this append`);
        bytes.set(hash, k * HASH_SIZE);
      }
      out.push({ path: tilePath(level, index, width), bytes });
    }
  }
  return out;
}

/** Entries as a bundle: each a big-endian uint16 length and its bytes. */
export function encodeEntryBundle(entries: Uint8Array[]): Uint8Array {
  const size = entries.reduce((n, e) => n + 2 + e.length, 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (const e of entries) {
    if (e.length > 0xffff) throw new RangeError("an entry is at most 65,535 bytes");
    out[at] = e.length >> 8;
    out[at + 1] = e.length & 0xff;
    out.set(e, at + 2);
    at += 2 + e.length;
  }
  return out;
}

/** The entry bundles to write after appending `entries` to a log of `old_size` (same rules as hash tiles). */
export async function entryBundlesToWrite(
  old_size: number,
  entries: Uint8Array[],
  fetch: (path: string) => Promise<Uint8Array | null>,
): Promise<{ path: string; bytes: Uint8Array }[]> {
  const new_size = old_size + entries.length;
  const out: { path: string; bytes: Uint8Array }[] = [];
  for (let index = Math.floor(old_size / TILE_WIDTH); index * TILE_WIDTH < new_size; index += 1) {
    const start = index * TILE_WIDTH;
    const width = Math.min(TILE_WIDTH, new_size - start);
    const kept = Math.max(0, old_size - start);
    let previous: Uint8Array[] = [];
    if (kept > 0) {
      const bytes = await fetch(entriesPath(index, kept));
      if (!bytes) throw new Error(`entry bundle ${entriesPath(index, kept)} is missing`);
      previous = decodeEntryBundle(bytes);
      if (previous.length !== kept) throw new Error(`entry bundle ${entriesPath(index, kept)} holds ${previous.length} entries`);
    }
    // The new entries that fall in this bundle: log indexes max(start, old_size) .. start+width-1.
    const fresh = entries.slice(Math.max(start, old_size) - old_size, start + width - old_size);
    out.push({ path: entriesPath(index, width), bytes: encodeEntryBundle([...previous, ...fresh]) });
  }
  return out;
}
