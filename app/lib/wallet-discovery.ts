/**
 * Finding the browser's Ethereum wallets: EIP-6963 first (every extension announces itself, so
 * two wallets do not fight over `window.ethereum`), then the legacy `window.ethereum`.
 */
export type Eip1193Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown>; isMetaMask?: boolean };
export type WalletInfo = { uuid: string; name: string; icon: string; rdns: string };
export type DiscoveredWallet = { info: WalletInfo; provider: Eip1193Provider };

const METAMASK_RDNS = "io.metamask";
/** Extensions answer the request synchronously or within a few ticks; this leaves room for slow ones. */
const ANNOUNCE_WAIT_MS = 300;

export async function discoverWallets(wait_ms = ANNOUNCE_WAIT_MS): Promise<DiscoveredWallet[]> {
  const found = new Map<string, DiscoveredWallet>();
  const onAnnounce = (event: Event) => {
    const detail = (event as CustomEvent<DiscoveredWallet>).detail;
    if (detail?.info?.uuid && typeof detail.provider?.request === "function") found.set(detail.info.uuid, detail);
  };
  window.addEventListener("eip6963:announceProvider", onAnnounce);
  window.dispatchEvent(new Event("eip6963:requestProvider"));
  await new Promise((resolve) => setTimeout(resolve, wait_ms));
  window.removeEventListener("eip6963:announceProvider", onAnnounce);
  // MetaMask first: it is the wallet the page prefers when there are several.
  if (found.size > 0) return [...found.values()].sort((a, b) => Number(b.info.rdns === METAMASK_RDNS) - Number(a.info.rdns === METAMASK_RDNS));
  const legacy = (window as unknown as { ethereum?: Eip1193Provider }).ethereum;
  if (!legacy || typeof legacy.request !== "function") return [];
  const name = legacy.isMetaMask ? "MetaMask" : "Browser wallet";
  return [{ info: { uuid: "window.ethereum", name, icon: "", rdns: legacy.isMetaMask ? METAMASK_RDNS : "" }, provider: legacy }];
}

export type WalletChoice = { status: "none" } | { status: "one"; wallet: DiscoveredWallet } | { status: "choose"; wallets: DiscoveredWallet[] };

/** One wallet is used; of several, MetaMask; several without MetaMask leave the choice to the user. */
export function chooseWallet(wallets: DiscoveredWallet[]): WalletChoice {
  if (wallets.length === 0) return { status: "none" };
  if (wallets.length === 1) return { status: "one", wallet: wallets[0] };
  const metamask = wallets.find((w) => w.info.rdns === METAMASK_RDNS);
  return metamask ? { status: "one", wallet: metamask } : { status: "choose", wallets };
}

/** The wallet's first account; it throws what the wallet throws (the page shows its message). */
export async function requestEthAddress(provider: Eip1193Provider): Promise<string> {
  const accounts = (await provider.request({ method: "eth_requestAccounts" })) as unknown;
  const first = Array.isArray(accounts) ? accounts[0] : undefined;
  if (typeof first !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(first)) throw new Error("no account");
  return first;
}

/** EIP-191 personal_sign over the message's UTF-8 bytes, hex-encoded as wallets expect. */
export async function signWithWallet(provider: Eip1193Provider, address: string, message: string): Promise<string> {
  const bytes = new TextEncoder().encode(message);
  const hexMessage = `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  const signature = await provider.request({ method: "personal_sign", params: [hexMessage, address] });
  if (typeof signature !== "string") throw new Error("no signature");
  return signature;
}
