"""Contains all the data models used in inputs/outputs"""

from .add_member_body import AddMemberBody
from .app import App
from .app_with_token import AppWithToken
from .assignable_role import AssignableRole
from .attempt import Attempt
from .authentication_category import AuthenticationCategory
from .authentication_content import AuthenticationContent
from .authentication_message import AuthenticationMessage
from .broadcast import Broadcast
from .broadcast_category import BroadcastCategory
from .broadcast_completed_data import BroadcastCompletedData
from .broadcast_counts import BroadcastCounts
from .broadcast_list import BroadcastList
from .broadcast_message_content_type_0 import BroadcastMessageContentType0
from .broadcast_status import BroadcastStatus
from .broadcast_template_type_0 import BroadcastTemplateType0
from .business_account import BusinessAccount
from .business_mode import BusinessMode
from .business_status import BusinessStatus
from .change_source import ChangeSource
from .check_result import CheckResult
from .consent_text import ConsentText
from .conversation import Conversation
from .conversation_list import ConversationList
from .conversation_message_body import ConversationMessageBody
from .conversation_message_body_message_content_type_0 import (
    ConversationMessageBodyMessageContentType0,
)
from .conversation_status import ConversationStatus
from .create_app_body import CreateAppBody
from .create_sandbox_body import CreateSandboxBody
from .create_template_body import CreateTemplateBody
from .create_template_body_variables import CreateTemplateBodyVariables
from .create_template_body_variants import CreateTemplateBodyVariants
from .create_webhook_body import CreateWebhookBody
from .daily_usage import DailyUsage
from .day_messages import DayMessages
from .day_usage import DayUsage
from .delivery import Delivery
from .delivery_detail import DeliveryDetail
from .delivery_detail_payload_type_0 import DeliveryDetailPayloadType0
from .delivery_event_type import DeliveryEventType
from .delivery_log import DeliveryLog
from .delivery_status import DeliveryStatus
from .direction import Direction
from .envelope import Envelope
from .envelope_app_with_token import EnvelopeAppWithToken
from .envelope_broadcast import EnvelopeBroadcast
from .envelope_broadcast_list import EnvelopeBroadcastList
from .envelope_business_account import EnvelopeBusinessAccount
from .envelope_check_result import EnvelopeCheckResult
from .envelope_consent_text import EnvelopeConsentText
from .envelope_consent_text_or_null import EnvelopeConsentTextOrNull
from .envelope_conversation import EnvelopeConversation
from .envelope_conversation_list import EnvelopeConversationList
from .envelope_daily_usage import EnvelopeDailyUsage
from .envelope_delivery import EnvelopeDelivery
from .envelope_delivery_detail import EnvelopeDeliveryDetail
from .envelope_delivery_log import EnvelopeDeliveryLog
from .envelope_event_list import EnvelopeEventList
from .envelope_follow import EnvelopeFollow
from .envelope_follower_evidence import EnvelopeFollowerEvidence
from .envelope_follower_history import EnvelopeFollowerHistory
from .envelope_follower_list import EnvelopeFollowerList
from .envelope_health import EnvelopeHealth
from .envelope_lookup_results import EnvelopeLookupResults
from .envelope_me import EnvelopeMe
from .envelope_message_history import EnvelopeMessageHistory
from .envelope_message_record import EnvelopeMessageRecord
from .envelope_my_conversation_list import EnvelopeMyConversationList
from .envelope_qr_preview import EnvelopeQrPreview
from .envelope_qr_session import EnvelopeQrSession
from .envelope_qr_session_status import EnvelopeQrSessionStatus
from .envelope_qr_token import EnvelopeQrToken
from .envelope_read_mark import EnvelopeReadMark
from .envelope_recover_result import EnvelopeRecoverResult
from .envelope_rendered_template import EnvelopeRenderedTemplate
from .envelope_send_result import EnvelopeSendResult
from .envelope_team_member import EnvelopeTeamMember
from .envelope_template import EnvelopeTemplate
from .envelope_template_list import EnvelopeTemplateList
from .envelope_thread_page import EnvelopeThreadPage
from .envelope_token_pair import EnvelopeTokenPair
from .envelope_usage import EnvelopeUsage
from .envelope_user_message_result import EnvelopeUserMessageResult
from .envelope_vec_app import EnvelopeVecApp
from .envelope_vec_team_member import EnvelopeVecTeamMember
from .envelope_vec_webhook import EnvelopeVecWebhook
from .envelope_webhook import EnvelopeWebhook
from .envelope_webhook_stats import EnvelopeWebhookStats
from .error_code import ErrorCode
from .error_envelope import ErrorEnvelope
from .event import Event
from .event_data import EventData
from .event_list import EventList
from .event_type import EventType
from .evidence_change import EvidenceChange
from .evidence_message import EvidenceMessage
from .failure_reason import FailureReason
from .follow import Follow
from .follow_event_data import FollowEventData
from .follow_status import FollowStatus
from .follower import Follower
from .follower_change import FollowerChange
from .follower_evidence import FollowerEvidence
from .follower_history import FollowerHistory
from .follower_list import FollowerList
from .follower_totals import FollowerTotals
from .grant_revoked_data import GrantRevokedData
from .health import Health
from .last_failure import LastFailure
from .lookup_body import LookupBody
from .lookup_result import LookupResult
from .lookup_results import LookupResults
from .marketing_button import MarketingButton
from .marketing_category import MarketingCategory
from .marketing_content import MarketingContent
from .marketing_rich_message import MarketingRichMessage
from .marketing_text_message import MarketingTextMessage
from .me import Me
from .message_failed_data import MessageFailedData
from .message_history import MessageHistory
from .message_read_data import MessageReadData
from .message_received_data import MessageReceivedData
from .message_record import MessageRecord
from .message_record_message_content_type_0 import MessageRecordMessageContentType0
from .message_sent_data import MessageSentData
from .message_source import MessageSource
from .message_status import MessageStatus
from .message_template_ref import MessageTemplateRef
from .message_totals import MessageTotals
from .message_totals_by_category import MessageTotalsByCategory
from .my_conversation import MyConversation
from .my_conversation_list import MyConversationList
from .otp_request_body import OtpRequestBody
from .otp_verify_body import OtpVerifyBody
from .patch_follow_body import PatchFollowBody
from .put_consent_text_body import PutConsentTextBody
from .put_follow_body import PutFollowBody
from .qr_preview import QrPreview
from .qr_session import QrSession
from .qr_session_status import QrSessionStatus
from .qr_status import QrStatus
from .qr_token import QrToken
from .read_body import ReadBody
from .read_mark import ReadMark
from .record_category import RecordCategory
from .recover_body import RecoverBody
from .recover_result import RecoverResult
from .refresh_token_body import RefreshTokenBody
from .render_template_body import RenderTemplateBody
from .render_template_body_variables import RenderTemplateBodyVariables
from .rendered_template import RenderedTemplate
from .rendered_template_message_content_type_0 import (
    RenderedTemplateMessageContentType0,
)
from .rich_broadcast import RichBroadcast
from .role import Role
from .rotate_secret_body import RotateSecretBody
from .scope import Scope
from .send_result import SendResult
from .send_status import SendStatus
from .service_message_input import ServiceMessageInput
from .team_member import TeamMember
from .template import Template
from .template_list import TemplateList
from .template_status import TemplateStatus
from .template_use import TemplateUse
from .template_use_variables import TemplateUseVariables
from .template_variable import TemplateVariable
from .template_variables import TemplateVariables
from .template_variant import TemplateVariant
from .template_variant_message_content_type_0 import TemplateVariantMessageContentType0
from .template_variants import TemplateVariants
from .templated_broadcast import TemplatedBroadcast
from .templated_message import TemplatedMessage
from .text_broadcast import TextBroadcast
from .thread_entry import ThreadEntry
from .thread_entry_message_content_type_0 import ThreadEntryMessageContentType0
from .thread_page import ThreadPage
from .token_pair import TokenPair
from .token_type import TokenType
from .update_business_body import UpdateBusinessBody
from .update_conversation_body import UpdateConversationBody
from .update_me_body import UpdateMeBody
from .update_template_body import UpdateTemplateBody
from .update_template_body_variables_type_0 import UpdateTemplateBodyVariablesType0
from .update_template_body_variants_type_0 import UpdateTemplateBodyVariantsType0
from .update_webhook_body import UpdateWebhookBody
from .usage import Usage
from .user_message_body import UserMessageBody
from .user_message_result import UserMessageResult
from .user_redacted_data import UserRedactedData
from .user_status import UserStatus
from .utility_category import UtilityCategory
from .utility_message import UtilityMessage
from .webhook import Webhook
from .webhook_day import WebhookDay
from .webhook_health import WebhookHealth
from .webhook_health_data import WebhookHealthData
from .webhook_health_state import WebhookHealthState
from .webhook_payload_broadcast_completed_data import (
    WebhookPayloadBroadcastCompletedData,
)
from .webhook_payload_broadcast_completed_data_type import (
    WebhookPayloadBroadcastCompletedDataType,
)
from .webhook_payload_follow_event_data import WebhookPayloadFollowEventData
from .webhook_payload_follow_event_data_type import WebhookPayloadFollowEventDataType
from .webhook_payload_grant_revoked_data import WebhookPayloadGrantRevokedData
from .webhook_payload_grant_revoked_data_type import WebhookPayloadGrantRevokedDataType
from .webhook_payload_message_failed_data import WebhookPayloadMessageFailedData
from .webhook_payload_message_failed_data_type import (
    WebhookPayloadMessageFailedDataType,
)
from .webhook_payload_message_read_data import WebhookPayloadMessageReadData
from .webhook_payload_message_read_data_type import WebhookPayloadMessageReadDataType
from .webhook_payload_message_received_data import WebhookPayloadMessageReceivedData
from .webhook_payload_message_received_data_type import (
    WebhookPayloadMessageReceivedDataType,
)
from .webhook_payload_message_sent_data import WebhookPayloadMessageSentData
from .webhook_payload_message_sent_data_type import WebhookPayloadMessageSentDataType
from .webhook_payload_user_redacted_data import WebhookPayloadUserRedactedData
from .webhook_payload_user_redacted_data_type import WebhookPayloadUserRedactedDataType
from .webhook_payload_webhook_health_data import WebhookPayloadWebhookHealthData
from .webhook_payload_webhook_health_data_type import (
    WebhookPayloadWebhookHealthDataType,
)
from .webhook_payload_webhook_test_data import WebhookPayloadWebhookTestData
from .webhook_payload_webhook_test_data_type import WebhookPayloadWebhookTestDataType
from .webhook_stats import WebhookStats
from .webhook_test_data import WebhookTestData
from .webhook_totals import WebhookTotals
from .window_state import WindowState

