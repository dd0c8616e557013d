import type { PaymentsAuthorization } from "@/api/types";
import { json, type FakeServer } from "./http";

/** GET /api/payments/authorization as the server answers it (docs/protocol.md 3.3): the token's
 * domain read from the chain, the relay on. */
export const TOKEN_DOMAIN = {
  name: "USDC",
  version: "2",
  chainId: 11155111,
  verifyingContract: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238",
};

export const RELAY_ADDRESS = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";

export const PAYMENTS_OFFERED: PaymentsAuthorization = {
  token: TOKEN_DOMAIN,
  relay: { available: true, reason: "", address: RELAY_ADDRESS },
  validitySeconds: 1800,
  minRemainingSeconds: 60,
};

/** The token's domain is known but the relay cannot send a stake now. */
export const RELAY_OFF: PaymentsAuthorization = {
  ...PAYMENTS_OFFERED,
  relay: { available: false, reason: "Geopoem's relay is switched off.", address: RELAY_ADDRESS },
};

/** The token's domain is not known: the stake by approval alone. */
export const NO_AUTHORIZATIONS: PaymentsAuthorization = { ...PAYMENTS_OFFERED, token: null };

export function servePayments(server: FakeServer, payments: PaymentsAuthorization = PAYMENTS_OFFERED): void {
  server.on("GET", "/api/payments/authorization", () => json(payments));
}
