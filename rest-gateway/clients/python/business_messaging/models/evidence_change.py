from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.change_source import ChangeSource, check_change_source
from ..models.follow_status import FollowStatus, check_follow_status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.consent_text import ConsentText


T = TypeVar("T", bound="EvidenceChange")


@_attrs_define
class EvidenceChange:
    """One change of a follower's consent ledger, as evidence.

    Attributes:
        at (datetime.datetime):
        marketing_opt_in (bool):
        opt_in (bool): Whether this change gave marketing consent (an opt-in).
        source (ChangeSource): Who changed a follow: `user` (the user's own follow calls) or `operator` (support, on
            the user's request).
        status (FollowStatus): A follow's status.
        user_named_version (bool): An opt-in: whether the user's call named that version (the app showed it).
        consent_text (ConsentText | None | Unset):
    """

    at: datetime.datetime
    marketing_opt_in: bool
    opt_in: bool
    source: ChangeSource
    status: FollowStatus
    user_named_version: bool
    consent_text: ConsentText | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.consent_text import ConsentText  # noqa: PLC0415

        at = self.at.isoformat()

        marketing_opt_in = self.marketing_opt_in

        opt_in = self.opt_in

        source: str = self.source

        status: str = self.status

        user_named_version = self.user_named_version

        consent_text: dict[str, Any] | None | Unset
        if isinstance(self.consent_text, Unset):
            consent_text = UNSET
        elif isinstance(self.consent_text, ConsentText):
            consent_text = self.consent_text.to_dict()
        else:
            consent_text = self.consent_text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "marketing_opt_in": marketing_opt_in,
                "opt_in": opt_in,
                "source": source,
                "status": status,
                "user_named_version": user_named_version,
            }
        )
        if consent_text is not UNSET:
            field_dict["consent_text"] = consent_text

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.consent_text import ConsentText  # noqa: PLC0415

        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        marketing_opt_in = d.pop("marketing_opt_in")

        opt_in = d.pop("opt_in")

        source = check_change_source(d.pop("source"))

        status = check_follow_status(d.pop("status"))

        user_named_version = d.pop("user_named_version")

        def _parse_consent_text(data: object) -> ConsentText | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                consent_text_type_0 = ConsentText.from_dict(data)

                return consent_text_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConsentText | None | Unset, data)

        consent_text = _parse_consent_text(d.pop("consent_text", UNSET))

        evidence_change = cls(
            at=at,
            marketing_opt_in=marketing_opt_in,
            opt_in=opt_in,
            source=source,
            status=status,
            user_named_version=user_named_version,
            consent_text=consent_text,
        )

        evidence_change.additional_properties = d
        return evidence_change

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