__all__ = (
    "AddMemberBody",
    "App",
    "AppWithToken",
    "AssignableRole",
    "Attempt",
    "AuthenticationCategory",
    "AuthenticationContent",
    "AuthenticationMessage",
    "Broadcast",
    "BroadcastCategory",
    "BroadcastCompletedData",
    "BroadcastCounts",
    "BroadcastList",
    "BroadcastMessageContentType0",
    "BroadcastStatus",
    "BroadcastTemplateType0",
    "BusinessAccount",
    "BusinessMode",
    "BusinessStatus",
    "ChangeSource",
    "CheckResult",
    "ConsentText",
    "Conversation",
    "ConversationList",
    "ConversationMessageBody",
    "ConversationMessageBodyMessageContentType0",
    "ConversationStatus",
    "CreateAppBody",
    "CreateSandboxBody",
    "CreateTemplateBody",
    "CreateTemplateBodyVariables",
    "CreateTemplateBodyVariants",
    "CreateWebhookBody",
    "DailyUsage",
    "DayMessages",
    "DayUsage",
    "Delivery",
    "DeliveryDetail",
    "DeliveryDetailPayloadType0",
    "DeliveryEventType",
    "DeliveryLog",
    "DeliveryStatus",
    "Direction",
    "Envelope",
    "EnvelopeAppWithToken",
    "EnvelopeBroadcast",
    "EnvelopeBroadcastList",
    "EnvelopeBusinessAccount",
    "EnvelopeCheckResult",
    "EnvelopeConsentText",
    "EnvelopeConsentTextOrNull",
    "EnvelopeConversation",
    "EnvelopeConversationList",
    "EnvelopeDailyUsage",
    "EnvelopeDelivery",
    "EnvelopeDeliveryDetail",
    "EnvelopeDeliveryLog",
    "EnvelopeEventList",
    "EnvelopeFollow",
    "EnvelopeFollowerEvidence",
    "EnvelopeFollowerHistory",
    "EnvelopeFollowerList",
    "EnvelopeHealth",
    "EnvelopeLookupResults",
    "EnvelopeMe",
    "EnvelopeMessageHistory",
    "EnvelopeMessageRecord",
    "EnvelopeMyConversationList",
    "EnvelopeQrPreview",
    "EnvelopeQrSession",
    "EnvelopeQrSessionStatus",
    "EnvelopeQrToken",
    "EnvelopeReadMark",
    "EnvelopeRecoverResult",
    "EnvelopeRenderedTemplate",
    "EnvelopeSendResult",
    "EnvelopeTeamMember",
    "EnvelopeTemplate",
    "EnvelopeTemplateList",
    "EnvelopeThreadPage",
    "EnvelopeTokenPair",
    "EnvelopeUsage",
    "EnvelopeUserMessageResult",
    "EnvelopeVecApp",
    "EnvelopeVecTeamMember",
    "EnvelopeVecWebhook",
    "EnvelopeWebhook",
    "EnvelopeWebhookStats",
    "ErrorCode",
    "ErrorEnvelope",
    "Event",
    "EventData",
    "EventList",
    "EventType",
    "EvidenceChange",
    "EvidenceMessage",
    "FailureReason",
    "Follow",
    "Follower",
    "FollowerChange",
    "FollowerEvidence",
    "FollowerHistory",
    "FollowerList",
    "FollowerTotals",
    "FollowEventData",
    "FollowStatus",
    "GrantRevokedData",
    "Health",
    "LastFailure",
    "LookupBody",
    "LookupResult",
    "LookupResults",
    "MarketingButton",
    "MarketingCategory",
    "MarketingContent",
    "MarketingRichMessage",
    "MarketingTextMessage",
    "Me",
    "MessageFailedData",
    "MessageHistory",
    "MessageReadData",
    "MessageReceivedData",
    "MessageRecord",
    "MessageRecordMessageContentType0",
    "MessageSentData",
    "MessageSource",
    "MessageStatus",
    "MessageTemplateRef",
    "MessageTotals",
    "MessageTotalsByCategory",
    "MyConversation",
    "MyConversationList",
    "OtpRequestBody",
    "OtpVerifyBody",
    "PatchFollowBody",
    "PutConsentTextBody",
    "PutFollowBody",
    "QrPreview",
    "QrSession",
    "QrSessionStatus",
    "QrStatus",
    "QrToken",
    "ReadBody",
    "ReadMark",
    "RecordCategory",
    "RecoverBody",
    "RecoverResult",
    "RefreshTokenBody",
    "RenderedTemplate",
    "RenderedTemplateMessageContentType0",
    "RenderTemplateBody",
    "RenderTemplateBodyVariables",
    "RichBroadcast",
    "Role",
    "RotateSecretBody",
    "Scope",
    "SendResult",
    "SendStatus",
    "ServiceMessageInput",
    "TeamMember",
    "Template",
    "TemplatedBroadcast",
    "TemplatedMessage",
    "TemplateList",
    "TemplateStatus",
    "TemplateUse",
    "TemplateUseVariables",
    "TemplateVariable",
    "TemplateVariables",
    "TemplateVariant",
    "TemplateVariantMessageContentType0",
    "TemplateVariants",
    "TextBroadcast",
    "ThreadEntry",
    "ThreadEntryMessageContentType0",
    "ThreadPage",
    "TokenPair",
    "TokenType",
    "UpdateBusinessBody",
    "UpdateConversationBody",
    "UpdateMeBody",
    "UpdateTemplateBody",
    "UpdateTemplateBodyVariablesType0",
    "UpdateTemplateBodyVariantsType0",
    "UpdateWebhookBody",
    "Usage",
    "UserMessageBody",
    "UserMessageResult",
    "UserRedactedData",
    "UserStatus",
    "UtilityCategory",
    "UtilityMessage",
    "Webhook",
    "WebhookDay",
    "WebhookHealth",
    "WebhookHealthData",
    "WebhookHealthState",
    "WebhookPayloadBroadcastCompletedData",
    "WebhookPayloadBroadcastCompletedDataType",
    "WebhookPayloadFollowEventData",
    "WebhookPayloadFollowEventDataType",
    "WebhookPayloadGrantRevokedData",
    "WebhookPayloadGrantRevokedDataType",
    "WebhookPayloadMessageFailedData",
    "WebhookPayloadMessageFailedDataType",
    "WebhookPayloadMessageReadData",
    "WebhookPayloadMessageReadDataType",
    "WebhookPayloadMessageReceivedData",
    "WebhookPayloadMessageReceivedDataType",
    "WebhookPayloadMessageSentData",
    "WebhookPayloadMessageSentDataType",
    "WebhookPayloadUserRedactedData",
    "WebhookPayloadUserRedactedDataType",
    "WebhookPayloadWebhookHealthData",
    "WebhookPayloadWebhookHealthDataType",
    "WebhookPayloadWebhookTestData",
    "WebhookPayloadWebhookTestDataType",
    "WebhookStats",
    "WebhookTestData",
    "WebhookTotals",
    "WindowState",
)
