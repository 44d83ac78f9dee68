//! Conversations: a user's side (`/businesses/{businessAccountId}/messages`,
//! `/me/conversations`) and a business's (`/business/conversations`, and the
//! `/v1/{businessAccountId}/conversations` twins for app tokens).

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::business::present;
use super::messages::{CheckResult, SendResult, string_field, text};
use crate::envelope::{ApiError, ApiResult, Envelope, ok, reply};
use crate::extract::{
    CallContext, JsonBody, PathParam, PathParams, idempotency_key, limit_query, query_param,
    uuid_path,
};
use crate::state::AppState;

// ---------------------------------------------------------------------------------------------
// The user's side.

/// A user's message to a business.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UserMessageBody {
    /// 1 to 4,096 characters.
    #[schema(value_type = String, min_length = 1, max_length = 4096, example = "Is my order on its way?")]
    pub text: Option<Value>,
    /// Any message of the thread.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub reply_to: Option<Value>,
    /// A UUID of the app's choosing: a retry with the same id, business and text answers the
    /// original message (201, the same body) while it is kept.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub client_message_id: Option<Value>,
}

/// A user message as accepted.
#[derive(Debug, Serialize, ToSchema)]
pub struct UserMessageResult {
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(format = Uuid)]
    pub conversation_id: String,
    /// The user's messages in this conversation so far, from 1, in commit order.
    pub sequence: i64,
    #[schema(format = DateTime)]
    pub at: String,
    /// When the business can no longer answer with free text (unless the user writes again).
    #[schema(format = DateTime)]
    pub window_expires_at: String,
}

/// Write to a business you follow (or whose team you are on).
///
/// Never creates a follow nor grants consent. With `client_message_id`, a retry answers the
/// original before anything else is checked.
#[utoipa::path(post, path = "/businesses/{businessAccountId}/messages", operation_id = "write_to_business", tag = "conversations",
    security(("bearer" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    request_body = UserMessageBody,
    responses(
        (status = 201, description = "Accepted", body = Envelope<UserMessageResult>),
    ))]
pub async fn write_to_business(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<UserMessageBody>,
) -> ApiResult {
    let request = pb::UserMessageRequest {
        business_account_id: uuid_path(&id)?,
        text: string_field(body.text, "text")?,
        reply_to: text(body.reply_to),
        client_message_id: text(body.client_message_id),
    };
    let r = state
        .user_conversations
        .clone()
        .send_user_message(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::CREATED,
        UserMessageResult {
            id: r.id,
            conversation_id: r.conversation_id,
            sequence: r.sequence,
            at: r.at,
            window_expires_at: r.window_expires_at,
        },
    ))
}

/// A thread entry: a user message (`inbound`) or a business message (`outbound`).
#[derive(Debug, Serialize, ToSchema)]
pub struct ThreadEntry {
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(value_type = crate::schema::Direction)]
    pub direction: String,
    /// The message's position: a user message's receipt time, a business message's effective
    /// time.
    #[schema(format = DateTime)]
    pub at: String,
    /// Outbound only.
    #[schema(value_type = Option<crate::schema::RecordCategory>)]
    pub category: Option<String>,
    pub body: Option<String>,
    /// Outbound structured content (an authentication code is `"******"` for the business).
    #[schema(value_type = Option<Object>)]
    pub message_content: Option<Value>,
    /// Outbound, business side only.
    #[schema(value_type = Option<crate::schema::MessageStatus>)]
    pub status: Option<String>,
    #[schema(format = Uuid)]
    pub reply_to: Option<String>,
    /// Inbound only.
    pub sequence: Option<i64>,
    #[schema(format = Uuid)]
    pub conversation_id: Option<String>,
    /// When the other side's read mark first covered it.
    #[schema(format = DateTime)]
    pub read_at: Option<String>,
}

impl From<pb::ThreadEntry> for ThreadEntry {
    fn from(e: pb::ThreadEntry) -> Self {
        ThreadEntry {
            id: e.id,
            direction: e.direction,
            at: e.at,
            category: e.category,
            body: e.body,
            message_content: e
                .message_content_json
                .and_then(|json| serde_json::from_str(&json).ok()),
            status: e.status,
            reply_to: e.reply_to,
            sequence: e.sequence,
            conversation_id: e.conversation_id,
            read_at: e.read_at,
        }
    }
}

/// A page of a thread, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct ThreadPage {
    pub messages: Vec<ThreadEntry>,
    /// Whether older messages follow: ask again with `starting_after` = the last `id`.
    pub has_more: bool,
}

