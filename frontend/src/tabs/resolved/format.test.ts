import { describe, expect, it } from "vitest";
import { formatDistance, formatPrize, formatStake, formatThreshold, shortAddress } from "./format";

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
    expect(formatPrize(input)).toBe(expected);
  });

  it("shows thresholds and distances as the spec says", () => {
    expect(formatThreshold(150)).toBe("150 m");
    expect(formatThreshold(null)).toBe("Not specified");
    expect(formatDistance(6.239866589337766)).toBe("6.24 m");
    expect(formatDistance(0)).toBe("0.00 m");
  });

  it("shortens an address to its first 6 and last 4 characters", () => {
    expect(shortAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")).toBe("0x7099...79C8");
  });
});
