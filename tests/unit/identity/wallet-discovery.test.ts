import { describe, expect, it } from "vitest";
import { chooseWallet, type DiscoveredWallet } from "../../../app/lib/wallet-discovery";

const wallet = (name: string, rdns: string): DiscoveredWallet => ({
  info: { uuid: `${name}-uuid`, name, icon: "", rdns },
  provider: { request: async () => null },
});
const metamask = wallet("MetaMask", "io.metamask");
const rabby = wallet("Rabby", "io.rabby");
const coinbase = wallet("Coinbase Wallet", "com.coinbase.wallet");

describe("chooseWallet", () => {
  it("has nothing to choose from without wallets", () => {
    expect(chooseWallet([])).toEqual({ status: "none" });
  });

  it("uses the only wallet, whichever it is", () => {
    expect(chooseWallet([rabby])).toEqual({ status: "one", wallet: rabby });
  });

  it("uses MetaMask among several", () => {
    expect(chooseWallet([rabby, metamask, coinbase])).toEqual({ status: "one", wallet: metamask });
  });

  it("leaves several wallets without MetaMask to the user", () => {
    expect(chooseWallet([rabby, coinbase])).toEqual({ status: "choose", wallets: [rabby, coinbase] });
  });
});
