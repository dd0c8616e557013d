import { TypedDataEncoder, verifyTypedData } from "ethers";
import { describe, expect, it } from "vitest";
import vectors from "../../../tests/vectors.json";
import { normalizeSignature, splitSignature, transferAuthorizationTypedData } from "./authorization";
import { relayedStakeCalldata } from "./calldata";

// The shared vectors of a stake paid by signature (tests/vectors.json, transferAuthorizations),
// which chain/authorization.py reads too (tests/test_vectors_authorization.py): ethers' own EIP-712
// encoder must hash the page's typed data to the digest the server recovers the signer from.

const CASES = vectors.transferAuthorizations.cases;

function typedDataOf(v: (typeof CASES)[number]) {
  return transferAuthorizationTypedData(v.domain, {
    from: v.message.from,
    to: v.message.to,
    value: BigInt(v.message.value),
    validAfter: v.message.validAfter,
    validBefore: v.message.validBefore,
    nonce: v.message.nonce.slice(2),
  });
}

describe("the typed data a player signs (docs/protocol.md 2a)", () => {
  it.each(CASES.map((v, i) => ({ v, i: String(i) })))("hashes case $i to the shared digest", ({ v }) => {
    const typed = typedDataOf(v);
    const { EIP712Domain, ...types } = typed.types;
    // The domain's own type is the protocol's, field by field.
    expect(EIP712Domain.map((f) => `${f.type} ${f.name}`).join(",")).toBe(
      "string name,string version,uint256 chainId,address verifyingContract",
    );
    expect(typed.primaryType).toBe("TransferWithAuthorization");
    const mutable = { TransferWithAuthorization: [...types.TransferWithAuthorization] };
    expect(TypedDataEncoder.from(mutable).encodeType("TransferWithAuthorization")).toBe(
      "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)",
    );
    expect(TypedDataEncoder.hashDomain(typed.domain)).toBe(v.domainSeparator);
    expect(TypedDataEncoder.from(mutable).hash(typed.message)).toBe(v.structHash);
    expect(TypedDataEncoder.hash(typed.domain, mutable, typed.message)).toBe(v.digest);
    expect(verifyTypedData(typed.domain, mutable, typed.message, v.signature)).toBe(v.signer);
  });

  it("writes the values as the wallet receives them: uint256 as decimal strings, the nonce as 0x bytes32", () => {
    const typed = typedDataOf(CASES[0]!);
    expect(JSON.parse(JSON.stringify(typed))).toEqual({
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
          { name: "verifyingContract", type: "address" },
        ],
        TransferWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "TransferWithAuthorization",
      domain: { name: "USDC", version: "2", chainId: 11155111, verifyingContract: CASES[0]!.domain.verifyingContract },
      message: {
        from: CASES[0]!.message.from,
        to: CASES[0]!.message.to,
        value: "1000000",
        validAfter: "0",
        validBefore: "1767227400",
        nonce: CASES[0]!.message.nonce,
      },
    });
  });
});

describe("the relayed call's 324 bytes (docs/protocol.md 2a)", () => {
  it.each(CASES.map((v, i) => ({ v, i: String(i) })))("encodes case $i as the shared vector", async ({ v }) => {
    const parts = splitSignature(v.signature)!;
    const data = await relayedStakeCalldata({
      from: v.message.from,
      to: v.message.to,
      value: BigInt(v.message.value),
      validAfter: v.message.validAfter,
      validBefore: v.message.validBefore,
      nonce: v.message.nonce,
      ...parts,
      challengeId: v.challengeId,
    });
    expect(data).toBe(v.relayedCalldata);
    expect((data.length - 2) / 2).toBe(324);
    expect(data.slice(0, 10)).toBe("0xe3ee160e");
  });
});

describe("signatures", () => {
  const signature = CASES[0]!.signature;
  const v = signature.slice(-2);

  it("splits r, s and v", () => {
    expect(splitSignature(signature)).toEqual({
      r: `0x${signature.slice(2, 66)}`,
      s: `0x${signature.slice(66, 130)}`,
      v: Number.parseInt(v, 16),
    });
  });

  it("reads a v of 0 or 1 (some hardware wallets) as 27 or 28, the token's only values", () => {
    const raw = signature.slice(0, -2) + (v === "1b" ? "00" : "01");
    expect(splitSignature(raw)?.v).toBe(Number.parseInt(v, 16));
    expect(normalizeSignature(raw)).toBe(signature);
  });

  it.each(["0x", `${signature}00`, signature.slice(0, -2) + "1d", `0x${"zz".repeat(65)}`])("refuses %s", (bad) => {
    expect(splitSignature(bad)).toBeNull();
    expect(normalizeSignature(bad)).toBeNull();
  });
});