fn thread(page: pb::ThreadPage) -> axum::response::Response {
    ok(
        StatusCode::OK,
        ThreadPage {
            messages: page.messages.into_iter().map(ThreadEntry::from).collect(),
            has_more: page.has_more,
        },
    )
}

/// Your thread with a business, newest first: your messages and its delivered ones (empty when
/// nothing was exchanged).
#[utoipa::path(get, path = "/businesses/{businessAccountId}/messages", operation_id = "get_business_thread", tag = "conversations",
    security(("bearer" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last message of the previous page"),
    ),
    responses(
        (status = 200, description = "The thread", body = Envelope<ThreadPage>),
    ))]
pub async fn user_thread(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let query = query.as_deref();
    let request = pb::UserThreadRequest {
        business_account_id: uuid_path(&id)?,
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
    };
    let page = state
        .user_conversations
        .clone()
        .list_user_thread(ctx.request(request))
        .await?;
    Ok(thread(page.into_inner()))
}

/// Where a read mark stands.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadBody {
    /// The newest message read.
    #[schema(value_type = String, format = Uuid)]
    pub up_to: Option<Value>,
}

/// A read mark: the message it stands on and when it last moved.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReadMark {
    #[schema(format = Uuid)]
    pub read_up_to: Option<String>,
    #[schema(format = DateTime)]
    pub read_at: Option<String>,
}

fn mark(mark: pb::ReadMark) -> axum::response::Response {
    ok(
        StatusCode::OK,
        ReadMark {
            read_up_to: mark.read_up_to,
            read_at: mark.read_at,
        },
    )
}

/// Mark your thread with a business read up to a message you can see (never moves back).
#[utoipa::path(post, path = "/businesses/{businessAccountId}/messages/read", operation_id = "mark_business_thread_read", tag = "conversations",
    security(("bearer" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    request_body = ReadBody,
    responses(
        (status = 200, description = "The read mark", body = Envelope<ReadMark>),
    ))]
pub async fn user_read(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<ReadBody>,
) -> ApiResult {
    let request = pb::UserReadRequest {
        business_account_id: uuid_path(&id)?,
        up_to: text(body.up_to),
    };
    let r = state
        .user_conversations
        .clone()
        .mark_user_read(ctx.request(request))
        .await?;
    Ok(mark(r.into_inner()))
}

/// One business in your list of threads.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyConversation {
    #[schema(format = Uuid)]
    pub business_account_id: String,
    pub business_name: String,
    #[schema(format = DateTime)]
    pub last_message_at: String,
    /// Its delivered messages after your read mark.
    pub unread: i64,
    /// `null` when you never wrote to it.
    #[schema(format = DateTime)]
    pub window_expires_at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MyConversationList {
    pub conversations: Vec<MyConversation>,
    /// Whether more follow: ask again with `starting_after` = the last `business_account_id`.
    pub has_more: bool,
}

/// Every business you have a thread with, newest activity first.
#[utoipa::path(get, path = "/me/conversations", operation_id = "list_my_conversations", tag = "conversations",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `business_account_id` of the last item of the previous page"),
    ),
    responses(
        (status = 200, description = "Your conversations", body = Envelope<MyConversationList>),
    ))]
pub async fn my_conversations(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let query = query.as_deref();
    let request = pb::ListMyConversationsRequest {
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
    };
    let list = state
        .user_conversations
        .clone()
        .list_my_conversations(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        MyConversationList {
            conversations: list
                .conversations
                .into_iter()
                .map(|c| MyConversation {
                    business_account_id: c.business_account_id,
                    business_name: c.business_name,
                    last_message_at: c.last_message_at,
                    unread: c.unread,
                    window_expires_at: c.window_expires_at,
                })
                .collect(),
            has_more: list.has_more,
        },
    ))
}

// ---------------------------------------------------------------------------------------------
// The business's side.

/// A conversation as its business sees it (never a phone number).
#[derive(Debug, Serialize, ToSchema)]
pub struct Conversation {
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(format = Uuid)]
    pub user_id: String,
    /// The name the user chose, if any.
    pub display_name: Option<String>,
    /// The team's label, if any.
    pub label: Option<String>,
    /// Whether the user follows the business now.
    pub follows: bool,
    pub marketing_opt_in: bool,
    #[schema(value_type = crate::schema::ConversationStatus)]
    pub status: String,
    /// Whether the user's messages are refused.
    pub blocked: bool,
    /// Free text may be sent until then.
    #[schema(format = DateTime)]
    pub window_expires_at: String,
    #[schema(format = DateTime)]
    pub last_inbound_at: String,
    #[schema(format = DateTime)]
    pub last_message_at: String,
    /// User messages after the business's read mark.
    pub unread: i64,
    #[schema(format = Uuid)]
    pub assigned_to: Option<String>,
}

