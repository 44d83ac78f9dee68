"""Templates with the library: the owner creates one, previews it with ``render``, and the app
sends it to a follower; the message read back holds the rendered text and what it came from."""

from __future__ import annotations

from typing import Any

import pytest

from business_messaging import BadRequestError, new_idempotency_key, unwrap
from business_messaging.api.messages import get_message, send_app_message
from business_messaging.api.templates import create_template, render_template
from business_messaging.models import (
    CreateTemplateBody,
    RenderTemplateBody,
    TemplatedMessage,
    TemplateUse,
)


def test_a_template_created_previewed_and_sent(owner, app, demo: dict[str, Any]):
    created = unwrap(
        create_template.sync(
            client=owner,
            body=CreateTemplateBody.from_dict(
                {
                    "name": "table_ready",
                    "category": "utility",
                    "variables": {"table": {"max_length": 10}},
                    "variants": {
                        "en": {"body": "Your table {{table}} is ready."},
                        "pt-br": {"body": "A sua mesa {{table}} está pronta."},
                    },
                    "default_locale": "en",
                }
            ),
        )
    )
    assert created.version == 1
    assert "pt-BR" in created.variants.to_dict(), "locales are stored canonical"

    preview = unwrap(
        render_template.sync(
            created.id,
            client=owner,
            body=RenderTemplateBody.from_dict({"variables": {"table": "12"}, "locale": "PT-br"}),
        )
    )
    assert preview.locale == "pt-BR"
    assert preview.body == "A sua mesa 12 está pronta."

    follower = demo["followers"][2]
    use = TemplateUse.from_dict({"name": "table_ready", "variables": {"table": "12"}})
    sent = unwrap(
        send_app_message.sync(
            demo["business_account_id"],
            client=app,
            body=TemplatedMessage(to=follower["phone_number"], category="utility", template=use),
            idempotency_key=new_idempotency_key(),
        )
    )
    message = unwrap(get_message.sync(sent.id, client=owner))
    assert message.body == "Your table 12 is ready."
    assert message.template.name == "table_ready"
    assert message.template.version == 1
    assert message.template.locale == "en"

    missing = TemplateUse.from_dict({"name": "table_ready", "variables": {}})
    with pytest.raises(BadRequestError) as refused:
        unwrap(
            send_app_message.sync(
                demo["business_account_id"],
                client=app,
                body=TemplatedMessage(to=follower["phone_number"], category="utility", template=missing),
            )
        )
    assert refused.value.code == "template_variable_missing"
