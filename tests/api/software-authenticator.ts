import { isoCBOR } from "@simplewebauthn/server/helpers";
import { concatBytes as concat } from "@noble/hashes/utils.js";
import { base64urlnopad } from "@scure/base";

/**
 * A software authenticator on WebCrypto (P-256, ES256, "none" attestation) for the API tests:
 * it answers WebAuthn options exactly as a browser with a platform authenticator would, and
 * keeps a signature counter, so the server's checks can be driven to refuse.
 */
export class SoftwareAuthenticator {
  private constructor(
    private readonly keys: CryptoKeyPair,
    readonly credentialId: Uint8Array,
    readonly origin: string,
    readonly rpId: string,
    public counter = 0,
  ) {}

  static async create(origin = "http://localhost") {
    const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    return new SoftwareAuthenticator(keys, crypto.getRandomValues(new Uint8Array(32)), origin, new URL(origin).hostname);
  }

  get id(): string {
    return base64urlnopad.encode(this.credentialId);
  }

  /** The RegistrationResponseJSON for `challenge`, as @simplewebauthn/browser posts it. */
  async register(challenge: string) {
    const cose = await this.coseKey();
    const idLen = new Uint8Array([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    const authData = concat(await this.authDataHead(0x45), new Uint8Array(16), idLen, this.credentialId, cose);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]) as never);
    const clientDataJSON = this.clientData("webauthn.create", challenge);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON: b64(clientDataJSON), attestationObject: b64(attestationObject), transports: ["internal"] },
    };
  }

  /** The AuthenticationResponseJSON for `challenge`; each answer moves the counter on unless told. */
  async authenticate(challenge: string, opts: { id?: string; counter?: number } = {}) {
    this.counter = opts.counter ?? this.counter + 1;
    const authData = await this.authDataHead(0x05);
    const clientDataJSON = this.clientData("webauthn.get", challenge);
    const signed = concat(authData, new Uint8Array(await crypto.subtle.digest("SHA-256", clientDataJSON)));
    const raw = new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, this.keys.privateKey, signed));
    const id = opts.id ?? this.id;
    return {
      id,
      rawId: id,
      type: "public-key",
      clientExtensionResults: {},
      response: { clientDataJSON: b64(clientDataJSON), authenticatorData: b64(authData), signature: b64(derSignature(raw)), userHandle: b64(new TextEncoder().encode("u0")) },
    };
  }

  private clientData(type: string, challenge: string): Uint8Array<ArrayBuffer> {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** rpIdHash, flags (UP, UV, and AT when a credential follows), the big-endian counter. */
  private async authDataHead(flags: number) {
    const rpIdHash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(this.rpId)));
    const c = this.counter;
    return concat(rpIdHash, new Uint8Array([flags]), new Uint8Array([(c >>> 24) & 0xff, (c >>> 16) & 0xff, (c >>> 8) & 0xff, c & 0xff]));
  }

  /** The public key as a COSE EC2 map: kty 2, alg -7 (ES256), crv 1 (P-256), x, y. */
  private async coseKey() {
    const jwk = await crypto.subtle.exportKey("jwk", this.keys.publicKey);
    const map = new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, base64urlnopad.decode(jwk.x!)],
      [-3, base64urlnopad.decode(jwk.y!)],
    ]);
    return isoCBOR.encode(map as never);
  }
}

const b64 = (bytes: Uint8Array) => base64urlnopad.encode(bytes);

/** WebCrypto signs as r||s; WebAuthn carries ECDSA signatures DER-encoded. */
function derSignature(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b.slice(i);
    const body = v[0] & 0x80 ? concat(new Uint8Array([0]), v) : v;
    return concat(new Uint8Array([0x02, body.length]), body);
  };
  const seq = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, seq.length]), seq);
}
