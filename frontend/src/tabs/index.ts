import { lazy, type ComponentType, type LazyExoticComponent } from "react";
import { ActiveChallengeTab } from "./active";

/** The seven tabs in page order. Active Challenge is the default and ships in the initial
 * bundle; the others load when first opened, which keeps the first paint small. */
export interface TabDefinition {
  value: string;
  label: string;
  Component: ComponentType | LazyExoticComponent<ComponentType>;
}

export const DEFAULT_TAB = "active";

export const TABS: readonly TabDefinition[] = [
  { value: "active", label: "Active Challenge", Component: ActiveChallengeTab },
  {
    value: "resolved",
    label: "Resolved Challenges",
    Component: lazy(() => import("./resolved").then((m) => ({ default: m.ResolvedTab }))),
  },
  {
    value: "winners",
    label: "Winners' Circle",
    Component: lazy(() => import("./winners").then((m) => ({ default: m.WinnersTab }))),
  },
  {
    value: "getting-started",
    label: "Getting Started",
    Component: lazy(() => import("./getting-started").then((m) => ({ default: m.GettingStartedTab }))),
  },
  {
    value: "sepolia",
    label: "Sepolia Testnet",
    Component: lazy(() => import("./sepolia").then((m) => ({ default: m.SepoliaTab }))),
  },
  { value: "faq", label: "FAQ", Component: lazy(() => import("./faq").then((m) => ({ default: m.FaqTab }))) },
  {
    value: "legal",
    label: "Legal & Terms",
    Component: lazy(() => import("./legal").then((m) => ({ default: m.LegalTab }))),
  },
];
