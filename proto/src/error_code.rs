//! The error catalogue: every error code the service answers with, once, with its wire name,
//! its gRPC code and its HTTP status. The core sends the code as `google.rpc.ErrorInfo.reason`
//! (plus `google.rpc.RetryInfo` for 429); the gateway reads it back with [`RemoteError::from_status`]
//! and answers with [`ErrorCode::http_status`].

use std::time::Duration;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// The `ErrorInfo.domain` of every error this service raises.
pub const ERROR_DOMAIN: &str = "bm.v1";

macro_rules! catalogue {
    ($( $variant:ident = $wire:literal, $grpc:ident, $http:literal; )*) => {
        /// Every error code of the public interface.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( #[doc = $wire] $variant, )*
        }

        impl ErrorCode {
            /// All codes, in catalogue order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The snake_case name carried in the envelope's `message` and in `ErrorInfo.reason`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $wire,)* }
            }

            /// The gRPC status code the core answers with.
            pub const fn grpc_code(self) -> Code {
                match self { $(ErrorCode::$variant => Code::$grpc,)* }
            }

            /// The HTTP status the gateway answers with.
            pub const fn http_status(self) -> u16 {
                match self { $(ErrorCode::$variant => $http,)* }
            }

            /// The code with this wire name, if there is one.
            pub fn from_wire(name: &str) -> Option<ErrorCode> {
                match name { $($wire => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

catalogue! {
    // 400: the request is invalid.
    MalformedJson = "malformed_json", InvalidArgument, 400;
    InvalidRequest = "invalid_request", InvalidArgument, 400;
    InvalidPhoneNumber = "invalid_phone_number", InvalidArgument, 400;
    InvalidOtpCode = "invalid_otp_code", InvalidArgument, 400;
    InvalidLimit = "invalid_limit", InvalidArgument, 400;
    InvalidMessageCategory = "invalid_message_category", InvalidArgument, 400;
    MessageBodyRequired = "message_body_required", InvalidArgument, 400;
    InvalidMessageContent = "invalid_message_content", InvalidArgument, 400;
    RecipientNotFound = "recipient_not_found", InvalidArgument, 400;
    InvalidIdempotencyKey = "invalid_idempotency_key", InvalidArgument, 400;
    InvalidWebhookUrl = "invalid_webhook_url", InvalidArgument, 400;
    InvalidWebhookEvents = "invalid_webhook_events", InvalidArgument, 400;
    InvalidAppScopes = "invalid_app_scopes", InvalidArgument, 400;
    UserNotFound = "user_not_found", InvalidArgument, 400;
    UserInAnotherBusiness = "user_in_another_business", InvalidArgument, 400;
    CannotRemoveOwner = "cannot_remove_owner", InvalidArgument, 400;
    TeamMemberNotFound = "team_member_not_found", InvalidArgument, 400;
    TemplateCategoryMismatch = "template_category_mismatch", InvalidArgument, 400;
    TemplateVariableMissing = "template_variable_missing", InvalidArgument, 400;
    TemplateVariableUnknown = "template_variable_unknown", InvalidArgument, 400;
    TemplateVariableInvalid = "template_variable_invalid", InvalidArgument, 400;
    // 401: the credential failed.
    Unauthorized = "unauthorized", Unauthenticated, 401;
    InvalidAppToken = "invalid_app_token", Unauthenticated, 401;
    InvalidRefreshToken = "invalid_refresh_token", Unauthenticated, 401;
    InvalidQrSecret = "invalid_qr_secret", Unauthenticated, 401;
    // 403: access to an active business, a role or ownership is required.
    AccountSuspended = "account_suspended", PermissionDenied, 403;
    NotABusinessAccount = "not_a_business_account", PermissionDenied, 403;
    BusinessSuspended = "business_suspended", PermissionDenied, 403;
    InsufficientRole = "insufficient_role", PermissionDenied, 403;
    OwnerRequired = "owner_required", PermissionDenied, 403;
    ConsoleAccessRequired = "console_access_required", PermissionDenied, 403;
    AuthenticationReserved = "authentication_reserved", PermissionDenied, 403;
    AppScopeRequired = "app_scope_required", PermissionDenied, 403;
    AppBusinessMismatch = "app_business_mismatch", PermissionDenied, 403;
    LiveBusinessRequired = "live_business_required", PermissionDenied, 403;
    BusinessNotLive = "business_not_live", PermissionDenied, 403;
    CannotFollowOwnBusiness = "cannot_follow_own_business", PermissionDenied, 403;
    BusinessFollowRequired = "business_follow_required", PermissionDenied, 403;
    MarketingOptInRequired = "marketing_opt_in_required", PermissionDenied, 403;
    ServiceWindowClosed = "service_window_closed", PermissionDenied, 403;
    ConversationBlocked = "conversation_blocked", PermissionDenied, 403;
    // 404: no such resource (or it expired).
    NotFound = "not_found", NotFound, 404;
    BusinessNotFound = "business_not_found", NotFound, 404;
    QrSessionNotFound = "qr_session_not_found", NotFound, 404;
    FollowNotFound = "follow_not_found", NotFound, 404;
    AppNotFound = "app_not_found", NotFound, 404;
    WebhookNotFound = "webhook_not_found", NotFound, 404;
    GrantNotFound = "grant_not_found", NotFound, 404;
    MessageNotFound = "message_not_found", NotFound, 404;
    DeliveryNotFound = "delivery_not_found", NotFound, 404;
    BroadcastNotFound = "broadcast_not_found", NotFound, 404;
    ConversationNotFound = "conversation_not_found", NotFound, 404;
    TemplateNotFound = "template_not_found", NotFound, 404;
    // 405: the path exists, the method does not.
    MethodNotAllowed = "method_not_allowed", Unimplemented, 405;
    // 408: the client did not send its request in time.
    RequestTimeout = "request_timeout", DeadlineExceeded, 408;
    // 409: the resource's state conflicts with the operation.
    BusinessAlreadyExists = "business_already_exists", AlreadyExists, 409;
    UserAlreadyExists = "user_already_exists", AlreadyExists, 409;
    IdempotencyKeyConflict = "idempotency_key_conflict", FailedPrecondition, 409;
    IdempotencyInProgress = "idempotency_in_progress", Aborted, 409;
    QrSessionNotPending = "qr_session_not_pending", FailedPrecondition, 409;
    QrSessionNotApproved = "qr_session_not_approved", FailedPrecondition, 409;
    QrSessionAlreadyExchanged = "qr_session_already_exchanged", FailedPrecondition, 409;
    WebhookUrlConflict = "webhook_url_conflict", AlreadyExists, 409;
    WebhookPaused = "webhook_paused", FailedPrecondition, 409;
    DeliveryNotFailed = "delivery_not_failed", FailedPrecondition, 409;
    MessageNotCancelable = "message_not_cancelable", FailedPrecondition, 409;
    BroadcastNotCancelable = "broadcast_not_cancelable", FailedPrecondition, 409;
    WebhookLimitReached = "webhook_limit_reached", FailedPrecondition, 409;
    TemplateNameTaken = "template_name_taken", AlreadyExists, 409;
    TemplateArchived = "template_archived", FailedPrecondition, 409;
    ConsentTextChanged = "consent_text_changed", FailedPrecondition, 409;
    UserOwnsBusiness = "user_owns_business", FailedPrecondition, 409;
    // 413: the request body is larger than the gateway accepts.
    PayloadTooLarge = "payload_too_large", InvalidArgument, 413;
    // 431: the request's headers are larger than the gateway accepts.
    RequestHeaderTooLarge = "request_header_too_large", InvalidArgument, 431;
    // 429: a request limit was reached; RetryInfo says when to try again.
    RateLimited = "rate_limited", ResourceExhausted, 429;
    BusinessSendRateLimited = "business_send_rate_limited", ResourceExhausted, 429;
    // 5xx.
    InternalError = "internal_error", Internal, 500;
    SmsDeliveryUnavailable = "sms_delivery_unavailable", Unavailable, 503;
    ServiceUnavailable = "service_unavailable", Unavailable, 503;
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ErrorCode {
    /// A gRPC status carrying this code as `ErrorInfo` (and `RetryInfo` when `retry_after` is
    /// given). `detail` is the human-readable status message: for a client mistake (4xx) the
    /// gateway shows it as the envelope's `detail`, so it names the field and the rule and
    /// never holds a secret; for a server failure it stays in the logs.
    pub fn to_status(self, detail: impl Into<String>, retry_after: Option<Duration>) -> Status {
        let mut details = ErrorDetails::with_error_info(
            self.as_str(),
            ERROR_DOMAIN,
            std::collections::HashMap::new(),
        );
        if let Some(wait) = retry_after {
            details.set_retry_info(Some(wait));
        }
        Status::with_error_details(self.grpc_code(), detail, details)
    }
}

/// An error decoded from a gRPC status answered by the core (or by the transport).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteError {
    pub code: ErrorCode,
    pub detail: String,
    /// From `RetryInfo`: how long until the request may succeed.
    pub retry_after: Option<Duration>,
}

impl RemoteError {
    /// Reads the catalogue code from `ErrorInfo`. A status without one (the core is down, the
    /// connection broke, an interceptor refused) is mapped by its gRPC code: `Unavailable` and
    /// `DeadlineExceeded` to `service_unavailable`, anything else to `internal_error`.
    pub fn from_status(status: &Status) -> RemoteError {
        let details = status.get_error_details();
        let code = details
            .error_info()
            .filter(|info| info.domain == ERROR_DOMAIN)
            .and_then(|info| ErrorCode::from_wire(&info.reason))
            // Every answer of the core's own handlers carries its ErrorInfo: a status without
            // one was made by the transport (the core unreachable, restarting, or gone in the
            // middle of the call; a stream reset; a proxy), never by a client's mistake.
            .unwrap_or(ErrorCode::ServiceUnavailable);
        let retry_after = details.retry_info().and_then(|info| info.retry_delay);
        RemoteError {
            code,
            detail: status.message().to_string(),
            retry_after,
        }
    }

    /// `Retry-After` in whole seconds, rounded up and at least 1.
    pub fn retry_after_secs(&self) -> Option<u64> {
        self.retry_after.map(|d| {
            let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
            secs.max(1)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_code_has_a_unique_snake_case_wire_name_that_round_trips() {
        let mut seen = HashSet::new();
        for &code in ErrorCode::ALL {
            let name = code.as_str();
            assert!(seen.insert(name), "{name} listed twice");
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{name}"
            );
            assert_eq!(ErrorCode::from_wire(name), Some(code));
        }
    }

    #[test]
    fn every_code_travels_through_a_grpc_status_and_keeps_its_http_status() {
        for &code in ErrorCode::ALL {
            let retry = (code.http_status() == 429).then(|| Duration::from_millis(1500));
            let status = code.to_status("detail", retry);
            assert_eq!(status.code(), code.grpc_code());
            let back = RemoteError::from_status(&status);
            assert_eq!(back.code, code);
            assert_eq!(back.code.http_status(), code.http_status());
            assert_eq!(back.detail, "detail");
            if code.http_status() == 429 {
                assert_eq!(back.retry_after_secs(), Some(2), "{code}: rounded up");
            } else {
                assert_eq!(back.retry_after, None);
            }
        }
    }

    #[test]
    fn grpc_codes_agree_with_the_http_status_class() {
        for &code in ErrorCode::ALL {
            let expected: &[Code] = match code.http_status() {
                400 | 413 | 431 => &[Code::InvalidArgument],
                408 => &[Code::DeadlineExceeded],
                401 => &[Code::Unauthenticated],
                403 => &[Code::PermissionDenied],
                404 => &[Code::NotFound],
                405 => &[Code::Unimplemented],
                409 => &[Code::AlreadyExists, Code::FailedPrecondition, Code::Aborted],
                429 => &[Code::ResourceExhausted],
                500 => &[Code::Internal],
                503 => &[Code::Unavailable],
                other => panic!("{code}: unexpected status {other}"),
            };
            assert!(expected.contains(&code.grpc_code()), "{code}");
        }
    }

    #[test]
    fn the_spec_and_design_codes_have_their_decided_statuses() {
        let decided: &[(&str, u16)] = &[
            ("message_not_found", 404),
            ("delivery_not_found", 404),
            ("request_timeout", 408),
            ("delivery_not_failed", 409),
            ("message_not_cancelable", 409),
            ("broadcast_not_found", 404),
            ("broadcast_not_cancelable", 409),
            ("webhook_limit_reached", 409),
            ("payload_too_large", 413),
            ("request_header_too_large", 431),
            ("invalid_app_token", 401),
            ("app_scope_required", 403),
            ("not_a_business_account", 403),
            ("live_business_required", 403),
            ("invalid_message_category", 400),
            ("message_body_required", 400),
            ("invalid_message_content", 400),
            ("invalid_phone_number", 400),
            ("recipient_not_found", 400),
            ("business_not_found", 404),
            ("business_follow_required", 403),
            ("marketing_opt_in_required", 403),
            ("business_send_rate_limited", 429),
            ("invalid_idempotency_key", 400),
            ("idempotency_key_conflict", 409),
            ("idempotency_in_progress", 409),
            ("malformed_json", 400),
            ("invalid_request", 400),
            ("invalid_otp_code", 400),
            ("invalid_limit", 400),
            ("invalid_webhook_url", 400),
            ("invalid_webhook_events", 400),
            ("invalid_app_scopes", 400),
            ("user_not_found", 400),
            ("user_in_another_business", 400),
            ("cannot_remove_owner", 400),
            ("team_member_not_found", 400),
            ("unauthorized", 401),
            ("invalid_refresh_token", 401),
            ("invalid_qr_secret", 401),
            ("account_suspended", 403),
            ("business_suspended", 403),
            ("insufficient_role", 403),
            ("owner_required", 403),
            ("console_access_required", 403),
            ("authentication_reserved", 403),
            ("app_business_mismatch", 403),
            ("business_not_live", 403),
            ("not_found", 404),
            ("qr_session_not_found", 404),
            ("follow_not_found", 404),
            ("app_not_found", 404),
            ("webhook_not_found", 404),
            ("grant_not_found", 404),
            ("method_not_allowed", 405),
            ("business_already_exists", 409),
            ("qr_session_not_pending", 409),
            ("qr_session_not_approved", 409),
            ("qr_session_already_exchanged", 409),
            ("webhook_url_conflict", 409),
            ("webhook_paused", 409),
            ("rate_limited", 429),
            ("internal_error", 500),
            ("sms_delivery_unavailable", 503),
            ("service_unavailable", 503),
        ];
        for (name, status) in decided {
            let code = ErrorCode::from_wire(name).unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(code.http_status(), *status, "{name}");
        }
    }

    #[test]
    fn a_status_without_error_info_is_the_transport_failing_so_503_never_500() {
        for status in [
            Status::unavailable("connection refused"),
            Status::unknown("transport error"),
            Status::internal("h2 protocol error: stream no longer needed"),
            Status::cancelled("operation was canceled"),
            Status::deadline_exceeded("timeout expired"),
            Status::resource_exhausted("message too large"),
            Status::invalid_argument("metadata too large"),
        ] {
            let remote = RemoteError::from_status(&status);
            assert_eq!(remote.code, ErrorCode::ServiceUnavailable, "{status:?}");
        }
        // A status with the core's ErrorInfo keeps its code, internal_error included.
        let internal = ErrorCode::InternalError.to_status("boom", None);
        assert_eq!(
            RemoteError::from_status(&internal).code,
            ErrorCode::InternalError
        );
    }
}
