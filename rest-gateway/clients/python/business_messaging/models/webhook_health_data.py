from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.last_failure import LastFailure


T = TypeVar("T", bound="WebhookHealthData")


@_attrs_define
class WebhookHealthData:
    """`webhook.failing`, `webhook.recovered`: another endpoint of the business turned failing, or
    answered again (to the business's other endpoints that subscribe, and the events API).

        Attributes:
            consecutive_failures (int): Failed attempts in a row when it turned (for a recovery: before the success).
            url (str):
            webhook_id (UUID): The endpoint that turned.
            failing_since (datetime.datetime | None | Unset): When it turned failing.
            last_failure (LastFailure | None | Unset):
    """

    consecutive_failures: int
    url: str
    webhook_id: UUID
    failing_since: datetime.datetime | None | Unset = UNSET
    last_failure: LastFailure | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.last_failure import LastFailure  # noqa: PLC0415

        consecutive_failures = self.consecutive_failures

        url = self.url

        webhook_id = str(self.webhook_id)

        failing_since: None | str | Unset
        if isinstance(self.failing_since, Unset):
            failing_since = UNSET
        elif isinstance(self.failing_since, datetime.datetime):
            failing_since = self.failing_since.isoformat()
        else:
            failing_since = self.failing_since

        last_failure: dict[str, Any] | None | Unset
        if isinstance(self.last_failure, Unset):
            last_failure = UNSET
        elif isinstance(self.last_failure, LastFailure):
            last_failure = self.last_failure.to_dict()
        else:
            last_failure = self.last_failure

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consecutive_failures": consecutive_failures,
                "url": url,
                "webhook_id": webhook_id,
            }
        )
        if failing_since is not UNSET:
            field_dict["failing_since"] = failing_since
        if last_failure is not UNSET:
            field_dict["last_failure"] = last_failure

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.last_failure import LastFailure  # noqa: PLC0415

        d = dict(src_dict)
        consecutive_failures = d.pop("consecutive_failures")

        url = d.pop("url")

        webhook_id = UUID(d.pop("webhook_id"))

        def _parse_failing_since(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failing_since_type_0 = datetime.datetime.fromisoformat(data)

                return failing_since_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        failing_since = _parse_failing_since(d.pop("failing_since", UNSET))

        def _parse_last_failure(data: object) -> LastFailure | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_failure_type_0 = LastFailure.from_dict(data)

                return last_failure_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LastFailure | None | Unset, data)

        last_failure = _parse_last_failure(d.pop("last_failure", UNSET))

        webhook_health_data = cls(
            consecutive_failures=consecutive_failures,
            url=url,
            webhook_id=webhook_id,
            failing_since=failing_since,
            last_failure=last_failure,
        )

        webhook_health_data.additional_properties = d
        return webhook_health_data

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