impl From<pb::Conversation> for Conversation {
    fn from(c: pb::Conversation) -> Self {
        Conversation {
            id: c.id,
            user_id: c.user_id,
            display_name: c.display_name,
            label: c.label,
            follows: c.follows,
            marketing_opt_in: c.marketing_opt_in,
            status: c.status,
            blocked: c.blocked,
            window_expires_at: c.window_expires_at,
            last_inbound_at: c.last_inbound_at,
            last_message_at: c.last_message_at,
            unread: c.unread,
            assigned_to: c.assigned_to,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ConversationList {
    pub conversations: Vec<Conversation>,
    /// Whether more follow: ask again with `starting_after` = the last `id`.
    pub has_more: bool,
    /// How many of the business's conversations have unread user messages.
    pub unread_conversations: i64,
}

fn conversation(c: pb::Conversation) -> axum::response::Response {
    ok(StatusCode::OK, Conversation::from(c))
}

fn list_request(
    business_account_id: Option<String>,
    query: Option<&str>,
) -> Result<pb::ListConversationsRequest, ApiError> {
    Ok(pb::ListConversationsRequest {
        business_account_id,
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
        status: query_param(query, "status"),
        window: query_param(query, "window"),
        unread: query_param(query, "unread"),
        assigned_to: query_param(query, "assigned_to"),
    })
}

async fn list(
    state: AppState,
    ctx: CallContext,
    request: pb::ListConversationsRequest,
) -> ApiResult {
    let list = state
        .conversations
        .clone()
        .list_conversations(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        ConversationList {
            conversations: list
                .conversations
                .into_iter()
                .map(Conversation::from)
                .collect(),
            has_more: list.has_more,
            unread_conversations: list.unread_conversations,
        },
    ))
}

/// The business's conversations, newest activity first (any role).
///
/// A conversation whose activity changes while you page may appear twice or move to the first
/// page: deduplicate by `id`.
#[utoipa::path(get, path = "/business/conversations", tag = "conversations",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last conversation of the previous page"),
        ("status" = Option<crate::schema::ConversationStatus>, Query),
        ("window" = Option<crate::schema::WindowState>, Query, description = "Whether the service window is open"),
        ("unread" = Option<bool>, Query),
        ("assigned_to" = Option<String>, Query,
            description = "A team member's user id, `me`, or `none` (unassigned)"),
    ),
    responses(
        (status = 200, description = "The conversations", body = Envelope<ConversationList>),
    ))]
pub async fn list_conversations(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let request = list_request(None, query.as_deref())?;
    list(state, ctx, request).await
}

/// The app's business's conversations, newest activity first (scope `service`).
#[utoipa::path(get, path = "/v1/{businessAccountId}/conversations", operation_id = "list_app_conversations", tag = "conversations",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last conversation of the previous page"),
        ("status" = Option<crate::schema::ConversationStatus>, Query),
        ("window" = Option<crate::schema::WindowState>, Query, description = "Whether the service window is open"),
        ("unread" = Option<bool>, Query),
        ("assigned_to" = Option<String>, Query,
            description = "A team member's user id, or `none` (unassigned)"),
    ),
    responses(
        (status = 200, description = "The conversations", body = Envelope<ConversationList>),
    ))]
pub async fn list_app_conversations(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(business): PathParam,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let request = list_request(Some(uuid_path(&business)?), query.as_deref())?;
    list(state, ctx, request).await
}

async fn get(state: AppState, ctx: CallContext, request: pb::ConversationRequest) -> ApiResult {
    let c = state
        .conversations
        .clone()
        .get_conversation(ctx.request(request))
        .await?;
    Ok(conversation(c.into_inner()))
}

/// One conversation (any role).
#[utoipa::path(get, path = "/business/conversations/{id}", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The conversation", body = Envelope<Conversation>),
    ))]
pub async fn get_conversation(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::ConversationRequest {
        business_account_id: None,
        id: uuid_path(&id)?,
    };
    get(state, ctx, request).await
}

