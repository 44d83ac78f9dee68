// The library against a live all-in-one: README's quickstart written with it, paging through
// history and events, a broadcast and its progress, and failures as typed errors.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  createClient,
  newIdempotencyKey,
  paginate,
  unwrap,
  verifyWebhook,
  type MessagingClient,
} from "business-messaging";

import { Receiver, baseUrl, demo, live, parsed, signIn, sleep } from "./helpers.js";

describe("against the all-in-one", { skip: !live && "BM_BASE_URL is not set" }, () => {
  let app: MessagingClient;
  let owner: MessagingClient;
  let receiver: Receiver;
  const businessAccountId = () => demo.business_account_id;
  const follower = () => demo.followers[0]!.phone_number;

  before(async () => {
    app = createClient({ baseUrl, token: demo.app_token });
    owner = createClient({ baseUrl, token: await signIn(demo.owner_phone_number) });
    receiver = await Receiver.start();
  });
  after(() => receiver?.close());

  test("the quickstart: sign-in, webhook, send, history and a verified delivery", async () => {
    const business = unwrap(await owner.GET("/business/me"));
    assert.equal(business.user_id, businessAccountId());
    assert.equal(business.mode, "live");

    const endpoint = unwrap(
      await owner.POST("/business/webhooks", {
        body: { url: `${receiver.url}/hooks`, events: ["message.sent", "message.failed"] },
      }),
    );
    assert.ok(endpoint.secret?.startsWith("whsec_"));
    try {
      const key = newIdempotencyKey();
      const send = () =>
        app.POST("/v1/{businessAccountId}/messages", {
          params: { path: { businessAccountId: businessAccountId() }, header: { "Idempotency-Key": key } },
          body: { to: follower(), category: "utility", body: "Your order 1042 has shipped" },
        });
      const sent = unwrap(await send());
      assert.equal(sent.status, "sent");
      // A retry with the same key and body answers the same message instead of sending again.
      assert.equal(unwrap(await send()).id, sent.id);

      const delivery = await receiver.waitFor(
        (r) => parsed(r).type === "message.sent" && parsed(r).data.message_send_id === sent.id,
      );
      const event = await verifyWebhook(delivery.body, delivery.headers, endpoint.secret!);
      assert.equal(event.type, "message.sent");
      if (event.type === "message.sent") {
        assert.equal(event.data.status, "delivered");
        assert.equal(event.data.category, "utility");
      }
      assert.equal(delivery.headers["x-service-delivery"], event.delivery_id);

      const message = unwrap(await owner.GET("/business/messages/{id}", { params: { path: { id: sent.id } } }));
      assert.equal(message.source, "app");
      const history = unwrap(await owner.GET("/business/messages", { params: { query: { limit: 5 } } }));
      assert.ok(history.messages.some((m) => m.id === sent.id));
    } finally {
      await owner.DELETE("/business/webhooks/{id}", { params: { path: { id: endpoint.id } } });
    }
  });

  test("paging through history and events", async () => {
    const sent: string[] = [];
    for (let n = 0; n < 7; n++) {
      const answer = await app.POST("/v1/{businessAccountId}/messages", {
        params: { path: { businessAccountId: businessAccountId() } },
        body: { to: follower(), category: "utility", body: `Paging ${n}` },
      });
      sent.push(unwrap(answer).id);
    }
    const seen: string[] = [];
    for await (const message of paginate(owner, "/business/messages", { limit: 3, source: "app" })) {
      seen.push(message.id);
    }
    assert.equal(new Set(seen).size, seen.length, "an item came twice");
    const positions = sent.map((id) => seen.indexOf(id));
    assert.ok(positions.every((p) => p >= 0));
    assert.deepEqual(positions, [...positions].sort((a, b) => b - a), "newest first, page after page");

    // The iteration fetches pages as it needs them: stopping early is fine.
    const firstTwo: string[] = [];
    for await (const message of paginate(owner, "/business/messages", { limit: 1 })) {
      firstTwo.push(message.id);
      if (firstTwo.length === 2) break;
    }
    assert.equal(firstTwo.length, 2);

    // Events, oldest first after a known one, as a poller reads them.
    const newest = [];
    for await (const event of paginate(owner, "/business/events", { limit: 50 })) newest.push(event);
    assert.ok(newest.length > 0);
    const start = newest[Math.min(newest.length - 1, 10)]!;
    const later: string[] = [];
    for await (const event of paginate(owner, "/business/events", { after: start.id, limit: 4 })) later.push(event.id);
    const expected = newest
      .slice(0, newest.indexOf(start))
      .reverse()
      .map((e) => e.id);
    assert.deepEqual(later.slice(0, expected.length), expected);
  });

  test("a broadcast and its progress", async () => {
    const path = { businessAccountId: businessAccountId() };
    const created = unwrap(
      await app.POST("/v1/{businessAccountId}/broadcasts", {
        params: { path, header: { "Idempotency-Key": newIdempotencyKey() } },
        body: { name: "TypeScript library broadcast", category: "utility", body: "We open at 9 tomorrow" },
      }),
    );
    const progress: string[] = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const broadcast = unwrap(
        await app.GET("/v1/{businessAccountId}/broadcasts/{id}", { params: { path: { ...path, id: created.id } } }),
      );
      progress.push(`${broadcast.status} ${broadcast.counts.accepted}/${broadcast.counts.delivered}`);
      if (broadcast.status === "completed") {
        const c = broadcast.counts;
        assert.equal(c.audience, demo.follower_count);
        assert.equal(c.accepted + c.skipped + c.not_created, c.audience);
        assert.equal(c.accepted, c.audience);
        assert.equal(c.delivered, c.accepted);
        assert.ok(broadcast.completed_at);
        break;
      }
      assert.ok(Date.now() < deadline, `the broadcast did not complete: ${progress.join(", ")}`);
      await sleep(200);
    }
  });

  test("failures are typed errors with code and detail", async () => {
    const path = { businessAccountId: businessAccountId() };
    const send = (body: string, to = follower(), key?: string) =>
      app.POST("/v1/{businessAccountId}/messages", {
        params: { path, header: key ? { "Idempotency-Key": key } : {} },
        body: { to, category: "utility", body },
      });

    await assert.rejects(send(""), (err: unknown) => {
      assert.ok(err instanceof BadRequestError);
      assert.equal(err.status, 400);
      assert.ok(["message_body_required", "invalid_request"].includes(err.code));
      assert.ok(err.detail.length > 0 && err.requestId);
      return true;
    });
    // A user who does not follow this business (its owner).
    await assert.rejects(send("Hello", demo.owner_phone_number), (err: unknown) => {
      assert.ok(err instanceof PermissionDeniedError);
      assert.equal(err.code, "business_follow_required");
      assert.match(err.detail, /follow/);
      return true;
    });
    await assert.rejects(owner.GET("/business/messages/{id}", { params: { path: { id: randomUUID() } } }), (err) => {
      assert.ok(err instanceof NotFoundError);
      assert.equal(err.code, "message_not_found");
      return true;
    });
    const key = newIdempotencyKey();
    await send("One", follower(), key);
    await assert.rejects(send("Two", follower(), key), (err) => {
      assert.ok(err instanceof ConflictError);
      assert.equal(err.code, "idempotency_key_conflict");
      return true;
    });
    const stranger = createClient({ baseUrl, token: "sva_unknown" });
    await assert.rejects(
      stranger.POST("/v1/{businessAccountId}/messages", { params: { path }, body: { to: follower(), category: "utility", body: "Hi" } }),
      (err) => {
        assert.ok(err instanceof AuthenticationError && err instanceof ApiError);
        assert.equal(err.code, "invalid_app_token");
        assert.equal((err.body as { success: boolean }).success, false);
        return true;
      },
    );
  });

  test("a rotated secret verifies with both secrets during its grace", async () => {
    const endpoint = unwrap(
      await owner.POST("/business/webhooks", { body: { url: `${receiver.url}/rotated`, events: ["message.sent"] } }),
    );
    try {
      const old = endpoint.secret!;
      const secret = `whsec_${randomBytes(32).toString("base64")}`;
      const rotated = unwrap(
        await owner.POST("/business/webhooks/{id}/rotate-secret", {
          params: { path: { id: endpoint.id } },
          body: { secret, grace_seconds: 3600 },
        }),
      );
      assert.ok(rotated.previous_secret_expires_at);
      await owner.POST("/business/webhooks/{id}/test", { params: { path: { id: endpoint.id } } });
      const delivery = await receiver.waitFor((r) => parsed(r).type === "webhook.test");
      assert.equal(String(delivery.headers["x-service-signature"]).split("v1=").length - 1, 2);
      for (const secrets of [old, secret, [secret, old]]) {
        assert.equal((await verifyWebhook(delivery.body, delivery.headers, secrets)).type, "webhook.test");
      }
      const standard = Object.fromEntries(
        Object.entries(delivery.headers).filter(([k]) => k.startsWith("webhook-")),
      ) as Record<string, string>;
      assert.deepEqual(Object.keys(standard).sort(), ["webhook-id", "webhook-signature", "webhook-timestamp"]);
      assert.equal((await verifyWebhook(delivery.body, standard, secret)).type, "webhook.test");
    } finally {
      await owner.DELETE("/business/webhooks/{id}", { params: { path: { id: endpoint.id } } });
    }
  });
});
