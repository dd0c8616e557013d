import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, apiRequest, getQueryFn, makeQueryClient } from "@/api";
import { installFakeServer, json } from "../../test/http";

afterEach(() => {
  vi.unstubAllGlobals();
  document.cookie = "csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT";
});

describe("default query function", () => {
  it("GETs the query key's first element with credentials and returns the JSON", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/resolved", () => json([{ id: 1 }]));
    const result = await getQueryFn({ on401: "throw" })({ queryKey: ["/api/challenges/resolved"] });
    expect(result).toEqual([{ id: 1 }]);
    expect(server.calls[0]?.init?.credentials).toBe("include");
  });

  it('raises "{status}: {message}" with the API error sentence', async () => {
    const server = installFakeServer();
    server.on("GET", "/api/x", () => json({ message: "Too many requests.", errors: {} }, 429));
    await expect(getQueryFn({ on401: "throw" })({ queryKey: ["/api/x"] })).rejects.toThrow("429: Too many requests.");
  });

  it("uses the body text, or the status text when the body is empty", async () => {
    const server = installFakeServer();
    server.on("GET", "/a", () => new Response("Bad gateway page", { status: 502, statusText: "Bad Gateway" }));
    server.on("GET", "/b", () => new Response("", { status: 503, statusText: "Service Unavailable" }));
    await expect(getQueryFn({ on401: "throw" })({ queryKey: ["/a"] })).rejects.toThrow("502: Bad gateway page");
    await expect(getQueryFn({ on401: "throw" })({ queryKey: ["/b"] })).rejects.toThrow("503: Service Unavailable");
  });

  it("returns null on 401 only when asked to", async () => {
    const server = installFakeServer();
    server.on("GET", "/me", () => json({ message: "Log in." }, 401));
    expect(await getQueryFn({ on401: "returnNull" })({ queryKey: ["/me"] })).toBeNull();
    const error = await getQueryFn({ on401: "throw" })({ queryKey: ["/me"] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect((error as ApiError).message).toBe("401: Log in.");
  });
});

describe("apiRequest", () => {
  it("sends JSON with the content type, credentials and the CSRF token", async () => {
    const server = installFakeServer();
    document.cookie = "csrftoken=abc123";
    server.on("POST", "/api/responses", () => json({ id: 7 }, 201));
    const res = await apiRequest("POST", "/api/responses", { challengeId: 1 });
    expect(await res.json()).toEqual({ id: 7 });
    const init = server.calls[0]?.init;
    expect(init?.credentials).toBe("include");
    expect(init?.body).toBe('{"challengeId":1}');
    expect((init?.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
    expect((init?.headers as Record<string, string>)["X-CSRFToken"]).toBe("abc123");
  });
});

describe("QueryClient defaults", () => {
  it("never retries, never refetches on focus or interval, and keeps data fresh", () => {
    const client = makeQueryClient();
    const defaults = client.getDefaultOptions();
    expect(defaults.queries?.retry).toBe(false);
    expect(defaults.queries?.refetchOnWindowFocus).toBe(false);
    expect(defaults.queries?.refetchInterval).toBe(false);
    expect(defaults.queries?.staleTime).toBe(Infinity);
    expect(defaults.mutations?.retry).toBe(false);
  });

  it("does not retry a failed query", async () => {
    const server = installFakeServer();
    server.on("GET", "/api/challenges/active", () => json({ message: "Boom." }, 500));
    const client = makeQueryClient();
    await expect(client.fetchQuery({ queryKey: ["/api/challenges/active"] })).rejects.toThrow("500: Boom.");
    expect(server.fetch).toHaveBeenCalledTimes(1);
  });
});