/// One conversation of the app's business (scope `service`).
#[utoipa::path(get, path = "/v1/{businessAccountId}/conversations/{id}", operation_id = "get_app_conversation", tag = "conversations",
    security(("app_token" = [])),
    params(("businessAccountId" = String, Path, format = Uuid), ("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The conversation", body = Envelope<Conversation>),
    ))]
pub async fn get_app_conversation(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParams(business, id): PathParams,
) -> ApiResult {
    let request = pb::ConversationRequest {
        business_account_id: Some(uuid_path(&business)?),
        id: uuid_path(&id)?,
    };
    get(state, ctx, request).await
}

/// What a team may change of a conversation. Absent fields stay; `null` clears.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateConversationBody {
    #[schema(value_type = Option<crate::schema::ConversationStatus>)]
    pub status: Option<Value>,
    /// A team member's user id; `null` unassigns.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, format = Uuid)]
    pub assigned_to: Option<Option<String>>,
    /// 0 to 100 characters; `null` or empty clears it.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub label: Option<Option<String>>,
}

fn update_request(
    business_account_id: Option<String>,
    id: &str,
    body: UpdateConversationBody,
) -> Result<pb::UpdateConversationRequest, ApiError> {
    let patch = |field: Option<Option<String>>| field.map(|value| pb::StringPatch { value });
    Ok(pb::UpdateConversationRequest {
        business_account_id,
        id: uuid_path(id)?,
        status: text(body.status),
        assigned_to: patch(body.assigned_to),
        label: patch(body.label),
    })
}

async fn update(
    state: AppState,
    ctx: CallContext,
    request: pb::UpdateConversationRequest,
) -> ApiResult {
    let c = state
        .conversations
        .clone()
        .update_conversation(ctx.request(request))
        .await?;
    Ok(conversation(c.into_inner()))
}

/// Close or reopen a conversation, assign it, label it (any role). A user message reopens a
/// closed conversation; a business reply does not.
#[utoipa::path(patch, path = "/business/conversations/{id}", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = UpdateConversationBody,
    responses(
        (status = 200, description = "The conversation", body = Envelope<Conversation>),
    ))]
pub async fn update_conversation(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<UpdateConversationBody>,
) -> ApiResult {
    let request = update_request(None, &id, body)?;
    update(state, ctx, request).await
}

/// Close, assign or label a conversation of the app's business (scope `service`).
#[utoipa::path(patch, path = "/v1/{businessAccountId}/conversations/{id}", operation_id = "update_app_conversation", tag = "conversations",
    security(("app_token" = [])),
    params(("businessAccountId" = String, Path, format = Uuid), ("id" = String, Path, format = Uuid)),
    request_body = UpdateConversationBody,
    responses(
        (status = 200, description = "The conversation", body = Envelope<Conversation>),
    ))]
pub async fn update_app_conversation(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParams(business, id): PathParams,
    JsonBody(body): JsonBody<UpdateConversationBody>,
) -> ApiResult {
    let request = update_request(Some(uuid_path(&business)?), &id, body)?;
    update(state, ctx, request).await
}

fn messages_request(
    business_account_id: Option<String>,
    id: &str,
    query: Option<&str>,
) -> Result<pb::ConversationMessagesRequest, ApiError> {
    Ok(pb::ConversationMessagesRequest {
        business_account_id,
        id: uuid_path(id)?,
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
    })
}

async fn messages(
    state: AppState,
    ctx: CallContext,
    request: pb::ConversationMessagesRequest,
) -> ApiResult {
    let page = state
        .conversations
        .clone()
        .list_conversation_messages(ctx.request(request))
        .await?;
    Ok(thread(page.into_inner()))
}

/// A conversation's thread, newest first: the user's messages and every message of the
/// business to the user, with its status (any role).
#[utoipa::path(get, path = "/business/conversations/{id}/messages", operation_id = "get_conversation_messages", tag = "conversations",
    security(("bearer" = [])),
    params(
        ("id" = String, Path, format = Uuid),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last message of the previous page"),
    ),
    responses(
        (status = 200, description = "The thread", body = Envelope<ThreadPage>),
    ))]
pub async fn conversation_messages(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let request = messages_request(None, &id, query.as_deref())?;
    messages(state, ctx, request).await
}

/// A conversation's thread for an app token (scope `service`).
#[utoipa::path(get, path = "/v1/{businessAccountId}/conversations/{id}/messages", operation_id = "get_app_conversation_messages", tag = "conversations",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("id" = String, Path, format = Uuid),
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last message of the previous page"),
    ),
    responses(
        (status = 200, description = "The thread", body = Envelope<ThreadPage>),
    ))]
