import { beforeAll, describe, expect, it } from "vitest";
import { operatorCookieFor } from "./cookies";
import { call, newUser, page, seed } from "../helpers";
import { operatorToken, PNG, upload } from "./helpers";
import { userCookie } from "../../../worker/session-cookie";

beforeAll(() => seed());

const text = (s: string) => new TextEncoder().encode(s);

describe("/api/common/upload", () => {
  it("accepts an image by its bytes and answers data.url", async () => {
    const u = await newUser();
    const r = await upload(u.token, PNG, "evil.jpg", "image/jpeg");
    expect(r.code).toBe(1);
    expect(r.data.url).toMatch(/^\/files\/[0-9a-f]{32}$/);
    expect(r.data).toMatchObject({ width: 24, height: 16 });
  });

  it.each([
    ["SVG with a script", '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "x.png", "image/png"],
    ["HTML", "<!doctype html><html><body>hi</body></html>", "x.jpg", "image/jpeg"],
    ["PDF", "%PDF-1.4\n1 0 obj\n<<>>\nendobj\n", "x.png", "image/png"],
    ["GIF", "GIF89a\x01\x00\x01\x00\x00\x00\x00;", "x.gif", "image/gif"],
  ])("refuses %s whatever its name and type", async (_n, body, name, type) => {
    const u = await newUser();
    const r = await upload(u.token, text(body), name, type);
    expect(r.status).toBe(415);
    expect(r.data.error).toBe("upload_not_image");
  });

  it("refuses a PNG with something appended (polyglot)", async () => {
    const u = await newUser();
    const poly = new Uint8Array([...PNG, ...text("<html><script>alert(1)</script></html>")]);
    expect((await upload(u.token, poly)).data.error).toBe("upload_not_image");
  });

  it("refuses an empty file and a missing file", async () => {
    const u = await newUser();
    expect((await upload(u.token, new Uint8Array(0))).data.error).toBe("upload_empty");
    expect((await call("/api/common/upload", new FormData(), { token: u.token })).data.error).toBe("upload_missing");
  });

  it("refuses 1 MiB + 1 byte with the product's message, before reading it all", async () => {
    const u = await newUser();
    const big = new Uint8Array(1024 * 1024 + 1);
    big.set(PNG);
    const r = await upload(u.token, big);
    expect(r.status).toBe(413);
    expect(r.msg).toBe("Please upload pictures smaller than 1M!");
    const huge = await call("/api/common/upload", new Uint8Array(3 * 1024 * 1024), {
      token: u.token,
      headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(3 * 1024 * 1024) },
    });
    expect(huge.status).toBe(413);
  });

  it("needs a session", async () => {
    const fd = new FormData();
    fd.set("file", new File([PNG as BlobPart], "a.png"));
    expect((await call("/api/common/upload", fd)).status).toBe(401);
  });
});

describe("/files/<id>", () => {
  it("serves the owner and operators only, with the sniffed type and nosniff", async () => {
    const owner = await newUser();
    const other = await newUser();
    const r = await upload(owner.token, PNG, "renamed.gif", "image/gif");
    const url = r.data.url as string;
    const as = async (cookie?: string) => page(url, cookie ? { headers: { cookie } } : {});
    const ownerRes = await as((await userCookie.serialize(owner.token)).split(";")[0]);
    expect(ownerRes.status).toBe(200);
    expect(ownerRes.headers.get("content-type")).toBe("image/png");
    expect(ownerRes.headers.get("x-content-type-options")).toBe("nosniff");
    expect(ownerRes.headers.get("content-security-policy")).toContain("sandbox");
    expect(new Uint8Array(await ownerRes.arrayBuffer())).toEqual(PNG);
    expect((await as((await userCookie.serialize(other.token)).split(";")[0])).status).toBe(404);
    expect((await as()).status).toBe(404);
    expect((await as(await operatorCookieFor(await operatorToken()))).status).toBe(200);
    expect((await page("/files/../../etc/passwd")).status).toBe(404);
    expect((await page("/files/0123456789abcdef0123456789abcdef")).status).toBe(404);
  });
});
