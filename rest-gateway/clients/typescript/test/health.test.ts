// Delivery health with the library: an endpoint that cannot be reached turns failing after five
// failed attempts, its health and its day's counters read back typed; the member's alert setting.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";

import { createClient, unwrap } from "business-messaging";

import { baseUrl, demo, live } from "./helpers.js";

describe("delivery health against the all-in-one", { skip: !live && "BM_BASE_URL is not set" }, () => {
  test("a failing endpoint's health and stats, and the alert setting", async () => {
    const owner = createClient({ baseUrl, token: demo.owner_access_token });
    const app = createClient({ baseUrl, token: demo.app_token });
    // Nothing listens on port 9 of the loopback: every attempt fails to connect.
    const endpoint = unwrap(
      await owner.POST("/business/webhooks", {
        body: { url: "http://127.0.0.1:9/ts-down", events: ["message.sent"] },
      }),
    );
    try {
      assert.equal(endpoint.health.state, "healthy");
      assert.equal(endpoint.health.consecutive_failures, 0);
      const to = demo.followers[1]!.phone_number;
      const path = { businessAccountId: demo.business_account_id };
      for (let i = 0; i < 5; i += 1) {
        unwrap(await app.POST("/v1/{businessAccountId}/messages", { params: { path }, body: { to, category: "utility", body: `health ${i}` } }));
      }
      const deadline = Date.now() + 30_000;
      let health = endpoint.health;
      while (health.state !== "failing") {
        assert.ok(Date.now() < deadline, `still ${health.state} after 30 s`);
        await new Promise((r) => setTimeout(r, 200));
        const hooks = unwrap(await owner.GET("/business/webhooks"));
        health = hooks.find((w) => w.id === endpoint.id)!.health;
      }
      assert.ok(health.consecutive_failures >= 5);
      assert.ok(health.failing_since);
      assert.equal(health.last_failure?.http_status, null);
      const stats = unwrap(
        await owner.GET("/business/webhooks/{id}/stats", { params: { path: { id: endpoint.id }, query: { days: 2 } } }),
      );
      assert.equal(stats.days.length, 2);
      assert.ok(stats.days[1]!.failed_attempts >= 5);

      const me = unwrap(await owner.PATCH("/me", { body: { webhook_alerts: false } }));
      assert.equal(me.webhook_alerts, false);
      assert.equal(unwrap(await owner.PATCH("/me", { body: { webhook_alerts: true } })).webhook_alerts, true);
    } finally {
      await owner.DELETE("/business/webhooks/{id}", { params: { path: { id: endpoint.id } } });
    }
  });
});
