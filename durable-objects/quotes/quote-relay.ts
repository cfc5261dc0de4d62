/**
 * A relay for one symbol's quotes (decision 103). Past one object's audience, the Worker sends
 * each new quote socket to one of R relays of the symbol instead of the QuoteHub. A relay holds
 * ONE socket to its hub, as a page would, and passes every tick and quote block it hears to all
 * of its own pages: the hub sends each message once per relay, not once per viewer, and the
 * browser's wire protocol is the hub's own.
 *
 * - A new page hears `hello` and then the latest quote block, exactly as from the hub (the
 *   block is asked from the hub unless the one held is under a second old).
 * - Past the socket cap the upgrade is refused with 503 and the envelope, like the hub.
 * - While it has pages the relay keeps its hub socket open (so it stays in memory); if that
 *   socket drops it connects again at once and then every second from its alarm. When its last
 *   page leaves it closes the hub socket and may be evicted; a later page opens it again.
 * - A relay that restarts loses its pages' sockets: each page reconnects once (partysocket)
 *   and hears ticks in order from then on (tests/integration/quote-relays.test.ts restarts the
 *   whole server).
 */
import { PageSocketObject } from "../page-socket-object";
import type { Env } from "../../worker/env";
import { socketRefusal } from "../page-socket-api";
import { openPage } from "../page-sockets";
import { parseServerMessage, type ServerMessage } from "../protocol";
import type { QuoteRelayApi } from "./hub-api";
import { quoteSocketCap } from "./sockets";
import { logError, underRequest, asInvocation } from "../../worker/observability/log";

/** A held quote block younger than this greets new pages without asking the hub. */
const GREETING_FRESH_MS = 1_000;
/** While pages are open, the hub socket is checked (and reopened if it dropped) this often. */
const UPSTREAM_CHECK_MS = 1_000;

export class QuoteRelay extends PageSocketObject implements QuoteRelayApi {
  private upstream: WebSocket | null = null;
  private opening: Promise<WebSocket | null> | null = null;
  private symbol: string | null = null;
  private latestQuote: { message: ServerMessage; at_ms: number } | null = null;

  /** A page's socket, under the upgrade's request id (the Worker sends it along): the relay's lines carry it. */
  async fetch(request: Request): Promise<Response> {
    return underRequest(request.headers.get("x-request-id") ?? undefined, "/ws/quotes/:symbol", () => this.serve(request));
  }

  private async serve(request: Request): Promise<Response> {
    const symbol = request.headers.get("x-quote-symbol");
    if (!symbol) return new Response("relay: no symbol", { status: 400 });
    if (this.ctx.getWebSockets().length >= quoteSocketCap(this.env)) return socketRefusal(request, 503, "errors.quotes_busy", { "retry-after": "5" });
    if (this.symbol !== symbol) {
      this.symbol = symbol;
      await this.ctx.storage.put("symbol", symbol);
    }
    await this.toHub();
    // The quote block is fetched before the socket is accepted: once accepted, the page hears
    // relayed ticks, and a tick must not come before its greeting.
    const greeting = await this.greeting();
    // Counted again after the awaits: pages that arrived meanwhile may have filled the relay.
    // From here to the accept nothing awaits, so the cap holds.
    if (this.ctx.getWebSockets().length >= quoteSocketCap(this.env)) return socketRefusal(request, 503, "errors.quotes_busy", { "retry-after": "5" });
    return openPage(this.ctx, request, Date.now(), async () => greeting);
  }

  /** The hub's socket, opened if needed; null when the hub cannot be reached now (the alarm retries). */
  private toHub(): Promise<WebSocket | null> {
    if (this.upstream) return Promise.resolve(this.upstream);
    this.opening ??= this.open().finally(() => (this.opening = null));
    return this.opening;
  }

  private async open(): Promise<WebSocket | null> {
    if (!this.symbol) this.symbol = (await this.ctx.storage.get<string>("symbol")) ?? null;
    if (!this.symbol) return null;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + UPSTREAM_CHECK_MS);
    try {
      const hub = this.env.QUOTE_HUB.get(this.env.QUOTE_HUB.idFromName(this.symbol));
      const res = await hub.fetch("https://hub/relay", { headers: { upgrade: "websocket" } });
      const ws = res.webSocket;
      if (!ws) return null;
      ws.accept();
      ws.addEventListener("message", (e) => this.relay(typeof e.data === "string" ? e.data : ""));
      const dropped = () => {
        if (this.upstream === ws) this.upstream = null;
      };
      ws.addEventListener("close", dropped);
      ws.addEventListener("error", dropped);
      this.upstream = ws;
      return ws;
    } catch (err) {
      logError("relay.hub_unreachable", { symbol: this.symbol, err });
      return null;
    }
  }

  /** One message from the hub to every page (its own hello and pongs stay here). */
  private relay(text: string) {
    const message = parseServerMessage(text);
    if (!message || message.type === "hello" || message.type === "pong") return;
    if (message.type === "quote") this.latestQuote = { message, at_ms: Date.now() };
    for (const ws of this.ctx.getWebSockets()) {
      try {
        ws.send(text);
      } catch {
        // A page closing at this moment: its close handler cleans up.
      }
    }
  }

  /** The quote block a new page hears: the hub's, as the hub would greet it. */
  private async greeting(): Promise<ServerMessage | null> {
    if (this.latestQuote && Date.now() - this.latestQuote.at_ms < GREETING_FRESH_MS) return this.latestQuote.message;
    if (!this.symbol) return null;
    const hub = this.env.QUOTE_HUB.get(this.env.QUOTE_HUB.idFromName(this.symbol));
    const message = await hub.greeting();
    if (message) this.latestQuote = { message, at_ms: Date.now() };
    return message;
  }

  /** While pages are open: the hub socket stays open. With none left: closed, and no alarm. */
  async alarm(): Promise<void> {
    return asInvocation("alarm:quote-relay", () => this.onAlarm());
  }

  /** The alarm's work, under an invocation id of its own (its log lines carry it). */
  private async onAlarm(): Promise<void> {
    if (this.ctx.getWebSockets().length === 0) {
      this.upstream?.close(1000, "no pages");
      this.upstream = null;
      return;
    }
    await this.toHub();
    await this.ctx.storage.setAlarm(Date.now() + UPSTREAM_CHECK_MS);
  }
}
