"""Conversations with the library: a follower writes to the business, the business reads the
thread and answers inside the window, and the follower reads the answer."""

from __future__ import annotations

import time
import uuid
from typing import Any

from conftest import sign_in

from business_messaging import new_client, new_idempotency_key, unwrap
from business_messaging.api.conversations import (
    get_business_thread,
    get_conversation_messages,
    list_conversations,
    mark_conversation_read,
    send_conversation_message,
    write_to_business,
)
from business_messaging.models import ConversationMessageBody, ReadBody, UserMessageBody


def test_a_user_message_a_reply_and_the_thread(base_url: str, owner, demo: dict[str, Any]):
    business = demo["business_account_id"]
    follower = demo["followers"][1]
    with new_client(base_url, token=sign_in(base_url, follower["phone_number"])) as user:
        key = str(uuid.uuid4())
        body = UserMessageBody(text="Is the terrace open tonight?", client_message_id=key)
        wrote = unwrap(write_to_business.sync(business, client=user, body=body))
        assert wrote.sequence == 1
        again = unwrap(write_to_business.sync(business, client=user, body=body))
        assert again.id == wrote.id, "a retry with the same client_message_id answers the original"

        listed = unwrap(list_conversations.sync(client=owner, unread=True))
        conversation = next(c for c in listed.conversations if c.id == wrote.conversation_id)
        assert str(conversation.user_id) == follower["user_id"]
        assert conversation.unread == 1
        thread = unwrap(get_conversation_messages.sync(wrote.conversation_id, client=owner))
        assert [m.id for m in thread.messages] == [wrote.id]
        mark = unwrap(mark_conversation_read.sync(wrote.conversation_id, client=owner, body=ReadBody(up_to=wrote.id)))
        assert mark.read_up_to == wrote.id

        reply = ConversationMessageBody(text="Yes, until 22:00.", reply_to=wrote.id)
        sent = unwrap(
            send_conversation_message.sync(
                wrote.conversation_id,
                client=owner,
                body=reply,
                idempotency_key=new_idempotency_key(),
            )
        )
        assert sent.status == "sent"

        # The follower sees the answer once it is delivered.
        deadline = time.monotonic() + 30
        while True:
            own = unwrap(get_business_thread.sync(business, client=user))
            if any(m.id == sent.id for m in own.messages):
                break
            assert time.monotonic() < deadline, f"the reply did not reach the thread: {own}"
            time.sleep(0.2)
        answer = next(m for m in own.messages if m.id == sent.id)
        assert answer.direction == "outbound"
        assert answer.body == "Yes, until 22:00."
        assert answer.reply_to == wrote.id
