import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeImage, safeLink } from "../../../worker/domain/content/links";

describe("safeLink: operator-entered links and images", () => {
  it.each([
    ["/pages/me/sub/activity", "path"],
    ["/banners/1.png", "path"],
    ["https://example.com/promo?x=1", "https"],
    ["HTTPS://Example.com/a", "https"],
  ])("takes %s as %s", (raw, kind) => {
    expect(safeLink(raw)?.kind).toBe(kind);
  });

  it.each([
    "javascript:alert(1)",
    " javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:x",
    "//evil.example/x",
    "/\\evil.example/x",
    "/%5Cevil",
    "http://example.com",
    "https://user:pass@example.com/",
    "https://",
    "pages/me",
    "",
    "/a\u0000b",
  ])("refuses %j", (raw) => {
    const link = safeLink(raw);
    // "/%5Cevil" is a plain path (the browser does not decode it into a backslash): allowed, and harmless.
    if (raw === "/%5Cevil") expect(link?.kind).toBe("path");
    else expect(link).toBeNull();
  });

  it("never lets a scheme other than https through, whatever the string", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (raw) => {
        const link = safeLink(raw);
        if (!link) return;
        if (link.kind === "https") expect(new URL(link.href).protocol).toBe("https:");
        // A path resolves on our own origin.
        else expect(new URL(link.href, "https://proofline.test").origin).toBe("https://proofline.test");
      }),
      { numRuns: 2000 },
    );
  });
});

describe("safeImage: banner images (decision 143)", () => {
  it("a path on this site only: the pages' CSP loads no image from elsewhere", () => {
    expect(safeImage("/banners/1.svg")).toEqual({ kind: "path", href: "/banners/1.svg" });
    for (const raw of ["https://cdn.example/a.png", "HTTPS://cdn.example/a.png", "//cdn.example/a.png", "data:image/png;base64,AAAA", "javascript:alert(1)", ""]) expect(safeImage(raw), raw).toBeNull();
  });

  it("whatever the string, an image it takes resolves on our own origin", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.webUrl()), (raw) => {
        const image = safeImage(raw);
        if (image) expect(new URL(image.href, "https://proofline.test").origin).toBe("https://proofline.test");
      }),
      { numRuns: 1000 },
    );
  });
});
