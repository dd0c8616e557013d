/** The spec's fetch rules: credentials on every request, JSON bodies, and any
 * non-OK answer raised as `"{status}: {message}"` — the server's one-sentence `message` when the
 * body is the API's JSON error, else the body text, else the status text. */

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, message: string, body: unknown) {
    super(`${status}: ${message}`);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }
}

/** The message of an API error without the status prefix. */
export function apiErrorDetail(error: unknown): string | null {
  if (error instanceof ApiError) {
    const body = error.body;
    if (typeof body === "object" && body !== null && "message" in body && typeof body.message === "string") {
      return body.message;
    }
  }
  return null;
}

export async function throwIfResNotOk(res: Response): Promise<void> {
  if (res.ok) return;
  const text = await res.text().catch(() => "");
  let body: unknown = text;
  let message = text || res.statusText;
  if (text) {
    try {
      body = JSON.parse(text);
      if (typeof body === "object" && body !== null && "message" in body && typeof body.message === "string") {
        message = body.message;
      }
    } catch {
      // Not JSON (a proxy's HTML page, say): the body text is the message, as the spec says.
    }
  }
  throw new ApiError(res.status, message, body);
}

/** Django's CSRF cookie, sent back in X-CSRFToken on unsafe requests. */
export function csrfToken(doc: Document = document): string {
  for (const part of doc.cookie.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === "csrftoken") return decodeURIComponent(rest.join("="));
  }
  return "";
}

/** A request with an optional JSON body; returns the Response once it is OK. */
export async function apiRequest(method: string, url: string, data?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (data !== undefined) headers["Content-Type"] = "application/json";
  if (!["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase())) headers["X-CSRFToken"] = csrfToken();
  const res = await fetch(url, {
    method,
    headers,
    body: data === undefined ? undefined : JSON.stringify(data),
    credentials: "include",
  });
  await throwIfResNotOk(res);
  return res;
}

export type UnauthorizedBehavior = "returnNull" | "throw";

/** The default query function: the query key's first element is the URL of a GET. */
export function getQueryFn<T>({ on401 }: { on401: UnauthorizedBehavior }) {
  return async ({ queryKey, signal }: { queryKey: readonly unknown[]; signal?: AbortSignal }): Promise<T | null> => {
    const url = queryKey[0];
    if (typeof url !== "string") throw new Error("The first element of a query key must be its URL.");
    const res = await fetch(url, { credentials: "include", headers: { Accept: "application/json" }, signal });
    if (on401 === "returnNull" && res.status === 401) return null;
    await throwIfResNotOk(res);
    return (await res.json()) as T;
  };
}
