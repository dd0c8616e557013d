import { describe, expect, it } from "vitest";
import { formatUsdc, shortAddress } from "./format";
import { decimalToUnits, unitsToDecimal } from "./stake";

describe("format", () => {
  it("shortens an address to its first 6 and last 4 characters", () => {
    expect(shortAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")).toBe("0xf39F...2266");
  });

  it("shows USDC with 2 decimals, cut not rounded", () => {
    expect(formatUsdc("12.345678")).toBe("12.34");
    expect(formatUsdc("5")).toBe("5.00");
    expect(formatUsdc("0.999999")).toBe("0.99");
  });

  it("converts decimals to units and back exactly", () => {
    expect(decimalToUnits("999999.999999")).toBe(999999999999n);
    expect(decimalToUnits("1.0000001")).toBeNull();
    expect(unitsToDecimal(100100000n)).toBe("100.1");
    expect(unitsToDecimal(5n)).toBe("0.000005");
  });
});
