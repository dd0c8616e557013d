export { ApiError, apiErrorDetail, apiRequest, csrfToken, getQueryFn, throwIfResNotOk } from "./http";
export type { UnauthorizedBehavior } from "./http";
export { makeQueryClient } from "./query-client";
export * from "./queries";
export * from "./responses";
export type * from "./types";
