// Verifying a webhook delivery before trusting it. (Written by hand; `schema.ts` is generated.)
//
// Each delivery is signed twice over, and `verifyWebhook` accepts either:
// - `X-Service-Signature: t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `"<t>." + raw body` keyed
//   with the UTF-8 bytes of the endpoint's whole secret (every endpoint);
// - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>`:
//   HMAC-SHA256 of `"<id>.<timestamp>." + raw body` keyed with the base64-decoded part of the
//   secret after `whsec_` (endpoints whose secret has that form).
// During a secret rotation's grace each header carries one signature per secret: give the secrets
// you hold (new and old) and any one matching is enough. Web Crypto only: Node.js 20+, Deno, Bun,
// browsers and edge runtimes.

import type { components } from "./schema.js";
import { WebhookVerificationError } from "./errors.js";

/** What any webhook delivery carries; narrow it on `type`. */
export type WebhookEvent = components["schemas"]["WebhookEvent"];

/** The default largest difference between a signature's time and this clock: five minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

export interface VerifyOptions {
  /** Largest difference in seconds between the signature's time and this clock (default 300). */
  toleranceSeconds?: number;
  /** This clock in unix seconds (for tests); the system clock by default. */
  now?: number;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  const entries: Iterable<[string, string | string[] | undefined]> =
    Symbol.iterator in headers
      ? (headers as Iterable<[string, string]>)
      : Object.entries(headers as Record<string, string | string[] | undefined>);
  for (const [key, value] of entries) {
    if (key.toLowerCase() === name && value !== undefined) {
      return Array.isArray(value) ? value.join(",") : value;
    }
  }
  return undefined;
}

function concat(prefix: string, body: Uint8Array): Uint8Array {
  const head = encoder.encode(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    key as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, data as BufferSource));
}

/** Compares two strings in time that depends only on their lengths. */
function equal(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function standardKey(secret: string): Uint8Array | undefined {
  if (!secret.startsWith("whsec_")) return undefined;
  const encoded = secret.slice("whsec_".length);
  // The standard alphabet with padding; a secret of the older form (URL-safe) signs only
  // X-Service-Signature.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  return Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
}

function checkTimestamp(raw: string, now: number, tolerance: number): void {
  if (!/^\d+$/.test(raw)) {
    throw new WebhookVerificationError(`the signature's timestamp ${JSON.stringify(raw)} is not a number`);
  }
  const skew = Math.abs(now - Number(raw));
  if (skew > tolerance) {
    throw new WebhookVerificationError(
      `the signature's timestamp is ${Math.round(now - Number(raw))} s from this clock ` +
        `(tolerance ${tolerance} s): a replay, or a clock to fix`,
    );
  }
}

async function serviceSignature(
  value: string,
  body: Uint8Array,
  secrets: string[],
  now: number,
  tolerance: number,
): Promise<boolean> {
  let t: string | undefined;
  const candidates: string[] = [];
  for (const part of value.split(",")) {
    const [key, ...rest] = part.trim().split("=");
    const v = rest.join("=");
    if (key === "t") t = v;
    else if (key === "v1") candidates.push(v);
  }
  if (t === undefined || candidates.length === 0) {
    throw new WebhookVerificationError("X-Service-Signature has no t or no v1");
  }
  checkTimestamp(t, now, tolerance);
  const signed = concat(`${t}.`, body);
  for (const secret of secrets) {
    const expected = hex(await hmac(encoder.encode(secret), signed));
    if (candidates.some((c) => equal(expected, c))) return true;
  }
  return false;
}

async function standardSignature(
  id: string,
  ts: string,
  value: string,
  body: Uint8Array,
  secrets: string[],
  now: number,
  tolerance: number,
): Promise<boolean> {
  checkTimestamp(ts, now, tolerance);
  const candidates = value
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .map((s) => s.slice(3));
  const signed = concat(`${id}.${ts}.`, body);
  for (const secret of secrets) {
    const key = standardKey(secret);
    if (key === undefined) continue;
    const expected = base64(await hmac(key, signed));
    if (candidates.some((c) => equal(expected, c))) return true;
  }
  return false;
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
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const raw = typeof body === "string" ? encoder.encode(body) : body;
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0) throw new WebhookVerificationError("no secret given");
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Date.now() / 1000;

  const service = header(headers, "x-service-signature");
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const standard = header(headers, "webhook-signature");
  if (service === undefined && standard === undefined) {
    throw new WebhookVerificationError("the request carries no X-Service-Signature or webhook-signature");
  }
  let verified = false;
  if (service !== undefined) verified = await serviceSignature(service, raw, secrets, now, tolerance);
  if (!verified && standard !== undefined && id !== undefined && ts !== undefined) {
    verified = await standardSignature(id, ts, standard, raw, secrets, now, tolerance);
  }
  if (!verified) throw new WebhookVerificationError("no signature matches the given secret(s)");
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(raw));
  } catch (err) {
    throw new WebhookVerificationError(`the body is not JSON: ${(err as Error).message}`);
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new WebhookVerificationError("the body is not a JSON object");
  }
  return payload as WebhookEvent;
}
