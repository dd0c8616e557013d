import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatDistance, formatStake, formatUsdc, shortAddress } from "./format";
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

describe("display helpers", () => {
  it.each([
    ["82.750000", "82.75"],
    ["5.000000", "5.00"],
    ["1.234500", "1.2345"],
    ["0.000001", "0.000001"],
    ["1000000", "1000000.00"],
    ["not money", "not money"],
  ])("formats the stake %s as %s", (input, expected) => {
    expect(formatStake(input)).toBe(expected);
  });

  it.each([
    ["33.100000", "33.10"],
    ["16.559999", "16.55"],
    ["0", "0.00"],
    ["7.5", "7.50"],
  ])("cuts the prize %s to %s (never rounds up)", (input, expected) => {
    expect(formatUsdc(input)).toBe(expected);
  });

  it("shows distances and missing dates as the spec says", () => {
    expect(formatDateTime(null)).toBe("Not recorded");
    expect(formatDate(null)).toBe("Not recorded");
    expect(formatDateTime(null, "")).toBe("");
    expect(formatDistance(6.239866589337766)).toBe("6.24 m");
    expect(formatDistance(0)).toBe("0.00 m");
    // The API writes a distance as a decimal string.
    expect(formatDistance("12345.68")).toBe("12345.68 m");
    expect(formatDistance(null)).toBe("Not scored");
  });
});
