import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { NotFoundPage } from "@/pages/NotFoundPage";
import { PageFrame } from "@/pages/PageFrame";
import { TabsShell } from "@/pages/TabsShell";

/** The single page at "/", the 404 page anywhere else (the server has already answered 404). */
export function App({ queryClient, path = window.location.pathname }: { queryClient: QueryClient; path?: string }) {
  return (
    <QueryClientProvider client={queryClient}>
      {path === "/" || path === "" ? (
        <PageFrame>
          <TabsShell />
        </PageFrame>
      ) : (
        <NotFoundPage />
      )}
    </QueryClientProvider>
  );
}
