import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { toast } from "@/components/toast-store";
import { retryUnpostedSubmissions } from "@/wallet/flow";
import { unpostedSubmissions } from "@/wallet/pending";

/** On page load, posts again every paid guess whose claim never reached the server (the
 * server answers the identical claim idempotently), and says so. Renders nothing. */
export function RecoverLostSubmissions() {
  const queryClient = useQueryClient();
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return; // StrictMode mounts effects twice in development
    started.current = true;
    const lost = unpostedSubmissions();
    if (lost.length === 0) return;
    void retryUnpostedSubmissions(lost).then(({ recovered, failed }) => {
      void queryClient.invalidateQueries();
      if (failed > 0) {
        toast({
          title: "Submission Failed",
          description: `A paid guess from an earlier visit could not be recorded yet; it is sent again on your next visit. See "My submissions".`,
          variant: "destructive",
        });
      } else if (recovered > 0) {
        toast({
          title: "Submission Recovered",
          description: `A paid guess from an earlier visit had not reached Geopoem; it has now been submitted.`,
          variant: "success",
        });
      }
    });
  }, [queryClient]);
  return null;
}
