from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.failure_reason import FailureReason, check_failure_reason
from ..models.message_status import MessageStatus, check_message_status
from ..types import UNSET, Unset

T = TypeVar("T", bound="EvidenceMessage")


@_attrs_define
class EvidenceMessage:
    """A marketing message sent to the follower that is still kept.

    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        status (MessageStatus): A message's status: `accepted` until the outcome is known.
        broadcast_id (None | Unset | UUID):
        completed_at (datetime.datetime | None | Unset):
        failure_reason (FailureReason | None | Unset):
    """

    created_at: datetime.datetime
    id: UUID
    status: MessageStatus
    broadcast_id: None | Unset | UUID = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    failure_reason: FailureReason | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        status: str = self.status

        broadcast_id: None | str | Unset
        if isinstance(self.broadcast_id, Unset):
            broadcast_id = UNSET
        elif isinstance(self.broadcast_id, UUID):
            broadcast_id = str(self.broadcast_id)
        else:
            broadcast_id = self.broadcast_id

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        failure_reason: None | str | Unset
        if isinstance(self.failure_reason, Unset):
            failure_reason = UNSET
        elif isinstance(self.failure_reason, str):
            failure_reason = self.failure_reason
        else:
            failure_reason = self.failure_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "status": status,
            }
        )
        if broadcast_id is not UNSET:
            field_dict["broadcast_id"] = broadcast_id
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if failure_reason is not UNSET:
            field_dict["failure_reason"] = failure_reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        status = check_message_status(d.pop("status"))

        def _parse_broadcast_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                broadcast_id_type_0 = UUID(data)

                return broadcast_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        broadcast_id = _parse_broadcast_id(d.pop("broadcast_id", UNSET))

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_failure_reason(data: object) -> FailureReason | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failure_reason_type_0 = check_failure_reason(data)

                return failure_reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FailureReason | None | Unset, data)

        failure_reason = _parse_failure_reason(d.pop("failure_reason", UNSET))

        evidence_message = cls(
            created_at=created_at,
            id=id,
            status=status,
            broadcast_id=broadcast_id,
            completed_at=completed_at,
            failure_reason=failure_reason,
        )

        evidence_message.additional_properties = d
        return evidence_message

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
