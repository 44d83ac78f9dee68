// Templates with the library: the owner creates one, previews it with `render`, and the app sends
// it to a follower; the message read back holds the rendered text and what it came from.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";

import { BadRequestError, createClient, newIdempotencyKey, unwrap } from "business-messaging";

import { baseUrl, demo, live } from "./helpers.js";

describe("templates against the all-in-one", { skip: !live && "BM_BASE_URL is not set" }, () => {
  test("a template created, previewed and sent", async () => {
    // The token `admin demo` made: the other suite signed the owner in a moment ago, and sign-in
    // codes are limited per number.
    const owner = createClient({ baseUrl, token: demo.owner_access_token });
    const app = createClient({ baseUrl, token: demo.app_token });
    const created = unwrap(
      await owner.POST("/business/templates", {
        body: {
          name: "table_ready",
          category: "utility",
          variables: { table: { max_length: 10 } },
          variants: {
            en: { body: "Your table {{table}} is ready." },
            "pt-br": { body: "A sua mesa {{table}} está pronta." },
          },
          default_locale: "en",
        },
      }),
    );
    assert.equal(created.version, 1);
    assert.ok("pt-BR" in created.variants, "locales are stored canonical");

    const preview = unwrap(
      await owner.POST("/business/templates/{id}/render", {
        params: { path: { id: created.id } },
        body: { variables: { table: "12" }, locale: "PT-br" },
      }),
    );
    assert.equal(preview.locale, "pt-BR");
    assert.equal(preview.body, "A sua mesa 12 está pronta.");

    const to = demo.followers[0]!.phone_number;
    const path = { businessAccountId: demo.business_account_id };
    const sent = unwrap(
      await app.POST("/v1/{businessAccountId}/messages", {
        params: { path, header: { "Idempotency-Key": newIdempotencyKey() } },
        body: { to, category: "utility", template: { name: "table_ready", variables: { table: "12" } } },
      }),
    );
    const message = unwrap(await owner.GET("/business/messages/{id}", { params: { path: { id: sent.id } } }));
    assert.equal(message.body, "Your table 12 is ready.");
    assert.equal(message.template?.name, "table_ready");
    assert.equal(message.template?.version, 1);
    assert.equal(message.template?.locale, "en");

    await assert.rejects(
      app.POST("/v1/{businessAccountId}/messages", {
        params: { path },
        body: { to, category: "utility", template: { name: "table_ready", variables: {} } },
      }),
      (err: unknown) => {
        assert.ok(err instanceof BadRequestError);
        assert.equal(err.code, "template_variable_missing");
        return true;
      },
    );
  });
});
