from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.webhook_health_state import WebhookHealthState, check_webhook_health_state
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.last_failure import LastFailure


T = TypeVar("T", bound="WebhookHealth")


@_attrs_define
class WebhookHealth:
    """An endpoint's delivery health, kept by the reports of its attempts. A failed attempt is any
    attempt not answered 2xx (timeout, connection error, 3xx, 4xx, 5xx); `webhook.test`
    deliveries count for nothing. The service never pauses or disables an endpoint.

        Attributes:
            consecutive_failures (int): Failed attempts in a row (0 after a success).
            state (WebhookHealthState): A webhook endpoint's delivery health: `failing` after `WEBHOOK_FAILING_AFTER` failed
                attempts in a row or a delivery that ended failed, `healthy` again at its next success,
                `paused` while a person paused it (reactivation restores the state it had).
            failing_since (datetime.datetime | None | Unset): When it turned failing; null unless failing.
            last_failure (LastFailure | None | Unset):
            last_failure_at (datetime.datetime | None | Unset):
            last_success_at (datetime.datetime | None | Unset): The last success (kept to the second).
    """

    consecutive_failures: int
    state: WebhookHealthState
    failing_since: datetime.datetime | None | Unset = UNSET
    last_failure: LastFailure | None | Unset = UNSET
    last_failure_at: datetime.datetime | None | Unset = UNSET
    last_success_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.last_failure import LastFailure  # noqa: PLC0415

        consecutive_failures = self.consecutive_failures

        state: str = self.state

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

        last_failure_at: None | str | Unset
        if isinstance(self.last_failure_at, Unset):
            last_failure_at = UNSET
        elif isinstance(self.last_failure_at, datetime.datetime):
            last_failure_at = self.last_failure_at.isoformat()
        else:
            last_failure_at = self.last_failure_at

        last_success_at: None | str | Unset
        if isinstance(self.last_success_at, Unset):
            last_success_at = UNSET
        elif isinstance(self.last_success_at, datetime.datetime):
            last_success_at = self.last_success_at.isoformat()
        else:
            last_success_at = self.last_success_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "consecutive_failures": consecutive_failures,
                "state": state,
            }
        )
        if failing_since is not UNSET:
            field_dict["failing_since"] = failing_since
        if last_failure is not UNSET:
            field_dict["last_failure"] = last_failure
        if last_failure_at is not UNSET:
            field_dict["last_failure_at"] = last_failure_at
        if last_success_at is not UNSET:
            field_dict["last_success_at"] = last_success_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.last_failure import LastFailure  # noqa: PLC0415

        d = dict(src_dict)
        consecutive_failures = d.pop("consecutive_failures")

        state = check_webhook_health_state(d.pop("state"))

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

        def _parse_last_failure_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_failure_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_failure_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_failure_at = _parse_last_failure_at(d.pop("last_failure_at", UNSET))

        def _parse_last_success_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_success_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_success_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_success_at = _parse_last_success_at(d.pop("last_success_at", UNSET))

        webhook_health = cls(
            consecutive_failures=consecutive_failures,
            state=state,
            failing_since=failing_since,
            last_failure=last_failure,
            last_failure_at=last_failure_at,
            last_success_at=last_success_at,
        )

        webhook_health.additional_properties = d
        return webhook_health

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
