import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../envelope";
import type { AppEnv } from "../types";
import type { Operator } from "../../domain/identity/operators";
import { resolveSession, type SessionKind } from "../../domain/identity/session";
import type { User } from "../../domain/identity/users";

/** The session token: the product's `token` header, or `Authorization: Bearer <token>`. */
export function tokenFrom(headers: { get(name: string): string | null }): string | null {
  const header = headers.get("token");
  if (header && header !== "false") return header.trim();
  const auth = headers.get("authorization");
  if (auth?.toLowerCase().startsWith("bearer ")) return auth.slice(7).trim();
  return null;
}

function requireSession(kind: SessionKind): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Sub-apps mounted on the same prefix may both ask; resolve the session once.
    if (!(c.get(kind) && c.get("session_token_hash"))) await resolveInto(c, kind);
    if (kind === "operator" && c.get("step_up_at_ms") === null) {
      // An operator who has not proven a second factor in this session may only enrol (decision 117).
      throw new ApiError("errors.operator_enrolment_required", 403, {}, { enrol: true });
    }
    await next();
  };
}

async function resolveInto(c: Context<AppEnv>, kind: SessionKind): Promise<void> {
  const session = await resolveSession(c.get("db"), kind, { token: tokenFrom(c.req.raw.headers) }, Date.now());
  const denied = kind === "user" ? "errors.unauthorized" : "errors.operator_required";
  if (session.status !== "ok" || !session.subject) throw new ApiError(denied, 401);
  if (kind === "user") c.set("user", session.subject as User);
  else {
    const operator = session.subject as Operator;
    if (operator.enabled !== 1) throw new ApiError(denied, 401);
    c.set("operator", operator);
    c.set("step_up_at_ms", session.step_up_at_ms);
  }
  c.set("session_token_hash", session.token_hash);
}

export const requireUser = requireSession("user");
export const requireOperator = requireSession("operator");

/** An operator session that may still be enrolling: only the enrolment routes use this. */
export const requireEnrollingOperator: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(c.get("operator") && c.get("session_token_hash"))) await resolveInto(c, "operator");
  await next();
};
