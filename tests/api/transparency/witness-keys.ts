/**
 * The witnesses the `api-witnessed` project configures (vitest.config.ts): three fixed Ed25519
 * keys, a quorum of two. The tests play the witnesses themselves with the same keys.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { publicKeyOf, witnessVerifierKey } from "../../../worker/domain/transparency/note";

export const TEST_WITNESSES = [1, 2, 3].map((i) => {
  const name = `w${i}.witness.test/proofline`;
  const seed = sha256(new TextEncoder().encode(`proofline test witness ${i}`));
  return { name, seed, vkey: witnessVerifierKey(name, publicKeyOf(seed)), url: `https://w${i}.witness.test/prefix` };
});
export const TEST_WITNESS_QUORUM = 2;

/** LOG_WITNESSES and LOG_WITNESS_QUORUM as a deployer would write them. */
export function witnessBindings(): { LOG_WITNESSES: string; LOG_WITNESS_QUORUM: string } {
  return { LOG_WITNESSES: TEST_WITNESSES.map((w) => `${w.vkey} ${w.url}`).join("\n"), LOG_WITNESS_QUORUM: String(TEST_WITNESS_QUORUM) };
}
