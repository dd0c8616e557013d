import { describe, expect, it } from "vitest";
import { floatToDecimal, positionToText, stepMicro, stepText, wrapLongitude } from "./geo";

describe("map positions as canonical text", () => {
  it("never writes exponent form and truncates toward zero", () => {
    expect(floatToDecimal(1e-7)).toBe("0");
    expect(floatToDecimal(-4e-7)).toBe("0");
    expect(positionToText(-0.0000009, 1.0000019)).toBe("0, 1.000001");
    expect(positionToText(-12.3456789, -0.0000015)).toBe("-12.345678, -0.000001");
  });

  it("clamps latitude and wraps longitude", () => {
    expect(positionToText(91.5, 0)).toBe("90, 0");
    expect(wrapLongitude(190)).toBeCloseTo(-170);
    expect(wrapLongitude(-190)).toBeCloseTo(170);
    expect(wrapLongitude(540)).toBe(180);
    expect(positionToText(10, 370)).toBe("10, 10");
  });

  it("steps on whole micro-degrees", () => {
    expect(stepMicro(0)).toBe(14062500);
    expect(stepMicro(30)).toBe(1);
    expect(stepText("0.1, 0.2", 1, 2)).toBe("0.100001, 0.200002");
    expect(stepText("-0.000001, -180", 1, -1)).toBe("0, 179.999999");
    expect(stepText("not coordinates", 1, 1)).toBeNull();
  });
});
