import { describe, expect, it } from "vitest";
import { base64urlnopad } from "@scure/base";
import { decryptPush, encryptPush, importP256Private, keyBytes, subscriberOf } from "../../../worker/push/ece";

/** RFC 8291 Appendix A: the example message, its keys, salt and the exact body it encrypts to. */
const RFC = {
  plaintext: "When I grow up, I want to be a watermelon",
  as_private: "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw",
  as_public: "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8",
  ua_private: "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94",
  ua_public: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
  salt: "DGv6ra1nlYgDCS1FRnbzlw",
  auth: "BTBZMqHH6r4Tts7J_aSIgg",
  body:
    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27ml" +
    "mlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPT" +
    "pK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN",
};
const bytes = (s: string) => keyBytes(s)!;
const utf8 = new TextEncoder();

describe("Web Push encryption (RFC 8291, aes128gcm)", () => {
  const to = subscriberOf(RFC.ua_public, RFC.auth)!;

  it("encrypts the RFC's example to its exact body", async () => {
    const as_private = await importP256Private(RFC.as_private, bytes(RFC.as_public));
    const body = await encryptPush(to, utf8.encode(RFC.plaintext), { salt: bytes(RFC.salt), as_private, as_public: bytes(RFC.as_public) });
    expect(base64urlnopad.encode(body)).toBe(RFC.body);
  });

  it("decrypts the RFC's body with the receiver's key, and a fresh message round-trips", async () => {
    const ua = { private_key: await importP256Private(RFC.ua_private, bytes(RFC.ua_public)), ...to };
    expect(new TextDecoder().decode(await decryptPush(bytes(RFC.body), ua))).toBe(RFC.plaintext);
    const fresh = await encryptPush(to, utf8.encode("ยอดคงเหลือ 12.50 USDT"));
    expect(base64urlnopad.encode(fresh)).not.toContain(RFC.salt);
    expect(new TextDecoder().decode(await decryptPush(fresh, ua))).toBe("ยอดคงเหลือ 12.50 USDT");
  });

  it("a tampered body does not decrypt", async () => {
    const ua = { private_key: await importP256Private(RFC.ua_private, bytes(RFC.ua_public)), ...to };
    const body = bytes(RFC.body);
    body[body.length - 1] ^= 0x40;
    await expect(decryptPush(body, ua)).rejects.toThrow();
  });

  it("refuses keys that are not a P-256 point and a 16-byte secret", () => {
    expect(subscriberOf(RFC.ua_public, "c2hvcnQ")).toBeNull();
    expect(subscriberOf(RFC.auth, RFC.auth)).toBeNull();
    expect(subscriberOf("not base64!", RFC.auth)).toBeNull();
  });
});
