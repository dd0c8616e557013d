import {
  createContext,
  lazy,
  Suspense,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from "react";
import { toast } from "@/components/toast-store";
import { loadEthers } from "@/lib/ethers-lazy";
import { watchWallets } from "./discovery";
import { WALLET_MESSAGES, WalletError } from "./errors";
import { connectAccount, currentAccount, type ExpectChainSwitch } from "./connect";
import type { EIP1193Provider, WalletDetail } from "./types";

// The chooser (and Radix Dialog with it) loads only when several wallets make it needed.
const WalletChooser = lazy(() => import("./WalletChooser").then((m) => ({ default: m.WalletChooser })));

/** The connected wallet for the whole page: EIP-6963 discovery (window.ethereum as fallback),
 * the player's choice when several wallets announce, the address (following accountsChanged),
 * and a page reload on chainChanged, as the spec says. */

export const CHOSEN_WALLET_KEY = "geopoem:wallet";

export interface WalletState {
  wallets: WalletDetail[];
  wallet: WalletDetail | null;
  address: string | null;
  connecting: boolean;
  /** The wallet control's button: chooses a wallet if needed, then asks for the accounts. */
  connect: () => Promise<void>;
  /** The provider for the payment flow, asking the player to choose one when several announce.
   * Null when there is no wallet at all; throws "Wallet not connected" when the choice is cancelled. */
  requireProvider: () => Promise<EIP1193Provider | null>;
  /** The payment flow reports the account the player picked. */
  setAddress: (address: string | null) => void;
  /** The payment flow announces its own network switch (flow.ts, ensureChain): the chainChanged
   * event it causes is not the player's and does not reload the page. */
  expectChainSwitch: ExpectChainSwitch;
}

const WalletContext = createContext<WalletState | null>(null);

export function useWallet(): WalletState {
  const value = useContext(WalletContext);
  if (!value) throw new Error("useWallet needs a <WalletProvider>.");
  return value;
}

/** The connected address, or null (also outside a <WalletProvider>: My submissions renders alone). */
export function useConnectedAddress(): string | null {
  return useContext(WalletContext)?.address ?? null;
}

/** The provider of the wallet in use, or null (also outside a <WalletProvider>): My submissions
 * watches the chain head through it. */
export function useWalletProviderOrNull(): EIP1193Provider | null {
  return useContext(WalletContext)?.wallet?.provider ?? null;
}

/** The whole wallet state, or null outside a <WalletProvider>: My submissions' "Send it yourself"
 * asks the wallet through it. */
export function useWalletOrNull(): WalletState | null {
  return useContext(WalletContext);
}

function rememberedWallet(wallets: WalletDetail[]): WalletDetail | null {
  const key = localStorage.getItem(CHOSEN_WALLET_KEY);
  return wallets.find((w) => w.info.rdns === key || w.info.uuid === key) ?? null;
}

export function WalletProvider({
  children,
  reload = () => window.location.reload(),
}: {
  children: ReactNode;
  /** What a network change does (the spec: reload the page); tests pass a spy. */
  reload?: () => void;
}) {
  const [wallets, setWallets] = useState<WalletDetail[]>([]);
  const [wallet, setWallet] = useState<WalletDetail | null>(null);
  const [address, setAddress] = useState<string | null>(null);
  const [connecting, setConnecting] = useState(false);
  const [choosing, setChoosing] = useState(false);
  const chooserResolve = useRef<((w: WalletDetail | null) => void) | null>(null);
  // The chain the payment flow asked the wallet to switch to (lowercase hex), until its event comes.
  const expectedChainSwitch = useRef<string | null>(null);
  const expectChainSwitch = useCallback<ExpectChainSwitch>((chainIdHex) => {
    expectedChainSwitch.current = chainIdHex;
  }, []);

  useEffect(() => watchWallets(setWallets), []);

  // The wallet in use, adjusted while rendering when the announced wallets change (React's pattern
  // for state that follows other state): it stays if it is still there, else becomes the one
  // chosen before, else the only one there is.
  const [walletsSeen, setWalletsSeen] = useState(wallets);
  if (walletsSeen !== wallets) {
    setWalletsSeen(wallets);
    if (!wallet || !wallets.includes(wallet)) {
      const next = rememberedWallet(wallets) ?? (wallets.length === 1 ? (wallets[0] ?? null) : null);
      if (next) setWallet(next);
    }
  }

  // On load, look up an existing connection; then follow the wallet's events.
  useEffect(() => {
    const provider = wallet?.provider;
    if (!provider) return;
    let active = true;
    void currentAccount(provider).then((account) => {
      if (active) setAddress(account);
    });
    const onAccounts = (accounts: unknown) => {
      setAddress(Array.isArray(accounts) && typeof accounts[0] === "string" ? accounts[0] : null);
    };
    // The player's network change reloads; the payment flow's own switch does not.
    const onChain = (chainId: unknown) => {
      const expected = expectedChainSwitch.current;
      if (expected !== null && typeof chainId === "string" && chainId.toLowerCase() === expected) {
        expectedChainSwitch.current = null; // once: a later change is the player's
        return;
      }
      reload();
    };
    provider.on?.("accountsChanged", onAccounts as (...args: never[]) => void);
    provider.on?.("chainChanged", onChain as (...args: never[]) => void);
    return () => {
      active = false;
      provider.removeListener?.("accountsChanged", onAccounts as (...args: never[]) => void);
      provider.removeListener?.("chainChanged", onChain as (...args: never[]) => void);
    };
  }, [wallet, reload]);

  const choose = useCallback((): Promise<WalletDetail | null> => {
    if (wallet) return Promise.resolve(wallet);
    if (wallets.length === 0) return Promise.resolve(null);
    if (wallets.length === 1) {
      const only = wallets[0] ?? null;
      setWallet(only);
      return Promise.resolve(only);
    }
    return new Promise((resolve) => {
      chooserResolve.current = resolve;
      setChoosing(true);
    });
  }, [wallet, wallets]);

  const onChosen = useCallback((picked: WalletDetail | null) => {
    setChoosing(false);
    if (picked) {
      localStorage.setItem(CHOSEN_WALLET_KEY, picked.info.rdns || picked.info.uuid);
      setWallet(picked);
    }
    chooserResolve.current?.(picked);
    chooserResolve.current = null;
  }, []);

  const requireProvider = useCallback(async () => {
    void loadEthers(); // warm the lazy chunk while the player talks to the wallet
    if (wallets.length === 0 && !wallet) return null;
    const picked = await choose();
    if (!picked) throw new WalletError("notConnected", WALLET_MESSAGES.notConnected);
    return picked.provider;
  }, [choose, wallet, wallets.length]);

  const connect = useCallback(async () => {
    setConnecting(true);
    try {
      const provider = await requireProvider();
      const account = await connectAccount(provider);
      setAddress(account);
      toast({ title: "Wallet Connected", description: "Successfully connected to MetaMask", variant: "success" });
    } catch (error) {
      toast({
        title: "Connection Failed",
        description: (error instanceof Error && error.message) || "Failed to connect wallet",
        variant: "destructive",
      });
    } finally {
      setConnecting(false);
    }
  }, [requireProvider]);

  const value = useMemo<WalletState>(
    () => ({ wallets, wallet, address, connecting, connect, requireProvider, setAddress, expectChainSwitch }),
    [wallets, wallet, address, connecting, connect, requireProvider, expectChainSwitch],
  );

  return (
    <WalletContext.Provider value={value}>
      {children}
      {choosing ? (
        <Suspense fallback={null}>
          <WalletChooser open={choosing} wallets={wallets} onChosen={onChosen} />
        </Suspense>
      ) : null}
    </WalletContext.Provider>
  );
}