pub async fn app_conversation_messages(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParams(business, id): PathParams,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let request = messages_request(Some(uuid_path(&business)?), &id, query.as_deref())?;
    messages(state, ctx, request).await
}

/// A business message in a conversation: free text (`text`, `reply_to`) inside the window, or a
/// `utility` or `marketing` message (`category` with `body`, `message_content` or `template`)
/// under that category's consent rules whatever the window.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConversationMessageBody {
    /// Free text, 1 to 4,096 characters (alone, with `reply_to`).
    #[schema(value_type = Option<String>, min_length = 1, max_length = 4096, example = "It left our warehouse this morning.")]
    pub text: Option<Value>,
    /// Any message of the thread.
    #[schema(value_type = Option<String>, format = Uuid)]
    pub reply_to: Option<Value>,
    /// `utility` or `marketing`, for a category message.
    #[schema(value_type = Option<String>)]
    pub category: Option<Value>,
    #[schema(value_type = Option<String>)]
    pub body: Option<Value>,
    #[schema(value_type = Option<Object>)]
    pub message_content: Option<Value>,
    /// A template of the category instead of `body` / `message_content`.
    #[schema(value_type = Option<crate::routes::messages::TemplateUse>)]
    pub template: Option<Value>,
    /// Refused: conversation messages go now.
    #[schema(value_type = Option<String>)]
    pub send_at: Option<Value>,
    /// Refused: conversation messages go now.
    #[schema(value_type = Option<String>)]
    pub expires_at: Option<Value>,
}

fn send_request(
    business_account_id: Option<String>,
    id: &str,
    body: ConversationMessageBody,
    headers: Option<&HeaderMap>,
) -> Result<pb::ConversationSendRequest, ApiError> {
    Ok(pb::ConversationSendRequest {
        business_account_id,
        id: uuid_path(id)?,
        text: string_field(body.text, "text")?,
        reply_to: text(body.reply_to),
        category: text(body.category),
        body: string_field(body.body, "body")?,
        message_content_json: body
            .message_content
            .filter(|v| !v.is_null())
            .map(|v| v.to_string()),
        template_json: crate::routes::messages::template_json(body.template),
        idempotency_key: headers.and_then(idempotency_key),
        send_at: text(body.send_at),
        expires_at: text(body.expires_at),
    })
}

async fn send(
    state: AppState,
    ctx: CallContext,
    request: pb::ConversationSendRequest,
) -> ApiResult {
    let r = state
        .conversations
        .clone()
        .send_conversation_message(ctx.request(request))
        .await?
        .into_inner();
    Ok(reply(
        StatusCode::OK,
        "message_sent",
        SendResult {
            id: r.id,
            status: r.status,
        },
    ))
}

async fn check(
    state: AppState,
    ctx: CallContext,
    request: pb::ConversationSendRequest,
) -> ApiResult {
    let r = state
        .conversations
        .clone()
        .check_conversation_message(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        CheckResult {
            would_send: r.would_send,
        },
    ))
}

/// Answer in a conversation (any role). Free text needs an active follow and an open window
/// (else 403 `service_window_closed`, whose `detail` says when it closed); a category message
/// follows that category's consent rules. Limited by the business send budget and
/// `REPLIES_PER_MINUTE` per conversation.
#[utoipa::path(post, path = "/business/conversations/{id}/messages", operation_id = "send_conversation_message", tag = "conversations",
    security(("bearer" = [])),
    params(
        ("id" = String, Path, format = Uuid),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "1 to 255 visible ASCII characters; a retry with the same key and body answers the first result for 24 h"),
    ),
    request_body = ConversationMessageBody,
    responses(
        (status = 200, description = "Accepted (`message_sent`)", body = Envelope<SendResult>),
    ))]
pub async fn send_conversation_message(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<ConversationMessageBody>,
) -> ApiResult {
    let request = send_request(None, &id, body, Some(&headers))?;
    send(state, ctx, request).await
}

/// Answer in a conversation with an app token (scope `service` for free text, the category's
/// scope for a category message).
#[utoipa::path(post, path = "/v1/{businessAccountId}/conversations/{id}/messages", operation_id = "send_app_conversation_message", tag = "conversations",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("id" = String, Path, format = Uuid),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "1 to 255 visible ASCII characters; a retry with the same key and body answers the first result for 24 h"),
    ),
    request_body = ConversationMessageBody,
    responses(
        (status = 200, description = "Accepted (`message_sent`)", body = Envelope<SendResult>),
    ))]
