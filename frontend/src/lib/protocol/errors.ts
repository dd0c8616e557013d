/** Every refusal of the pot and of the token, as the sentence a player reads (docs/protocol.md
 * section 2, "Refusals"; chain/pot/errors.py words them the same). A revert reaches the page as a
 * JSON-RPC error of the page's node or of the wallet, carrying the revert data (a custom error's
 * 4-byte selector and arguments, or Error(string) with the token's text) somewhere in its `data`,
 * and often the text in its message too: both are read. */

export interface PotError {
  name: string;
  sentence: string;
}

/** The pot's named errors by selector (the first 4 bytes of keccak256 of the signature; a test
 * checks each against the compiled contract's ABI). */
export const POT_ERRORS: Record<string, PotError> = {
  "0xb28664a9": {
    name: "NotOpened",
    sentence: "This challenge's terms are not on chain yet, so it cannot take stakes.",
  },
  "0x22c6b27f": { name: "NotOpenYet", sentence: "This challenge does not take stakes yet." },
  "0xff294b12": { name: "StakingClosed", sentence: "This challenge has closed: it takes no more stakes." },
  "0x78e030db": { name: "StakeBelowMinimum", sentence: "The stake is below this challenge's minimum." },
  "0x6dfcc650": { name: "SafeCastOverflowedUintDowncast", sentence: "The stake is larger than the pot accepts." },
  "0x5806ad22": {
    name: "SolutionNotRevealed",
    sentence: "The solution has not been revealed yet, so guesses cannot be revealed.",
  },
  "0x11e625e2": {
    name: "GuessWindowClosed",
    sentence: "The guess window has closed: no more guesses can be revealed.",
  },
  "0x0ae0700a": { name: "GuessDoesNotOpenStake", sentence: "This guess and salt do not open that stake's commitment." },
  // Staff and the worker only; each says what its name says.
  "0x8faac603": { name: "SolutionTooEarly", sentence: "The solution cannot be revealed before the challenge closes." },
  "0xbc86f365": { name: "SolutionDeadlinePassed", sentence: "The solution's deadline has passed." },
  "0x626b0b1d": { name: "SolutionAlreadyRevealed", sentence: "The solution has already been revealed." },
  "0xcbdeef34": { name: "WrongSolution", sentence: "This is not the committed solution." },
  "0x5344dca9": { name: "GuessWindowOpen", sentence: "The guess window is still open." },
  "0xf0754329": { name: "AlreadyFinalized", sentence: "The winners are already fixed." },
  "0xbea0218a": { name: "NotFinalized", sentence: "The winners are not fixed yet." },
  "0x099cad0e": { name: "NoWinner", sentence: "Nobody won this prize." },
  "0x8337a613": { name: "AlreadyPaid", sentence: "This payment has already been made." },
  "0xc389ece3": { name: "NothingToPay", sentence: "There is nothing to pay." },
  "0xfda10c42": { name: "NotRefundable", sentence: "These stakes are not refunded: the challenge has a winner." },
  "0x351261fc": { name: "NothingToSweep", sentence: "The pot holds nothing beyond what it owes." },
  "0xbd3c9089": { name: "UnknownKind", sentence: "There is no such prize." },
};

/** Circle's revert texts (and OpenZeppelin's wording of the same), first match wins. */
export const TOKEN_REVERTS: readonly (readonly [RegExp, string])[] = [
  [/Pausable: paused/i, "The USDC token is paused by its issuer, so no USDC can move right now; try again later."],
  [
    /Blacklistable: account is blacklisted/i,
    "The USDC token's issuer has blocked this wallet, so it cannot pay a stake.",
  ],
  [/FiatTokenV2: invalid signature/i, "The payment authorization is not this wallet's signature for this stake."],
  [
    /FiatTokenV2: authorization is used or canceled/i,
    "This payment authorization has already been used or was cancelled.",
  ],
  [/FiatTokenV2: authorization is expired/i, "The payment authorization has expired; sign a new one."],
  [/transfer amount exceeds balance/i, "This wallet does not hold enough USDC for the stake."],
  [
    /transfer amount exceeds allowance|insufficient allowance/i,
    "The pot is not allowed to take this much USDC from this wallet yet (approve it first).",
  ],
];

const ERROR_STRING = "0x08c379a0";

/** The text of an Error(string) revert. */
function errorString(data: string): string | null {
  const hex = data.slice(10);
  if (hex.length < 128) return null;
  const length = Number.parseInt(hex.slice(64, 128), 16);
  const body = hex.slice(128, 128 + 2 * length);
  if (!Number.isSafeInteger(length) || body.length !== 2 * length) return null;
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i += 1) bytes[i] = Number.parseInt(body.slice(2 * i, 2 * i + 2), 16);
  return new TextDecoder().decode(bytes);
}

/** Every 0x-hex string and message text found in an RPC error, however the wallet nests them. */
function collect(error: unknown, found: { data: string[]; text: string[] }, depth = 0): void {
  if (depth > 5 || error === null || error === undefined) return;
  if (typeof error === "string") {
    if (/^0x[0-9a-f]{8}/i.test(error)) found.data.push(error.toLowerCase());
    else found.text.push(error);
    return;
  }
  if (typeof error !== "object") return;
  const record = error as Record<string, unknown>;
  for (const key of ["data", "originalError", "error", "cause", "info", "body"]) collect(record[key], found, depth + 1);
  if (typeof record.message === "string") found.text.push(record.message);
  if (typeof record.reason === "string") found.text.push(record.reason);
}

export interface Refusal {
  /** The pot's error name, or the token's revert text. */
  name: string;
  sentence: string;
}

/** The pot's or the token's refusal in an RPC error, or null when it carries none (a wallet
 * refusal, a node that cannot be reached, a revert of something else). */
export function refusalOf(error: unknown): Refusal | null {
  const found = { data: [] as string[], text: [] as string[] };
  collect(error, found);
  for (const data of found.data) {
    const known = POT_ERRORS[data.slice(0, 10)];
    if (known) return { name: known.name, sentence: known.sentence };
    if (data.startsWith(ERROR_STRING)) {
      const text = errorString(data);
      if (text) found.text.unshift(text);
    }
  }
  for (const text of found.text) {
    for (const [pattern, sentence] of TOKEN_REVERTS) {
      const match = pattern.exec(text);
      if (match) return { name: match[0], sentence };
    }
    // Some nodes name the custom error in the message instead of returning its data.
    for (const known of Object.values(POT_ERRORS)) {
      if (new RegExp(`\\b${known.name}\\b`).test(text)) return { name: known.name, sentence: known.sentence };
    }
  }
  return null;
}
