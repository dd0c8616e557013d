import * as Tabs from "@radix-ui/react-tabs";
import { Suspense, useState } from "react";
import { Spinner } from "@/components/Spinner";
import { DEFAULT_TAB, TABS } from "@/tabs";

/** The seven tabs (Radix Tabs: arrow keys move between them, only the open panel is mounted). */
export function TabsShell() {
  const [value, setValue] = useState(DEFAULT_TAB);
  return (
    <Tabs.Root value={value} onValueChange={setValue} className="tabs">
      <Tabs.List className="tabs-list" aria-label="Geopoem sections">
        {TABS.map((tab) => (
          <Tabs.Trigger key={tab.value} value={tab.value} className="tabs-trigger">
            {tab.label}
          </Tabs.Trigger>
        ))}
      </Tabs.List>
      {TABS.map(({ value: tabValue, Component }) => (
        <Tabs.Content key={tabValue} value={tabValue} className="tabs-content">
          <Suspense fallback={<Spinner />}>
            <Component />
          </Suspense>
        </Tabs.Content>
      ))}
    </Tabs.Root>
  );
}
