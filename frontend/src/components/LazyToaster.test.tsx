import { act, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { LazyToaster } from "./LazyToaster";
import { dismissToast, resetToastsForTests, toast } from "./toast-store";

beforeEach(() => resetToastsForTests());

describe("LazyToaster", () => {
  it("loads nothing until the first toast, then shows it in the notification region", async () => {
    render(<LazyToaster />);
    expect(screen.queryByRole("region", { name: /Notification/ })).not.toBeInTheDocument();
    act(() => {
      toast({ title: "Wallet Connected", description: "Successfully connected to MetaMask" });
    });
    const region = await screen.findByRole("region", { name: /Notification/ });
    expect(await within(region).findByText("Wallet Connected")).toBeInTheDocument();
    expect(within(region).getByText("Successfully connected to MetaMask")).toBeInTheDocument();
  });

  it("keeps the region mounted once loaded, after the toast is dismissed", async () => {
    render(<LazyToaster />);
    act(() => {
      toast({ title: "Invalid Stake Amount" });
    });
    await screen.findByText("Invalid Stake Amount");
    act(() => dismissToast());
    expect(screen.queryByText("Invalid Stake Amount")).not.toBeInTheDocument();
    expect(screen.getByRole("region", { name: /Notification/ })).toBeInTheDocument();
  });
});
