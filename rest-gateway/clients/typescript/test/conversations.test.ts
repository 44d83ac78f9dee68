// Conversations with the library: a follower writes to the business, the business (its app token,
// on the /v1 twins) reads the thread and answers inside the window, and the follower reads the
// answer.
import { strict as assert } from "node:assert";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { createClient, newIdempotencyKey, unwrap } from "business-messaging";

import { baseUrl, demo, live, signIn, sleep } from "./helpers.js";

describe("conversations against the all-in-one", { skip: !live && "BM_BASE_URL is not set" }, () => {
  test("a user message, a reply and the thread", async () => {
    const business = demo.business_account_id;
    const follower = demo.followers[2]!;
    const user = createClient({ baseUrl, token: await signIn(follower.phone_number) });
    const app = createClient({ baseUrl, token: demo.app_token });
    const path = { params: { path: { businessAccountId: business } } };

    const body = { text: "Do you take reservations?", client_message_id: randomUUID() };
    const wrote = unwrap(await user.POST("/businesses/{businessAccountId}/messages", { ...path, body }));
    assert.equal(wrote.sequence, 1);
    const again = unwrap(await user.POST("/businesses/{businessAccountId}/messages", { ...path, body }));
    assert.equal(again.id, wrote.id, "a retry with the same client_message_id answers the original");

    const listed = unwrap(
      await app.GET("/v1/{businessAccountId}/conversations", {
        params: { path: { businessAccountId: business }, query: { unread: true } },
      }),
    );
    const conversation = listed.conversations.find((c) => c.id === wrote.conversation_id);
    assert.ok(conversation, "the conversation is listed");
    assert.equal(conversation.unread, 1);
    const id = { params: { path: { businessAccountId: business, id: wrote.conversation_id } } };
    const thread = unwrap(await app.GET("/v1/{businessAccountId}/conversations/{id}/messages", id));
    assert.deepEqual(
      thread.messages.map((m) => m.id),
      [wrote.id],
    );

    const sent = unwrap(
      await app.POST("/v1/{businessAccountId}/conversations/{id}/messages", {
        params: {
          path: { businessAccountId: business, id: wrote.conversation_id },
          header: { "Idempotency-Key": newIdempotencyKey() },
        },
        body: { text: "Yes: call us or answer here.", reply_to: wrote.id },
      }),
    );
    assert.equal(sent.status, "sent");

    // The follower sees the answer once it is delivered.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const own = unwrap(await user.GET("/businesses/{businessAccountId}/messages", path));
      const answer = own.messages.find((m) => m.id === sent.id);
      if (answer) {
        assert.equal(answer.direction, "outbound");
        assert.equal(answer.body, "Yes: call us or answer here.");
        assert.equal(answer.reply_to, wrote.id);
        break;
      }
      if (Date.now() > deadline) throw new Error("the reply did not reach the thread");
      await sleep(200);
    }
  });
});
