from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.conversation_status import ConversationStatus, check_conversation_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateConversationBody")


@_attrs_define
class UpdateConversationBody:
    """What a team may change of a conversation. Absent fields stay; `null` clears.

    Attributes:
        assigned_to (None | Unset | UUID): A team member's user id; `null` unassigns.
        label (None | str | Unset): 0 to 100 characters; `null` or empty clears it.
        status (ConversationStatus | None | Unset):
    """

    assigned_to: None | Unset | UUID = UNSET
    label: None | str | Unset = UNSET
    status: ConversationStatus | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        assigned_to: None | str | Unset
        if isinstance(self.assigned_to, Unset):
            assigned_to = UNSET
        elif isinstance(self.assigned_to, UUID):
            assigned_to = str(self.assigned_to)
        else:
            assigned_to = self.assigned_to

        label: None | str | Unset
        if isinstance(self.label, Unset):
            label = UNSET
        else:
            label = self.label

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, str):
            status = self.status
        else:
            status = self.status

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if assigned_to is not UNSET:
            field_dict["assigned_to"] = assigned_to
        if label is not UNSET:
            field_dict["label"] = label
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_assigned_to(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                assigned_to_type_0 = UUID(data)

                return assigned_to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        assigned_to = _parse_assigned_to(d.pop("assigned_to", UNSET))

        def _parse_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label = _parse_label(d.pop("label", UNSET))

        def _parse_status(data: object) -> ConversationStatus | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = check_conversation_status(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConversationStatus | None | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        update_conversation_body = cls(
            assigned_to=assigned_to,
            label=label,
            status=status,
        )

        return update_conversation_body
