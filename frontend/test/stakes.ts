import type { Challenge } from "@/api/types";
import { newSalt } from "@/lib/commitment";
import { microDegrees } from "@/lib/protocol/coordinates";
import { decimalToUnits } from "@/lib/stake";
import type { Guess } from "@/wallet/flow";

/** A guess as the form hands it to the stake flows. */
export function guessFor(challenge: Challenge, text = "29.9753, 31.1378", stake = "2.5"): Guess {
  return { challenge, text, ...microDegrees(text)!, stake, units: decimalToUnits(stake)!, salt: newSalt() };
}

/** Records every progress message. */
export function progressLog() {
  const messages: string[] = [];
  return { messages, onProgress: (message: string) => void messages.push(message) };
}
