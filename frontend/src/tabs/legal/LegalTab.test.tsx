import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { LegalTab } from "./index";

describe("Legal & Terms tab", () => {
  it("has the spec's eleven numbered sections in order", () => {
    render(<LegalTab />);
    expect(screen.getByRole("heading", { level: 2, name: "Legal & Terms" })).toBeInTheDocument();
    const list = screen.getByRole("list");
    expect(
      within(list)
        .getAllByRole("heading", { level: 3 })
        .map((h) => h.textContent),
    ).toEqual([
      "1. Intellectual Property",
      "2. Use of the Platform",
      "3. No Liability",
      "4. Conduct",
      "5. Privacy and Anonymity",
      "6. Dispute Resolution by Confidential Online Arbitration",
      "7. Content Disclaimer",
      "8. Right to Modify Terms",
      "9. No Advice",
      "10. Eligibility: 18 or Older",
      "11. Local Crypto Compliance and Risk",
    ]);
    expect(within(list).getAllByRole("listitem")).toHaveLength(11);
  });

  it("states the age limit, the arbitration and the finality of stakes", () => {
    render(<LegalTab />);
    expect(screen.getByText(/You must be at least 18 years old/)).toBeInTheDocument();
    expect(screen.getByText(/binding, confidential arbitration conducted online/)).toBeInTheDocument();
    expect(
      screen.getByText(/Stakes are final and\s+non-refundable, submitted solutions cannot be changed/),
    ).toBeInTheDocument();
  });

  it("ends with the important notice", () => {
    render(<LegalTab />);
    const notice = screen.getByRole("complementary", { name: "Important Notice" });
    expect(notice).toHaveTextContent("Stakes are final and non-refundable.");
    expect(notice).toHaveTextContent("Submitted solutions cannot be changed.");
    expect(notice).toHaveTextContent("Confirmed transactions are irreversible.");
    expect(notice).toHaveTextContent("You must be 18 or older to play.");
    expect(notice).toHaveTextContent("runs on the Sepolia test network with fake money");
  });
});
