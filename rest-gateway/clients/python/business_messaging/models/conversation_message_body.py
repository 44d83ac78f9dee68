from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversation_message_body_message_content_type_0 import (
        ConversationMessageBodyMessageContentType0,
    )
    from ..models.template_use import TemplateUse


T = TypeVar("T", bound="ConversationMessageBody")


@_attrs_define
class ConversationMessageBody:
    """A business message in a conversation: free text (`text`, `reply_to`) inside the window, or a
    `utility` or `marketing` message (`category` with `body`, `message_content` or `template`)
    under that category's consent rules whatever the window.

        Attributes:
            body (None | str | Unset):
            category (None | str | Unset): `utility` or `marketing`, for a category message.
            expires_at (None | str | Unset): Refused: conversation messages go now.
            message_content (ConversationMessageBodyMessageContentType0 | None | Unset):
            reply_to (None | Unset | UUID): Any message of the thread.
            send_at (None | str | Unset): Refused: conversation messages go now.
            template (None | TemplateUse | Unset):
            text (None | str | Unset): Free text, 1 to 4,096 characters (alone, with `reply_to`). Example: It left our
                warehouse this morning..
    """

    body: None | str | Unset = UNSET
    category: None | str | Unset = UNSET
    expires_at: None | str | Unset = UNSET
    message_content: ConversationMessageBodyMessageContentType0 | None | Unset = UNSET
    reply_to: None | Unset | UUID = UNSET
    send_at: None | str | Unset = UNSET
    template: None | TemplateUse | Unset = UNSET
    text: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.conversation_message_body_message_content_type_0 import (
            ConversationMessageBodyMessageContentType0,  # noqa: PLC0415
        )
        from ..models.template_use import TemplateUse  # noqa: PLC0415

        body: None | str | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        else:
            body = self.body

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = self.expires_at

        message_content: dict[str, Any] | None | Unset
        if isinstance(self.message_content, Unset):
            message_content = UNSET
        elif isinstance(
            self.message_content, ConversationMessageBodyMessageContentType0
        ):
            message_content = self.message_content.to_dict()
        else:
            message_content = self.message_content

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        elif isinstance(self.reply_to, UUID):
            reply_to = str(self.reply_to)
        else:
            reply_to = self.reply_to

        send_at: None | str | Unset
        if isinstance(self.send_at, Unset):
            send_at = UNSET
        else:
            send_at = self.send_at

        template: dict[str, Any] | None | Unset
        if isinstance(self.template, Unset):
            template = UNSET
        elif isinstance(self.template, TemplateUse):
            template = self.template.to_dict()
        else:
            template = self.template

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if body is not UNSET:
            field_dict["body"] = body
        if category is not UNSET:
            field_dict["category"] = category
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to
        if send_at is not UNSET:
            field_dict["send_at"] = send_at
        if template is not UNSET:
            field_dict["template"] = template
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.conversation_message_body_message_content_type_0 import (
            ConversationMessageBodyMessageContentType0,  # noqa: PLC0415
        )
        from ..models.template_use import TemplateUse  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_expires_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_message_content(
            data: object,
        ) -> ConversationMessageBodyMessageContentType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                message_content_type_0 = (
                    ConversationMessageBodyMessageContentType0.from_dict(data)
                )

                return message_content_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConversationMessageBodyMessageContentType0 | None | Unset, data)

        message_content = _parse_message_content(d.pop("message_content", UNSET))

        def _parse_reply_to(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reply_to_type_0 = UUID(data)

                return reply_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        def _parse_send_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        send_at = _parse_send_at(d.pop("send_at", UNSET))

        def _parse_template(data: object) -> None | TemplateUse | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                template_type_0 = TemplateUse.from_dict(data)

                return template_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateUse | Unset, data)

        template = _parse_template(d.pop("template", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        conversation_message_body = cls(
            body=body,
            category=category,
            expires_at=expires_at,
            message_content=message_content,
            reply_to=reply_to,
            send_at=send_at,
            template=template,
            text=text,
        )

        return conversation_message_body
