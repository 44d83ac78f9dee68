import { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";
export type { components, operations, paths, webhooks } from "./schema.js";
export * from "./errors.js";
export { paginate, type PagedPath, type PageItem } from "./paging.js";
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhook, type VerifyOptions, type WebhookEvent, type WebhookHeaders, } from "./webhooks.js";
/** The document's schemas: `Schemas["MessageRecord"]`, `Schemas["Broadcast"]`, ... */
export type Schemas = components["schemas"];
export declare const VERSION = "1.0.0";
export declare const USER_AGENT = "business-messaging-typescript/1.0.0";
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
export declare function createClient(options: ClientOptions): MessagingClient;
/**
 * The `data` of a successful answer: `unwrap(await api.GET(...))`. A failure has already thrown
 * with a client from `createClient`; with another client it throws here.
 */
export declare function unwrap<T>(result: {
    data?: {
        data: T;
    };
    error?: unknown;
    response: Response;
}): T;
/**
 * A fresh Idempotency-Key. Make it once per intended send and keep it with the request: a retry
 * with the same key and body answers the first result (for 24 hours) instead of sending again.
 */
export declare function newIdempotencyKey(): string;
