import { lazy, type ComponentType, type LazyExoticComponent } from "react";
import { ActiveChallengeTab } from "./active";

/** The seven tabs in page order. Active Challenge is the default and ships in the initial
 * bundle; the others are chunks of their own, loaded when first opened, or ahead of the click
 * when their trigger is hovered or focused. (Not on idle: webpack's prefetch links are created
 * inside the main script's first task, and running the chunks at idle inserts their CSS, which
 * recalculates the page's style; both measured as long tasks in Lighthouse's mobile run.) */
export interface TabDefinition {
  value: string;
  label: string;
  Component: ComponentType | LazyExoticComponent<ComponentType>;
  /** Starts loading the tab's chunk (the same promise every time); absent for the Active tab. */
  preload?: () => Promise<unknown>;
}

export const DEFAULT_TAB = "active";

function lazyTab(value: string, label: string, load: () => Promise<ComponentType>): TabDefinition {
  let pending: Promise<{ default: ComponentType }> | undefined;
  const preload = () => {
    pending ??= load().then(
      (Component) => ({ default: Component }),
      (error: unknown) => {
        pending = undefined; // a failed fetch (e.g. offline) is tried again on the next attempt
        throw error;
      },
    );
    return pending;
  };
  return { value, label, Component: lazy(preload), preload };
}

export const TABS: readonly TabDefinition[] = [
  { value: "active", label: "Active Challenge", Component: ActiveChallengeTab },
  lazyTab("resolved", "Resolved Challenges", () => import("./resolved").then((m) => m.ResolvedTab)),
  lazyTab("winners", "Winners' Circle", () => import("./winners").then((m) => m.WinnersTab)),
  lazyTab("getting-started", "Getting Started", () => import("./getting-started").then((m) => m.GettingStartedTab)),
  lazyTab("sepolia", "Sepolia Testnet", () => import("./sepolia").then((m) => m.SepoliaTab)),
  lazyTab("faq", "FAQ", () => import("./faq").then((m) => m.FaqTab)),
  lazyTab("legal", "Legal & Terms", () => import("./legal").then((m) => m.LegalTab)),
];
