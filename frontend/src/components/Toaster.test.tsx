import { act, fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import {
  TOAST_DURATION_MS,
  TOAST_HOTKEY,
  TOAST_LIMIT,
  TOAST_MAX_WIDTH_PX,
  TOAST_REMOVE_DELAY_MS,
  TOAST_SWIPE_THRESHOLD_PX,
} from "./constants";
import { Toaster } from "./Toaster";
import { dismissToast, getToasts, toast } from "./toast-store";

describe("toasts", () => {
  it("has the spec's constants", () => {
    expect([
      TOAST_LIMIT,
      TOAST_REMOVE_DELAY_MS,
      TOAST_DURATION_MS,
      TOAST_SWIPE_THRESHOLD_PX,
      TOAST_MAX_WIDTH_PX,
    ]).toEqual([1, 1_000_000, 5000, 50, 420]);
    expect(TOAST_HOTKEY).toEqual(["F8"]);
  });

  it("shows one toast at a time: a new one replaces the previous", () => {
    render(<Toaster />);
    act(() => {
      toast({ title: "Incorrect Coordinates", description: "first" });
      toast({ title: "Invalid Stake Amount", description: "Minimum stake amount is 1.00 USDC" });
    });
    const region = screen.getByRole("region", { name: /Notification/ });
    expect(within(region).getAllByRole("listitem")).toHaveLength(1);
    expect(within(region).getByText("Invalid Stake Amount")).toBeInTheDocument();
    expect(within(region).queryByText("Incorrect Coordinates")).not.toBeInTheDocument();
  });

  it("closes with its close button", async () => {
    render(<Toaster />);
    act(() => {
      toast({ title: "Wallet Connected", description: "Successfully connected to MetaMask" });
    });
    await userEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByText("Wallet Connected")).not.toBeInTheDocument();
    expect(getToasts()).toMatchObject([{ title: "Wallet Connected", open: false }]);
  });

  it("removes a dismissed toast after 1,000,000 ms", () => {
    vi.useFakeTimers();
    try {
      const { id } = toast({ title: "Wallet Connected" });
      dismissToast(id);
      vi.advanceTimersByTime(TOAST_REMOVE_DELAY_MS - 1);
      expect(getToasts()).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(getToasts()).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("closes by itself after 5 seconds", () => {
    vi.useFakeTimers();
    try {
      render(<Toaster />);
      act(() => {
        toast({ title: "Solution Submitted" });
      });
      expect(screen.getByText("Solution Submitted")).toBeInTheDocument();
      act(() => {
        vi.advanceTimersByTime(TOAST_DURATION_MS + 10);
      });
      expect(screen.queryByText("Solution Submitted")).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it("F8 moves focus to the notification region", () => {
    render(<Toaster />);
    act(() => {
      toast({ title: "Transaction Failed", description: "Failed to process payment" });
    });
    fireEvent.keyDown(document.body, { key: "F8", code: "F8" });
    const region = screen.getByRole("region", { name: /Notification/ });
    expect(region).toContainElement(document.activeElement as HTMLElement);
    expect(region).toHaveAccessibleName("Notifications (F8)");
  });

  it("dismissToast() with no id closes all", () => {
    render(<Toaster />);
    act(() => {
      toast({ title: "A" });
    });
    act(() => dismissToast());
    expect(screen.queryByText("A")).not.toBeInTheDocument();
  });
});
