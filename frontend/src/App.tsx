import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { LazyToaster } from "@/components/LazyToaster";
import { NotFoundPage } from "@/pages/NotFoundPage";
import { PageFrame } from "@/pages/PageFrame";
import { TabsShell } from "@/pages/TabsShell";
import { RecoverLostSubmissions } from "@/tabs/my-submissions";
import { WalletControl, WalletProvider } from "@/wallet";

/** The single page at "/", the 404 page anywhere else (the server has already answered 404). */
export function App({
  queryClient,
  path = window.location.pathname,
  reload,
}: {
  queryClient: QueryClient;
  path?: string;
  /** What a wallet network change does (a page reload); tests pass a spy. */
  reload?: () => void;
}) {
  if (path !== "/" && path !== "") return <NotFoundPage />;
  return (
    <QueryClientProvider client={queryClient}>
      <WalletProvider {...(reload ? { reload } : {})}>
        <PageFrame wallet={<WalletControl />}>
          <TabsShell />
        </PageFrame>
        <LazyToaster />
        <RecoverLostSubmissions />
      </WalletProvider>
    </QueryClientProvider>
  );
}
