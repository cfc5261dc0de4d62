import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { operators } from "../../worker/db/schema";
import { createOperator } from "../../worker/domain/identity/operators";
import { operatorCookie } from "../../worker/session-cookie";
import { call, db, newUser, operatorLogin, page, seed, uniqueAccount } from "./helpers";
import { PNG, upload } from "./money/helpers";

beforeAll(() => seed());

describe("/files/<id> for operators", () => {
  it("a disabled operator can no longer read uploads, with a session that still exists", async () => {
    const account = uniqueAccount("op");
    const password = "files-operator-1";
    const created = await createOperator(db, { account, password }, Date.now());
    if (created.status !== "ok") throw new Error(`createOperator: ${created.status}`);
    const login = await operatorLogin(account, password);
    expect(login.code).toBe(1);
    const cookie = (await operatorCookie.serialize(login.data.token)).split(";")[0];

    const owner = await newUser();
    const url = (await upload(owner.token, PNG)).data.url;
    const read = () => page(url, { headers: { cookie } });
    const before = await read();
    expect(before.status).toBe(200);
    expect(new Uint8Array(await before.arrayBuffer())).toEqual(PNG);

    await db.update(operators).set({ enabled: 0 }).where(eq(operators.id, created.operator.id));
    const after = await read();
    expect(after.status).toBe(404);
    expect(await after.text()).not.toContain("PNG");
    // The console refuses the same session: the files follow the console's rule.
    expect((await call("/api/admin/me", {}, { token: login.data.token })).status).toBe(401);
  });
});