pub async fn send_app_conversation_message(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    PathParams(business, id): PathParams,
    JsonBody(body): JsonBody<ConversationMessageBody>,
) -> ApiResult {
    let request = send_request(Some(uuid_path(&business)?), &id, body, Some(&headers))?;
    send(state, ctx, request).await
}

/// Whether an answer would be accepted now, window included (any role); nothing is stored.
#[utoipa::path(post, path = "/business/conversations/{id}/messages/check", operation_id = "check_conversation_message", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = ConversationMessageBody,
    responses(
        (status = 200, description = "It would be accepted", body = Envelope<CheckResult>),
    ))]
pub async fn check_conversation_message(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<ConversationMessageBody>,
) -> ApiResult {
    let request = send_request(None, &id, body, None)?;
    check(state, ctx, request).await
}

/// Whether an app token's answer would be accepted now; nothing is stored.
#[utoipa::path(post, path = "/v1/{businessAccountId}/conversations/{id}/messages/check", operation_id = "check_app_conversation_message", tag = "conversations",
    security(("app_token" = [])),
    params(("businessAccountId" = String, Path, format = Uuid), ("id" = String, Path, format = Uuid)),
    request_body = ConversationMessageBody,
    responses(
        (status = 200, description = "It would be accepted", body = Envelope<CheckResult>),
    ))]
pub async fn check_app_conversation_message(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParams(business, id): PathParams,
    JsonBody(body): JsonBody<ConversationMessageBody>,
) -> ApiResult {
    let request = send_request(Some(uuid_path(&business)?), &id, body, None)?;
    check(state, ctx, request).await
}

async fn read(
    state: AppState,
    ctx: CallContext,
    request: pb::ConversationReadRequest,
) -> ApiResult {
    let r = state
        .conversations
        .clone()
        .mark_conversation_read(ctx.request(request))
        .await?;
    Ok(mark(r.into_inner()))
}

/// Mark a conversation read up to a user message (any role; never moves back).
#[utoipa::path(post, path = "/business/conversations/{id}/read", operation_id = "mark_conversation_read", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = ReadBody,
    responses(
        (status = 200, description = "The business's read mark", body = Envelope<ReadMark>),
    ))]
pub async fn mark_conversation_read(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<ReadBody>,
) -> ApiResult {
    let request = pb::ConversationReadRequest {
        business_account_id: None,
        id: uuid_path(&id)?,
        up_to: text(body.up_to),
    };
    read(state, ctx, request).await
}

/// Mark a conversation read with an app token (scope `service`).
#[utoipa::path(post, path = "/v1/{businessAccountId}/conversations/{id}/read", operation_id = "mark_app_conversation_read", tag = "conversations",
    security(("app_token" = [])),
    params(("businessAccountId" = String, Path, format = Uuid), ("id" = String, Path, format = Uuid)),
    request_body = ReadBody,
    responses(
        (status = 200, description = "The business's read mark", body = Envelope<ReadMark>),
    ))]
pub async fn mark_app_conversation_read(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParams(business, id): PathParams,
    JsonBody(body): JsonBody<ReadBody>,
) -> ApiResult {
    let request = pb::ConversationReadRequest {
        business_account_id: Some(uuid_path(&business)?),
        id: uuid_path(&id)?,
        up_to: text(body.up_to),
    };
    read(state, ctx, request).await
}

async fn block(state: AppState, ctx: CallContext, id: &str, blocked: bool) -> ApiResult {
    let request = pb::ConversationRequest {
        business_account_id: None,
        id: uuid_path(id)?,
    };
    let mut client = state.conversations.clone();
    let c = if blocked {
        client.block_conversation(ctx.request(request)).await?
    } else {
        client.unblock_conversation(ctx.request(request)).await?
    };
    Ok(conversation(c.into_inner()))
}

/// Refuse the user's messages in this conversation (owner or admin). The business may still
/// send.
#[utoipa::path(post, path = "/business/conversations/{id}/block", operation_id = "block_conversation", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The conversation", body = Envelope<Conversation>),
    ))]
pub async fn block_conversation(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    block(state, ctx, &id, true).await
}

/// Accept the user's messages again (owner or admin).
#[utoipa::path(post, path = "/business/conversations/{id}/unblock", operation_id = "unblock_conversation", tag = "conversations",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The conversation", body = Envelope<Conversation>),
    ))]
pub async fn unblock_conversation(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    block(state, ctx, &id, false).await
}
