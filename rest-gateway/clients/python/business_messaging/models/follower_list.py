from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.follower import Follower


T = TypeVar("T", bound="FollowerList")


@_attrs_define
class FollowerList:
    """
    Attributes:
        followers (list[Follower]):
        has_more (bool): Whether older follows follow: ask again with `starting_after` = the last `user_id`.
    """

    followers: list[Follower]
    has_more: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        followers = []
        for followers_item_data in self.followers:
            followers_item = followers_item_data.to_dict()
            followers.append(followers_item)

        has_more = self.has_more

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "followers": followers,
                "has_more": has_more,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.follower import Follower  # noqa: PLC0415

        d = dict(src_dict)
        followers = []
        _followers = d.pop("followers")
        for followers_item_data in _followers:
            followers_item = Follower.from_dict(followers_item_data)

            followers.append(followers_item)

        has_more = d.pop("has_more")

        follower_list = cls(
            followers=followers,
            has_more=has_more,
        )

        follower_list.additional_properties = d
        return follower_list

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
