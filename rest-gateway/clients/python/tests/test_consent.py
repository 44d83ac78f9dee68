"""Consent wording with the library: the owner sets a version, a follower reads it and opts in
naming it, a version no longer in force is refused, and the evidence names the wording."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from conftest import sign_in

from business_messaging import ConflictError, new_client, unwrap
from business_messaging.api.audience import get_consent_text, get_follower_evidence, set_consent_text
from business_messaging.api.follow import get_business_consent_text, update_follow
from business_messaging.models import PatchFollowBody, PutConsentTextBody


def test_consent_wording_an_opt_in_naming_it_and_the_evidence(owner, base_url: str, demo: dict[str, Any]):
    text = f"Weekly offers by SMS ({uuid.uuid4().hex[:8]}). Reply STOP to end them."
    saved = unwrap(set_consent_text.sync(client=owner, body=PutConsentTextBody(text=text)))
    assert saved.version >= 1 and saved.text == text
    assert unwrap(get_consent_text.sync(client=owner)).version == saved.version

    # A follower no other test of either library signs in: a number gets one code a minute.
    follower = demo["followers"][0]
    business = demo["business_account_id"]
    with new_client(base_url, token=sign_in(base_url, follower["phone_number"])) as user:
        shown = unwrap(get_business_consent_text.sync(business, client=user))
        assert shown.version == saved.version and shown.text == text
        with pytest.raises(ConflictError) as stale:
            stale_body = PatchFollowBody(marketing_opt_in=True, consent_text_version=saved.version + 1)
            unwrap(update_follow.sync(business, client=user, body=stale_body))
        assert stale.value.code == "consent_text_changed"
        unwrap(update_follow.sync(business, client=user, body=PatchFollowBody(marketing_opt_in=False)))
        follow = unwrap(
            update_follow.sync(
                business, client=user, body=PatchFollowBody(marketing_opt_in=True, consent_text_version=saved.version)
            )
        )
        assert follow.marketing_opt_in is True
        evidence = unwrap(get_follower_evidence.sync(follower["user_id"], client=owner))
        last = evidence.changes[-1]
        assert last.opt_in is True and last.user_named_version is True
        assert last.consent_text.version == saved.version and last.consent_text.text == text
        # As the demo left it.
        as_before = PatchFollowBody(marketing_opt_in=follower["marketing_opt_in"])
        unwrap(update_follow.sync(business, client=user, body=as_before))
