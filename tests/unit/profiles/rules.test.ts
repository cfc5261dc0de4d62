import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkEmail, checkName, checkPhone, checkProfile, uploadIdOf } from "../../../worker/domain/profiles/rules";

const ID = "0123456789abcdef0123456789abcdef";
const ID2 = "fedcba9876543210fedcba9876543210";

describe("phone (E.164)", () => {
  it("accepts international numbers and strips spaces and dashes", () => {
    expect(checkPhone("+44 20 7946 0958")).toEqual({ status: "ok", value: "+442079460958" });
    expect(checkPhone(" +1-415-555-2671 ")).toEqual({ status: "ok", value: "+14155552671" });
    expect(checkPhone("+86 138 0013 8000")).toEqual({ status: "ok", value: "+8613800138000" });
  });

  it("refuses numbers without +, with a leading 0 country code, too short, too long or with other characters", () => {
    for (const bad of ["442079460958", "+0442079460958", "+1234567", "+1234567890123456", "+44 (20) 7946 0958", "+44.20.7946.0958", "+", "", "++442079460958", "+44２０79460958"]) {
      expect(checkPhone(bad), bad).toEqual({ status: "phone_invalid" });
    }
  });

  it("for any 8 to 15 digits not starting with 0, with spaces or dashes between, gives back + and the digits", () => {
    const digits = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 7, maxLength: 14 })).map(([h, t]) => [h, ...t].join(""));
    fc.assert(
      fc.property(digits, fc.array(fc.constantFrom("", " ", "-"), { minLength: 15, maxLength: 15 }), (d, seps) => {
        const typed = "+" + [...d].map((c, i) => c + seps[i]).join("");
        expect(checkPhone(typed)).toEqual({ status: "ok", value: `+${d}` });
      }),
    );
  });

  it("never accepts fewer than 8 or more than 15 digits", () => {
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^[1-9]\d{0,6}$/), fc.stringMatching(/^[1-9]\d{15,20}$/)), (d) => {
        expect(checkPhone(`+${d}`).status).toBe("phone_invalid");
      }),
    );
  });
});

describe("email", () => {
  it("accepts ordinary addresses and lower-cases only the domain", () => {
    expect(checkEmail("Anna.Schmidt+loan@Example.COM")).toEqual({ status: "ok", value: "Anna.Schmidt+loan@example.com" });
    expect(checkEmail(" li_wei@mail.example.co.jp ")).toEqual({ status: "ok", value: "li_wei@mail.example.co.jp" });
    // RFC 5322's atom characters, the apostrophe and the backtick among them.
    expect(checkEmail("o'brien@example.ie")).toEqual({ status: "ok", value: "o'brien@example.ie" });
    expect(checkEmail("a`b{c}@example.com").status).toBe("ok");
  });

  it("refuses what is not a mailbox", () => {
    for (const bad of ["", "plain", "@example.com", "a@", "a@localhost", "a@example", "a@example.c0m", "a@-example.com", "a@example-.com", "a..b@example.com", ".a@example.com", "a.@example.com", "a b@example.com", "a@exa mple.com", "a@@example.com", `${"x".repeat(65)}@example.com`, `a@${"x".repeat(64)}.com`, "a@example..com", "<a@example.com>", 'a"b@example.com']) {
      expect(checkEmail(bad), bad).toEqual({ status: "email_invalid" });
    }
  });

  it("an accepted address is accepted again unchanged (the stored form is stable)", () => {
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
    const address = fc.tuple(fc.stringMatching(/^[A-Za-z0-9_+-]{1,20}$/), fc.array(label, { minLength: 1, maxLength: 3 }), fc.stringMatching(/^[a-zA-Z]{2,6}$/)).map(([l, ds, tld]) => `${l}@${[...ds, tld].join(".")}`);
    fc.assert(
      fc.property(address, (a) => {
        const first = checkEmail(a);
        expect(first.status).toBe("ok");
        if (first.status !== "ok") return;
        expect(first.value.split("@")[1]).toBe(first.value.split("@")[1].toLowerCase());
        expect(checkEmail(first.value)).toEqual(first);
      }),
    );
  });
});

describe("name", () => {
  it("takes 2 to 64 characters, counted as characters, with inner spaces collapsed", () => {
    expect(checkName("  Ana   María  ")).toEqual({ status: "ok", value: "Ana María" });
    expect(checkName("李伟")).toEqual({ status: "ok", value: "李伟" });
    expect(checkName("𝒜".repeat(64)).status).toBe("ok");
    expect(checkName("𝒜".repeat(65))).toEqual({ status: "name_invalid" });
    expect(checkName("A")).toEqual({ status: "name_invalid" });
    expect(checkName("   ")).toEqual({ status: "name_invalid" });
    expect(checkName("Ann\u0000a")).toEqual({ status: "name_invalid" });
  });

  it("for any string, accepts exactly when the tidied name has 2 to 64 characters and no control characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (s) => {
        const tidy = s.trim().replace(/\s+/g, " ");
        const expected = [...tidy].length >= 2 && [...tidy].length <= 64 && !/\p{Cc}/u.test(tidy);
        expect(checkName(s).status === "ok").toBe(expected);
      }),
    );
  });
});

describe("upload references", () => {
  it("takes the url the upload answered or the bare id, nothing else", () => {
    expect(uploadIdOf(`/files/${ID}`)).toBe(ID);
    expect(uploadIdOf(ID)).toBe(ID);
    for (const bad of ["", "/files/", `/files/${ID}/x`, `https://evil.example/files/${ID}`, `/files/${ID.toUpperCase()}`, `../files/${ID}`, ID.slice(1)]) {
      expect(uploadIdOf(bad), bad).toBeNull();
    }
  });
});

describe("the whole profile", () => {
  const good = { name: "Ana María", phone: "+34 612 345 678", email: "ana@Example.es", id_photo: `/files/${ID}`, signature: `/files/${ID2}` };

  it("gives the stored form of every field", () => {
    expect(checkProfile(good)).toEqual({ status: "ok", value: { name: "Ana María", phone: "+34612345678", email: "ana@example.es", id_photo_id: ID, signature_id: ID2 } });
  });

  it("names the first bad field", () => {
    expect(checkProfile({ ...good, name: "A", phone: "x" }).status).toBe("name_invalid");
    expect(checkProfile({ ...good, phone: "612345678" }).status).toBe("phone_invalid");
    expect(checkProfile({ ...good, email: "ana@" }).status).toBe("email_invalid");
    expect(checkProfile({ ...good, id_photo: "http://x/y.png" }).status).toBe("id_photo_unknown");
    expect(checkProfile({ ...good, signature: "data:image/png;base64,AAAA" }).status).toBe("signature_unknown");
  });
});
