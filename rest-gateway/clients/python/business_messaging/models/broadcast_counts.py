from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="BroadcastCounts")


@_attrs_define
class BroadcastCounts:
    """Where a broadcast stands. `audience = accepted + skipped + not_created` once it started.

    Attributes:
        accepted (int): Messages created (each an ordinary message of the history, source `broadcast`).
        delivered (int): Created messages delivered, and failed.
        failed (int):
        not_created (int): Followers never reached because the broadcast was canceled (or its business stopped
            being live and active) first.
        skipped (int): Followers who no longer followed, or no longer consented to marketing, when their
            message would have been created: no message, no event.
        audience (int | None | Unset): The business's active followers when it started; null before.
    """

    accepted: int
    delivered: int
    failed: int
    not_created: int
    skipped: int
    audience: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accepted = self.accepted

        delivered = self.delivered

        failed = self.failed

        not_created = self.not_created

        skipped = self.skipped

        audience: int | None | Unset
        if isinstance(self.audience, Unset):
            audience = UNSET
        else:
            audience = self.audience

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accepted": accepted,
                "delivered": delivered,
                "failed": failed,
                "not_created": not_created,
                "skipped": skipped,
            }
        )
        if audience is not UNSET:
            field_dict["audience"] = audience

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        accepted = d.pop("accepted")

        delivered = d.pop("delivered")

        failed = d.pop("failed")

        not_created = d.pop("not_created")

        skipped = d.pop("skipped")

        def _parse_audience(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        audience = _parse_audience(d.pop("audience", UNSET))

        broadcast_counts = cls(
            accepted=accepted,
            delivered=delivered,
            failed=failed,
            not_created=not_created,
            skipped=skipped,
            audience=audience,
        )

        broadcast_counts.additional_properties = d
        return broadcast_counts

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
