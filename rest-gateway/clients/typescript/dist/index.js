// TypeScript client for the Business Messaging API. `schema.ts` is generated from the service's
// OpenAPI document by `rest-gateway/clients/generate` (openapi-typescript); requests go through
// openapi-fetch, typed by it. Written by hand: `createClient` (failures throw typed errors),
// `unwrap`, `paginate` and `verifyWebhook`.
import createFetchClient from "openapi-fetch";
import { ApiError, errorFromResponse } from "./errors.js";
export * from "./errors.js";
export { paginate } from "./paging.js";
export { DEFAULT_TOLERANCE_SECONDS, verifyWebhook, } from "./webhooks.js";
export const VERSION = "1.0.0";
export const USER_AGENT = `business-messaging-typescript/${VERSION}`;
const throwOnFailure = {
    async onResponse({ response }) {
        if (!response.ok)
            throw await errorFromResponse(response);
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
export function createClient(options) {
    const baseFetch = options.fetch ?? globalThis.fetch;
    const timeoutMs = options.timeoutMs ?? 30_000;
    const headers = { "User-Agent": USER_AGENT, ...options.headers };
    if (options.token)
        headers.Authorization = `Bearer ${options.token}`;
    const client = createFetchClient({
        baseUrl: options.baseUrl.replace(/\/+$/, ""),
        headers,
        fetch: (request) => baseFetch(new Request(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) })),
    });
    client.use(throwOnFailure);
    return client;
}
/**
 * The `data` of a successful answer: `unwrap(await api.GET(...))`. A failure has already thrown
 * with a client from `createClient`; with another client it throws here.
 */
export function unwrap(result) {
    if (result.data === undefined) {
        const status = result.response.status;
        const envelope = result.error;
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
export function newIdempotencyKey() {
    return crypto.randomUUID();
}
