import { TypedDataEncoder, Wallet } from "ethers";
import { describe, expect, it } from "vitest";
import vectors from "../../../tests/vectors.json";
import { normalizeSignature, receiveAuthorizationTypedData, splitSignature } from "./authorization";

// The typed data of a stake by signature (docs/protocol.md section 2, "What the player signs"). That
// the pot and the token take a signature over it is shown on anvil by wallet/signed.test.ts.

const DOMAIN = {
  name: "USDC",
  version: "2",
  chainId: 31337,
  verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
};
const AUTHORIZATION = {
  from: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  to: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
  value: 2_500_000n,
  validAfter: 0,
  validBefore: 1_767_227_400,
  nonce: "ab".repeat(32),
};

describe("the typed data a player signs", () => {
  it("is EIP-3009's ReceiveWithAuthorization under the token's domain, as the wallet receives it", () => {
    const typed = receiveAuthorizationTypedData(DOMAIN, AUTHORIZATION);
    const { EIP712Domain, ...types } = typed.types;
    expect(EIP712Domain.map((f) => `${f.type} ${f.name}`).join(",")).toBe(
      "string name,string version,uint256 chainId,address verifyingContract",
    );
    const mutable = { ReceiveWithAuthorization: [...types.ReceiveWithAuthorization] };
    expect(TypedDataEncoder.from(mutable).encodeType("ReceiveWithAuthorization")).toBe(
      "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
    );
    expect(JSON.parse(JSON.stringify(typed)).message).toEqual({
      from: AUTHORIZATION.from,
      to: AUTHORIZATION.to,
      value: "2500000",
      validAfter: "0",
      validBefore: "1767227400",
      nonce: `0x${"ab".repeat(32)}`,
    });
    expect(typed.primaryType).toBe("ReceiveWithAuthorization");
  });
});

describe("the shared vectors' signed stakes (tests/vectors.json, receiveAuthorizations)", () => {
  it.each(vectors.receiveAuthorizations.cases)(
    "hash and sign as eth_account does on chain $domain.chainId",
    async (v) => {
      const typed = receiveAuthorizationTypedData(v.domain, {
        from: v.message.from,
        to: v.message.to,
        value: BigInt(v.message.value),
        validAfter: v.message.validAfter,
        validBefore: v.message.validBefore,
        nonce: v.message.nonce.slice(2),
      });
      const { EIP712Domain: _domain, ...types } = typed.types;
      const mutable = { ReceiveWithAuthorization: [...types.ReceiveWithAuthorization] };
      expect(TypedDataEncoder.hashDomain(typed.domain)).toBe(v.domainSeparator);
      expect(TypedDataEncoder.hash(typed.domain, mutable, typed.message)).toBe(v.digest);
      expect(await new Wallet(v.signerKey).signTypedData(typed.domain, mutable, typed.message)).toBe(v.signature);
    },
  );
});

describe("signatures", () => {
  const wallet = Wallet.createRandom();
  const typed = receiveAuthorizationTypedData(DOMAIN, { ...AUTHORIZATION, from: wallet.address });
  const { EIP712Domain: _domain, ...types } = typed.types;
  const sign = () =>
    wallet.signTypedData(
      typed.domain,
      { ReceiveWithAuthorization: [...types.ReceiveWithAuthorization] },
      typed.message,
    );

  it("splits r, s and v", async () => {
    const signature = await sign();
    expect(splitSignature(signature)).toEqual({
      r: `0x${signature.slice(2, 66)}`,
      s: `0x${signature.slice(66, 130)}`,
      v: Number.parseInt(signature.slice(-2), 16),
    });
  });

  it("reads a v of 0 or 1 (some hardware wallets) as 27 or 28, the token's only values", async () => {
    const signature = await sign();
    const v = signature.slice(-2);
    const raw = signature.slice(0, -2) + (v === "1b" ? "00" : "01");
    expect(splitSignature(raw)?.v).toBe(Number.parseInt(v, 16));
    expect(normalizeSignature(raw)).toBe(signature);
  });

  it.each(["0x", `0x${"11".repeat(65)}00`, `0x${"11".repeat(64)}1d`, `0x${"zz".repeat(65)}`])("refuses %s", (bad) => {
    expect(splitSignature(bad)).toBeNull();
    expect(normalizeSignature(bad)).toBeNull();
  });
});
