// verifyWebhook against signatures made here, as the service makes them (no server needed).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";

import { WebhookVerificationError, verifyWebhook } from "business-messaging";

const NOW = 1_764_000_000;
const BODY = JSON.stringify({ id: "a", type: "message.sent", data: { status: "delivered" } });
const SECRET = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString("base64")}`;
const OTHER = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i + 1)).toString("base64")}`;
const LEGACY = "whsec_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v"; // the older form: 43 URL-safe characters

const service = (secret: string, t = NOW, body = BODY) =>
  createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
const standard = (secret: string, id = "d1", t = NOW, body = BODY) =>
  createHmac("sha256", Buffer.from(secret.slice(6), "base64")).update(`${id}.${t}.${body}`).digest("base64");
const refused = (message: RegExp) => (err: unknown) => err instanceof WebhookVerificationError && message.test(err.message);

test("the service signature verifies with its secret only", async () => {
  const headers = { "X-Service-Signature": `t=${NOW},v1=${service(SECRET)}` };
  assert.equal((await verifyWebhook(BODY, headers, SECRET, { now: NOW })).type, "message.sent");
  await assert.rejects(verifyWebhook(BODY, headers, OTHER, { now: NOW }), refused(/no signature matches/));
});

test("two v1 values during a rotation verify with either secret", async () => {
  const headers = new Headers({ "x-service-signature": `t=${NOW},v1=${service(OTHER)},v1=${service(SECRET)}` });
  for (const secret of [SECRET, OTHER, [LEGACY, SECRET]]) await verifyWebhook(BODY, headers, secret, { now: NOW });
  await assert.rejects(verifyWebhook(BODY, headers, LEGACY, { now: NOW }), refused(/no signature matches/));
});

test("a legacy secret signs the service header and is ignored for the standard one", async () => {
  await verifyWebhook(BODY, { "x-service-signature": `t=${NOW},v1=${service(LEGACY)}` }, LEGACY, { now: NOW });
  const onlyStandard = { "webhook-id": "d1", "webhook-timestamp": String(NOW), "webhook-signature": `v1,${standard(SECRET)}` };
  await assert.rejects(verifyWebhook(BODY, onlyStandard, LEGACY, { now: NOW }), refused(/no signature matches/));
});

test("Standard Webhooks headers verify, two signatures included", async () => {
  const headers = {
    "webhook-id": "d1",
    "webhook-timestamp": String(NOW),
    "webhook-signature": `v1,${standard(OTHER)} v1,${standard(SECRET)}`,
  };
  await verifyWebhook(BODY, headers, SECRET, { now: NOW });
  await verifyWebhook(BODY, headers, OTHER, { now: NOW });
  await assert.rejects(verifyWebhook(BODY, { ...headers, "webhook-id": "d2" }, SECRET, { now: NOW }), refused(/no signature/));
});

test("a changed body, an old timestamp or no header is refused", async () => {
  const headers = { "X-Service-Signature": `t=${NOW},v1=${service(SECRET)}` };
  await assert.rejects(verifyWebhook(`${BODY} `, headers, SECRET, { now: NOW }), refused(/no signature matches/));
  await assert.rejects(verifyWebhook(BODY, headers, SECRET, { now: NOW + 301 }), refused(/tolerance/));
  await verifyWebhook(BODY, headers, SECRET, { now: NOW + 301, toleranceSeconds: 600 });
  await assert.rejects(verifyWebhook(BODY, { "content-type": "application/json" }, SECRET, { now: NOW }), refused(/no X-Service-Signature/));
  await assert.rejects(verifyWebhook(BODY, { "X-Service-Signature": "v1=00" }, SECRET, { now: NOW }), refused(/no t or no v1/));
});

test("the body may be given as bytes", async () => {
  const headers = { "X-Service-Signature": `t=${NOW},v1=${service(SECRET)}` };
  const event = await verifyWebhook(new TextEncoder().encode(BODY), headers, SECRET, { now: NOW });
  assert.equal(event.type, "message.sent");
});
