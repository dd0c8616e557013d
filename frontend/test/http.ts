import { vi } from "vitest";

/** A scripted network: the tests stub `fetch` (the network), never the hooks or API modules. */
export type Route = (init: RequestInit | undefined, url: string) => Response | Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export interface FakeServer {
  fetch: ReturnType<typeof vi.fn>;
  calls: { url: string; init: RequestInit | undefined }[];
  on: (method: string, url: string, route: Route) => void;
}

/** Routes by "METHOD url"; an unrouted request answers 599 so a test notices it. */
export function installFakeServer(): FakeServer {
  const routes = new Map<string, Route>();
  const calls: FakeServer["calls"] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    calls.push({ url, init });
    const route = routes.get(`${(init?.method ?? "GET").toUpperCase()} ${url}`);
    if (!route) return new Response(`no route for ${url}`, { status: 599, statusText: "Unrouted" });
    return route(init, url);
  });
  vi.stubGlobal("fetch", fetchMock);
  return {
    fetch: fetchMock,
    calls,
    on: (method, url, route) => routes.set(`${method.toUpperCase()} ${url}`, route),
  };
}
