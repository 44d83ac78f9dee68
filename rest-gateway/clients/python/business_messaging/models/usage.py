from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.follower_totals import FollowerTotals
    from ..models.message_totals import MessageTotals
    from ..models.webhook_totals import WebhookTotals


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """
    Attributes:
        followers (FollowerTotals): Active followers, and those of them opted in to marketing.
        messages (MessageTotals): Kept messages: `total` counts every status, `failed` excludes `canceled`.
        webhooks (WebhookTotals): Kept webhook deliveries; `pending` counts pending and retrying ones.
    """

    followers: FollowerTotals
    messages: MessageTotals
    webhooks: WebhookTotals
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        followers = self.followers.to_dict()

        messages = self.messages.to_dict()

        webhooks = self.webhooks.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "followers": followers,
                "messages": messages,
                "webhooks": webhooks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.follower_totals import FollowerTotals  # noqa: PLC0415
        from ..models.message_totals import MessageTotals  # noqa: PLC0415
        from ..models.webhook_totals import WebhookTotals  # noqa: PLC0415

        d = dict(src_dict)
        followers = FollowerTotals.from_dict(d.pop("followers"))

        messages = MessageTotals.from_dict(d.pop("messages"))

        webhooks = WebhookTotals.from_dict(d.pop("webhooks"))

        usage = cls(
            followers=followers,
            messages=messages,
            webhooks=webhooks,
        )

        usage.additional_properties = d
        return usage

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
