// TypeScript client for the Business Messaging API. `schema.ts` is generated from the service's
// OpenAPI document by `rest-gateway/clients/generate` (openapi-typescript); requests go through
// openapi-fetch, typed by it. Written by hand: `createClient` (failures throw typed errors),
// `unwrap`, `paginate` and `verifyWebhook`.

import createFetchClient, { type Client, type Middleware } from "openapi-fetch";

import { ApiError, errorFromResponse } from "./errors.js";
import type { components, paths } from "./schema.js";

export type { components, operations, paths, webhooks } from "./schema.js";
export * from "./errors.js";
export { paginate, type PagedPath, type PageItem } from "./paging.js";
export {
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
} from "./webhooks.js";

/** The document's schemas: `Schemas["MessageRecord"]`, `Schemas["Broadcast"]`, ... */
export type Schemas = components["schemas"];

export const VERSION = "1.0.0";
export const USER_AGENT = `business-messaging-typescript/${VERSION}`;

/** The client: `GET`, `POST`, `PATCH`, `PUT`, `DELETE` on the document's paths, fully typed. */
export type MessagingClient = Client<paths>;

export interface ClientOptions {
  /** The gateway's address, `https://messaging.example.com`. */
  baseUrl: string;
  /**
   * A developer-app token (`sva_...`) for the `/v1` routes, or a user's access token for the
   * console routes; none for the sign-in routes.
   */
  token?: string;
  /** Milliseconds for each request (default 30,000). */
  timeoutMs?: number;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
}

const throwOnFailure: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await errorFromResponse(response);
    return undefined;
  },
};

/**
 * A client whose every failure answer throws the `ApiError` subclass of its status, so a call
 * that returns has succeeded:
 *
 *     const api = createClient({ baseUrl, token: appToken });
 *     const sent = unwrap(await api.POST("/v1/{businessAccountId}/messages", {
 *       params: { path: { businessAccountId }, header: { "Idempotency-Key": "order-1042-shipped" } },
 *       body: { to: "+14155550124", category: "utility", body: "Your order has shipped" },
 *     }));
 */
export function createClient(options: ClientOptions): MessagingClient {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const headers: Record<string, string> = { "User-Agent": USER_AGENT, ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers,
    fetch: (request: Request) =>
      baseFetch(new Request(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) })),
  });
  client.use(throwOnFailure);
  return client;
}

/**
 * The `data` of a successful answer: `unwrap(await api.GET(...))`. A failure has already thrown
 * with a client from `createClient`; with another client it throws here.
 */
export function unwrap<T>(result: { data?: { data: T }; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    const status = result.response.status;
    const envelope = result.error as { message?: string; detail?: string } | undefined;
    throw new ApiError(status, envelope?.message ?? `http_${status}`, envelope?.detail ?? "no body", {
      requestId: result.response.headers.get("x-request-id") ?? undefined,
      body: result.error,
    });
  }
  return result.data.data;
}

/**
 * A fresh Idempotency-Key. Make it once per intended send and keep it with the request: a retry
 * with the same key and body answers the first result (for 24 hours) instead of sending again.
 */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}
