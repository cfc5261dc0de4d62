import { expect, test } from "@playwright/test";
import { open, operatorPage, register, words } from "./helpers";

/**
 * Decision 119: an operator ends every session of a user (a stolen phone), with a reason. The
 * user's open page hears it over its channel and shows them signed out, without a reload.
 */
test("an operator ends all of a user's sessions: the user's open page signs out by itself", async ({ page, browser }) => {
  const admin = words("en", "admin");
  const { name } = await register(page);
  await open(page, "/pages/me/index");

  const op = await operatorPage(browser);
  await open(op, `/admin/users?q=${name}`);
  await op.getByTestId("user-row").filter({ hasText: name }).getByRole("link", { name: name }).click();
  const card = op.getByTestId("user-sessions");
  await expect(card.getByTestId("user-session")).toHaveCount(1);
  await card.getByTestId("sessions-reason").fill("phone reported stolen");
  await card.getByTestId("end-sessions").click();
  await expect(op.getByRole("alertdialog")).toContainText(admin.users.sessions_end_confirm);
  await op.getByRole("alertdialog").getByRole("button", { name: words("en", "common").confirm }).click();
  await expect(op.getByText(words("en", "errors").user_sessions_ended)).toBeVisible();
  await expect(card.getByTestId("user-session")).toHaveCount(0);

  // The user's page, left as it was, lands on the sign-in page.
  await expect(page).toHaveURL(/\/pages\/user\/login/, { timeout: 15_000 });

  // The audit log names the action and the reason.
  await open(op, "/admin/audit");
  await expect(op.getByTestId("audit-table")).toContainText(admin.action_user_sessions_end);
  await expect(op.getByTestId("audit-table")).toContainText("phone reported stolen");
  await op.context().close();
});
