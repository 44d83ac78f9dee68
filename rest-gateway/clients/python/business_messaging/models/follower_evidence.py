from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.evidence_change import EvidenceChange
    from ..models.evidence_message import EvidenceMessage


T = TypeVar("T", bound="FollowerEvidence")


@_attrs_define
class FollowerEvidence:
    """What proves one follower's marketing consent.

    Attributes:
        changes (list[EvidenceChange]): The consent ledger, oldest first.
        marketing_messages (list[EvidenceMessage]): The marketing messages sent to them that are still kept, newest
            first, at most 1,000.
        user_id (UUID):
    """

    changes: list[EvidenceChange]
    marketing_messages: list[EvidenceMessage]
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        changes = []
        for changes_item_data in self.changes:
            changes_item = changes_item_data.to_dict()
            changes.append(changes_item)

        marketing_messages = []
        for marketing_messages_item_data in self.marketing_messages:
            marketing_messages_item = marketing_messages_item_data.to_dict()
            marketing_messages.append(marketing_messages_item)

        user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "changes": changes,
                "marketing_messages": marketing_messages,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.evidence_change import EvidenceChange  # noqa: PLC0415
        from ..models.evidence_message import EvidenceMessage  # noqa: PLC0415

        d = dict(src_dict)
        changes = []
        _changes = d.pop("changes")
        for changes_item_data in _changes:
            changes_item = EvidenceChange.from_dict(changes_item_data)

            changes.append(changes_item)

        marketing_messages = []
        _marketing_messages = d.pop("marketing_messages")
        for marketing_messages_item_data in _marketing_messages:
            marketing_messages_item = EvidenceMessage.from_dict(
                marketing_messages_item_data
            )

            marketing_messages.append(marketing_messages_item)

        user_id = UUID(d.pop("user_id"))

        follower_evidence = cls(
            changes=changes,
            marketing_messages=marketing_messages,
            user_id=user_id,
        )

        follower_evidence.additional_properties = d
        return follower_evidence

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
