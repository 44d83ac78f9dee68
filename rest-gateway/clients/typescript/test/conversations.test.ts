// Conversations with the library: a follower writes to the business, the business (its app token,
// on the /v1 twins) reads the thread and answers inside the window, and the follower reads the
// answer. Then consent wording: the owner sets a version, the same follower opts in naming it, a
// version no longer in force is refused, and the evidence names the wording. (One file, one
// process: the follower signs in once, and a number gets one code a minute.)
import { strict as assert } from "node:assert";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { ConflictError, createClient, newIdempotencyKey, unwrap } from "business-messaging";

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

describe("consent wording against the all-in-one", { skip: !live && "BM_BASE_URL is not set" }, () => {
  test("the wording, an opt-in naming it and the evidence", async () => {
    const owner = createClient({ baseUrl, token: demo.owner_access_token });
    const text = `Weekly offers by SMS (${randomUUID().slice(0, 8)}). Reply STOP to end them.`;
    const saved = unwrap(await owner.PUT("/business/consent-text", { body: { text } }));
    assert.ok(saved.version >= 1);
    assert.equal(saved.text, text);
    assert.equal(unwrap(await owner.GET("/business/consent-text"))?.version, saved.version);

    // The conversations test's follower (signIn shares one sign-in per number in a process).
    const follower = demo.followers[2]!;
    const user = createClient({ baseUrl, token: await signIn(follower.phone_number) });
    const path = { businessAccountId: demo.business_account_id };
    const shown = unwrap(await user.GET("/businesses/{businessAccountId}/consent-text", { params: { path } }));
    assert.equal(shown?.version, saved.version);
    await assert.rejects(
      user.PATCH("/businesses/{businessAccountId}/follow", {
        params: { path },
        body: { marketing_opt_in: true, consent_text_version: saved.version + 1 },
      }),
      (err: unknown) => {
        assert.ok(err instanceof ConflictError);
        assert.equal(err.code, "consent_text_changed");
        return true;
      },
    );
    unwrap(await user.PATCH("/businesses/{businessAccountId}/follow", { params: { path }, body: { marketing_opt_in: false } }));
    const follow = unwrap(
      await user.PATCH("/businesses/{businessAccountId}/follow", {
        params: { path },
        body: { marketing_opt_in: true, consent_text_version: saved.version },
      }),
    );
    assert.equal(follow.marketing_opt_in, true);
    const evidence = unwrap(
      await owner.GET("/business/followers/{user_id}/evidence", { params: { path: { user_id: follower.user_id } } }),
    );
    const last = evidence.changes.at(-1)!;
    assert.equal(last.opt_in, true);
    assert.equal(last.user_named_version, true);
    assert.equal(last.consent_text?.version, saved.version);
    assert.equal(last.consent_text?.text, text);
    // As the demo left it.
    unwrap(
      await user.PATCH("/businesses/{businessAccountId}/follow", {
        params: { path },
        body: { marketing_opt_in: follower.marketing_opt_in },
      }),
    );
  });
});
