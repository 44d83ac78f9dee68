from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.change_source import ChangeSource, check_change_source
from ..models.follow_status import FollowStatus, check_follow_status

T = TypeVar("T", bound="FollowerChange")


@_attrs_define
class FollowerChange:
    """One change of a follow's status or marketing consent.

    Attributes:
        at (datetime.datetime):
        marketing_opt_in (bool):
        source (ChangeSource): Who changed a follow: `user` (the user's own follow calls) or `operator` (support, on
            the user's request).
        status (FollowStatus): A follow's status.
    """

    at: datetime.datetime
    marketing_opt_in: bool
    source: ChangeSource
    status: FollowStatus
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        marketing_opt_in = self.marketing_opt_in

        source: str = self.source

        status: str = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "marketing_opt_in": marketing_opt_in,
                "source": source,
                "status": status,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        marketing_opt_in = d.pop("marketing_opt_in")

        source = check_change_source(d.pop("source"))

        status = check_follow_status(d.pop("status"))

        follower_change = cls(
            at=at,
            marketing_opt_in=marketing_opt_in,
            source=source,
            status=status,
        )

        follower_change.additional_properties = d
        return follower_change

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
