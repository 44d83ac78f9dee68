// Consent wording with the library: the owner sets a version, a follower reads it and opts in
// naming it, a version no longer in force is refused, and the evidence names the wording.
import { strict as assert } from "node:assert";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import { ConflictError, createClient, unwrap } from "business-messaging";

import { baseUrl, demo, live, signIn } from "./helpers.js";

describe("consent wording against the all-in-one", { skip: !live && "BM_BASE_URL is not set" }, () => {
  test("the wording, an opt-in naming it and the evidence", async () => {
    const owner = createClient({ baseUrl, token: demo.owner_access_token });
    const text = `Weekly offers by SMS (${randomUUID().slice(0, 8)}). Reply STOP to end them.`;
    const saved = unwrap(await owner.PUT("/business/consent-text", { body: { text } }));
    assert.ok(saved.version >= 1);
    assert.equal(saved.text, text);
    assert.equal(unwrap(await owner.GET("/business/consent-text"))?.version, saved.version);

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
