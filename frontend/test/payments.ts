import vectors from "../../tests/vectors.json";
import type { PaymentsAuthorization } from "@/api/types";
import { json, type FakeServer } from "./http";

/** GET /api/payments/authorization as the server answers it (docs/protocol.md 3.6): the token's
 * domain of the shared vector (tests/vectors.json, transferAuthorizations), the relay on. */
export const TOKEN_DOMAIN = vectors.transferAuthorizations.cases[0]!.domain;

export const RELAY_ADDRESS = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";

export const PAYMENTS_OFFERED: PaymentsAuthorization = {
  token: TOKEN_DOMAIN,
  relay: { available: true, reason: "", address: RELAY_ADDRESS },
  validitySeconds: 1800,
  minRemainingSeconds: 60,
};

/** The token takes authorizations but the relay cannot send one now. */
export const RELAY_OFF: PaymentsAuthorization = {
  ...PAYMENTS_OFFERED,
  relay: { available: false, reason: "Geopoem's relay is switched off.", address: RELAY_ADDRESS },
};

/** A token without EIP-3009. */
export const NO_AUTHORIZATIONS: PaymentsAuthorization = { ...PAYMENTS_OFFERED, token: null };

export function servePayments(server: FakeServer, payments: PaymentsAuthorization = PAYMENTS_OFFERED): void {
  server.on("GET", "/api/payments/authorization", () => json(payments));
}
