/** The public configuration Django embeds in the page (config/public_config.py) as
 * `<script id="geopoem-config" type="application/json">`. The bundle hard-codes no chain or
 * address: switching networks is a settings change on the server. */

export interface NativeCurrency {
  name: string;
  symbol: string;
  decimals: number;
}

export interface PublicConfig {
  chainId: number;
  chainIdHex: string;
  chainName: string;
  nativeCurrency: NativeCurrency;
  rpcUrl: string;
  /** Empty when the chain has no explorer (a local chain): hashes are shown, not linked. */
  explorerUrl: string;
  /** A development chain on the player's machine (anvil): the Sepolia tab explains the local set-up. */
  localChain: boolean;
  /** The token stakes are paid in (USDC). */
  usdcAddress: string;
  tokenDecimals: number;
  /** The pot the site names: the contract that holds every stake (docs/protocol.md section 2). The
   * page stakes into it only when it is the pot pinned for the chain (PINNED_POTS, potPin). */
  potAddress: string;
  /** The block it was deployed in: where reading its events starts. */
  potDeployBlock: number;
  /** The site's floor for a stake (a challenge's own minimum is in its terms, never below it). */
  minStake: string;
  /** The form's step and the API's: a stake is a multiple of it ("0.01"). */
  stakeStep: string;
  maxStake: string;
  receiptPollIntervalMs: number;
  receiptTimeoutMs: number;
  /** The page stops offering stakes this many seconds before a challenge's close: a stake sent
   * later could be mined after it, and the pot would refuse it (docs/protocol.md section 2). */
  stakeCloseMarginSeconds: number;
  /** CHAIN_CONFIRMATIONS as blocks; 0 when it is not a number ("finalized"): the page then cannot
   * tell the deep-enough block and follows a stake by plain polling. */
  confirmations: number;
  socialLinks: Record<string, string>;
  videoIds: string[];
  /** Leaflet tile URL template ({z}/{x}/{y}); empty: the maps draw without tiles. */
  mapTilesUrl: string;
  /** The tiles' attribution line, HTML from settings (never player text). */
  mapAttribution: string;
}

export const CONFIG_ELEMENT_ID = "geopoem-config";

export const DEFAULT_STAKE_CLOSE_MARGIN_SECONDS = 60;

export interface PinnedPot {
  address: string;
  deployBlock: number;
}

/** The local chain's pot (anvil under `make run` and the e2e suite): deployed through the
 * deterministic CREATE2 factory, so its address follows from its code and constructor
 * (chain/pot/deploy.py); `manage.py pot_deploy` prints it, and docs/protocol.md section 2 lists it. */
export const LOCAL_POT: PinnedPot = { address: "0x46DDdae9F667Cc93eB0796652a39AbDFb4598245", deployBlock: 4 };

/** One pot per chain, pinned in the repository (docs/protocol.md section 2: the same table is in
 * docs/protocol.md and verify_challenge.py, and a test keeps them equal). The page takes the pot from
 * here, never from the site alone: a site naming another pot gets a warning and no stake. Sepolia
 * and mainnet have none yet. */
export const PINNED_POTS: Readonly<Record<number, PinnedPot>> = {
  31337: LOCAL_POT,
};

export type PotPin =
  /** The site's pot is the one pinned for its chain. */
  | { state: "pinned"; pot: PinnedPot }
  /** The site names another pot than the pinned one: the page warns and takes no stake. */
  | { state: "differs"; pinned: PinnedPot; site: string }
  /** No pot is pinned for this chain: the page says the address comes from the site alone. */
  | { state: "unpinned"; pot: PinnedPot };

/** The site's pot held to the repository's pin for its chain. */
export function potPin(
  config: Pick<PublicConfig, "chainId" | "potAddress" | "potDeployBlock">,
  pins: Readonly<Record<number, PinnedPot>> = PINNED_POTS,
): PotPin {
  const pinned = pins[config.chainId];
  if (!pinned) return { state: "unpinned", pot: { address: config.potAddress, deployBlock: config.potDeployBlock } };
  if (!config.potAddress || config.potAddress.toLowerCase() !== pinned.address.toLowerCase())
    return { state: "differs", pinned, site: config.potAddress };
  return { state: "pinned", pot: pinned };
}

