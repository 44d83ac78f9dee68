from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.broadcast_status import BroadcastStatus, check_broadcast_status

if TYPE_CHECKING:
    from ..models.broadcast_counts import BroadcastCounts


T = TypeVar("T", bound="BroadcastCompletedData")


@_attrs_define
class BroadcastCompletedData:
    """`broadcast.completed`: every message a broadcast created has its outcome.

    Attributes:
        broadcast_id (UUID):
        counts (BroadcastCounts): Where a broadcast stands. `audience = accepted + skipped + not_created` once it
            started.
        status (BroadcastStatus): A broadcast's status.
    """

    broadcast_id: UUID
    counts: BroadcastCounts
    status: BroadcastStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        broadcast_id = str(self.broadcast_id)

        counts = self.counts.to_dict()

        status: str = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "broadcast_id": broadcast_id,
                "counts": counts,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.broadcast_counts import BroadcastCounts  # noqa: PLC0415

        d = dict(src_dict)
        broadcast_id = UUID(d.pop("broadcast_id"))

        counts = BroadcastCounts.from_dict(d.pop("counts"))

        status = check_broadcast_status(d.pop("status"))

        broadcast_completed_data = cls(
            broadcast_id=broadcast_id,
            counts=counts,
            status=status,
        )

        broadcast_completed_data.additional_properties = d
        return broadcast_completed_data

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
