import type { components } from "./schema.js";
/** What any webhook delivery carries; narrow it on `type`. */
export type WebhookEvent = components["schemas"]["WebhookEvent"];
/** The default largest difference between a signature's time and this clock: five minutes. */
export declare const DEFAULT_TOLERANCE_SECONDS = 300;
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined> | Iterable<[string, string]>;
export interface VerifyOptions {
    /** Largest difference in seconds between the signature's time and this clock (default 300). */
    toleranceSeconds?: number;
    /** This clock in unix seconds (for tests); the system clock by default. */
    now?: number;
}
/**
 * Checks a delivery's signature and returns its parsed payload.
 *
 * @param body the raw request body, exactly as received (not re-serialized JSON).
 * @param headers the request's headers (a `Headers`, Node's `req.headers`, or pairs).
 * @param secret the endpoint's secret (`whsec_...`), or several during a rotation.
 * @throws WebhookVerificationError no signature header, a timestamp outside the tolerance, or no
 *   signature made with any of the secrets: answer such a request 400 and drop it.
 */
export declare function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string | string[], options?: VerifyOptions): Promise<WebhookEvent>;
