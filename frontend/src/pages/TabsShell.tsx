import * as Tabs from "@radix-ui/react-tabs";
import { Suspense, useState } from "react";
import { Spinner } from "@/components/Spinner";
import { DEFAULT_TAB, TABS } from "@/tabs";

/** The seven tabs (Radix Tabs: arrow keys move between them, only the open panel is mounted).
 * A tab other than Active Challenge is a lazy chunk (see @/tabs):
 * hovering or focusing its trigger loads and runs it ahead of the click; while one is still
 * loading its panel shows a spinner with a text alternative. */
export function TabsShell() {
  const [value, setValue] = useState(DEFAULT_TAB);
  return (
    <Tabs.Root value={value} onValueChange={setValue} className="tabs">
      <Tabs.List className="tabs-list" aria-label="Geopoem sections">
        {TABS.map((tab) => {
          const preload = tab.preload ? () => void tab.preload?.().catch(() => undefined) : undefined;
          return (
            <Tabs.Trigger
              key={tab.value}
              value={tab.value}
              className="tabs-trigger"
              onPointerEnter={preload}
              onFocus={preload}
            >
              {tab.label}
            </Tabs.Trigger>
          );
        })}
      </Tabs.List>
      {TABS.map(({ value: tabValue, label, Component }) => (
        <Tabs.Content key={tabValue} value={tabValue} className="tabs-content">
          <Suspense fallback={<Spinner label={`Loading ${label}...`} />}>
            <Component />
          </Suspense>
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}