/** What the page says about the pin (the Active tab, and the refusal of a stake). */
export function potPinSentence(pin: PotPin, chainName: string): string | null {
  switch (pin.state) {
    case "pinned":
      return null;
    case "differs":
      return `This site names the pot ${pin.site || "(none)"}, but the pot pinned in Geopoem's code for ${chainName || "this chain"} is ${pin.pinned.address}. This page takes no stake into another pot.`;
    case "unpinned":
      return `No pot is pinned in Geopoem's code for ${chainName || "this chain"}: the pot's address, ${pin.pot.address}, comes from this site alone.`;
  }
}

// The config read, and the element it was read from (a page has one; tests replace it).
let cached: { element: Element | null; config: PublicConfig } | null = null;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads and checks the embedded JSON once. A page without it is a broken deployment, so
 * this throws rather than inventing a network. */
export function readPublicConfig(doc: Document = document): PublicConfig {
  const element = doc.getElementById(CONFIG_ELEMENT_ID);
  if (!element?.textContent) {
    throw new Error(`The page has no #${CONFIG_ELEMENT_ID} configuration.`);
  }
  const raw: unknown = JSON.parse(element.textContent);
  if (!isRecord(raw) || typeof raw.chainId !== "number" || typeof raw.usdcAddress !== "string") {
    throw new Error("The page's configuration is malformed.");
  }
  const currency = isRecord(raw.nativeCurrency) ? raw.nativeCurrency : {};
  const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
  const num = (v: unknown, fallback: number): number => (typeof v === "number" ? v : fallback);
  return {
    chainId: raw.chainId,
    chainIdHex: str(raw.chainIdHex, `0x${raw.chainId.toString(16)}`).toLowerCase(),
    chainName: str(raw.chainName),
    nativeCurrency: {
      name: str(currency.name, "ETH"),
      symbol: str(currency.symbol, "ETH"),
      decimals: num(currency.decimals, 18),
    },
    rpcUrl: str(raw.rpcUrl),
    explorerUrl: str(raw.explorerUrl).replace(/\/+$/, ""),
    localChain: raw.localChain === true,
    usdcAddress: raw.usdcAddress,
    tokenDecimals: num(raw.tokenDecimals, 6),
    potAddress: str(raw.potAddress),
    potDeployBlock: Number.isInteger(raw.potDeployBlock) ? (raw.potDeployBlock as number) : 0,
    minStake: str(raw.minStake, "1.00"),
    stakeStep: str(raw.stakeStep, "0.01"),
    maxStake: str(raw.maxStake),
    receiptPollIntervalMs: num(raw.receiptPollIntervalMs, 2000),
    receiptTimeoutMs: num(raw.receiptTimeoutMs, 60000),
    stakeCloseMarginSeconds: num(raw.stakeCloseMarginSeconds, DEFAULT_STAKE_CLOSE_MARGIN_SECONDS),
    confirmations: Number.isInteger(raw.confirmations) ? (raw.confirmations as number) : 0,
    socialLinks: isRecord(raw.socialLinks)
      ? Object.fromEntries(
          Object.entries(raw.socialLinks).filter((e): e is [string, string] => typeof e[1] === "string"),
        )
      : {},
    videoIds: Array.isArray(raw.videoIds) ? raw.videoIds.filter((v): v is string => typeof v === "string") : [],
    mapTilesUrl: str(raw.mapTilesUrl),
    mapAttribution: str(raw.mapAttribution),
  };
}

/** The page's configuration, read on first use. */
export function getPublicConfig(): PublicConfig {
  const element = document.getElementById(CONFIG_ELEMENT_ID);
  if (!cached || cached.element !== element) cached = { element, config: readPublicConfig() };
  return cached.config;
}

/** A link to an address or transaction on the configured block explorer, or null when the chain
 * has none (a local chain): a link to sepolia.etherscan.io for a local transaction leads nowhere. */
export function explorerLink(
  kind: "address" | "tx" | "block",
  value: string,
  config: PublicConfig = getPublicConfig(),
): string | null {
  return config.explorerUrl ? `${config.explorerUrl}/${kind}/${value}` : null;
}
