//! `/business/followers`: a business's audience (the followers list, a look-up of numbers it
//! holds, one follower's consent history and the evidence of their marketing consent), and
//! `/business/consent-text`, the wording its followers agree to.

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::envelope::{ApiResult, Envelope, ok};
use crate::extract::{CallContext, JsonBody, PathParam};
use crate::state::AppState;

/// A follow of the business (never the follower's phone number).
#[derive(Debug, Serialize, ToSchema)]
pub struct Follower {
    #[schema(format = Uuid)]
    pub user_id: String,
    #[schema(value_type = crate::schema::FollowStatus)]
    pub status: String,
    pub marketing_opt_in: bool,
    #[schema(format = DateTime)]
    pub followed_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerList {
    pub followers: Vec<Follower>,
    /// Whether older follows follow: ask again with `starting_after` = the last `user_id`.
    pub has_more: bool,
}

/// The business's followers, newest follow first, a page at a time.
#[utoipa::path(get, path = "/business/followers", tag = "audience",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `user_id` of the last follower of the previous page"),
        ("status" = Option<crate::schema::FollowStatus>, Query),
        ("marketing_opt_in" = Option<bool>, Query),
    ),
    responses(
        (status = 200, description = "The followers", body = Envelope<FollowerList>),
    ))]
pub async fn list_followers(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    use crate::extract::{limit_query, query_param};
    let query = query.as_deref();
    let request = pb::ListFollowersRequest {
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
        status: query_param(query, "status"),
        marketing_opt_in: query_param(query, "marketing_opt_in"),
    };
    let list = state
        .audience
        .clone()
        .list_followers(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        FollowerList {
            followers: list
                .followers
                .into_iter()
                .map(|f| Follower {
                    user_id: f.user_id,
                    status: f.status,
                    marketing_opt_in: f.marketing_opt_in,
                    followed_at: f.followed_at,
                    updated_at: f.updated_at,
                })
                .collect(),
            has_more: list.has_more,
        },
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LookupBody {
    /// Numbers the business already holds, 1 to 100.
    #[schema(min_items = 1, max_items = 100, example = json!(["+14155550123"]))]
    pub phone_numbers: Vec<String>,
}

/// What the look-up says of one number.
#[derive(Debug, Serialize, ToSchema)]
pub struct LookupResult {
    /// The number in E.164.
    #[schema(example = "+14155550123")]
    pub phone_number: String,
    /// Whether it follows the business now.
    pub follows: bool,
    pub marketing_opt_in: bool,
    /// Only for a number that follows or once followed the business.
    #[schema(format = Uuid)]
    pub user_id: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LookupResults {
    /// In request order.
    pub results: Vec<LookupResult>,
}

/// Whether numbers the business already holds follow it. A number with no account and a number
/// that never followed look alike. Each distinct number counts against
/// `FOLLOWER_LOOKUPS_PER_HOUR`; a request over it is refused whole.
#[utoipa::path(post, path = "/business/followers/lookup", tag = "audience",
    security(("bearer" = [])),
    request_body = LookupBody,
    responses(
        (status = 200, description = "One result per number, in request order", body = Envelope<LookupResults>),
    ))]
pub async fn lookup_followers(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<LookupBody>,
) -> ApiResult {
    let results = state
        .audience
        .clone()
        .lookup_followers(ctx.request(pb::LookupFollowersRequest {
            phone_numbers: body.phone_numbers,
        }))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        LookupResults {
            results: results
                .results
                .into_iter()
                .map(|r| LookupResult {
                    phone_number: r.phone_number,
                    follows: r.follows,
                    marketing_opt_in: r.marketing_opt_in,
                    user_id: r.user_id,
                })
                .collect(),
        },
    ))
}

/// One change of a follow's status or marketing consent.
#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerChange {
    #[schema(format = DateTime)]
    pub at: String,
    #[schema(value_type = crate::schema::FollowStatus)]
    pub status: String,
    pub marketing_opt_in: bool,
    #[schema(value_type = crate::schema::ChangeSource)]
    pub source: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerHistory {
    /// Oldest first.
    pub changes: Vec<FollowerChange>,
}

/// One follower's consent history: every change of status or marketing consent, oldest first.
#[utoipa::path(get, path = "/business/followers/{user_id}/history", operation_id = "get_follower_history", tag = "audience",
    security(("bearer" = [])),
    params(("user_id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The changes", body = Envelope<FollowerHistory>),
    ))]
pub async fn follower_history(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(user_id): PathParam,
) -> ApiResult {
    let history = state
        .audience
        .clone()
        .follower_history(ctx.request(pb::FollowerHistoryRequest { user_id }))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        FollowerHistory {
            changes: history
                .changes
                .into_iter()
                .map(|c| FollowerChange {
                    at: c.at,
                    status: c.status,
                    marketing_opt_in: c.marketing_opt_in,
                    source: c.source,
                })
                .collect(),
        },
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutConsentTextBody {
    /// 1 to 2,000 characters, not blank.
    #[schema(min_length = 1, max_length = 2000)]
    pub text: String,
}

/// Set the consent wording (owner, admin): a new version, unless `text` is the wording in force
/// (then nothing changes and that version answers). Earlier versions are kept: each marketing
/// opt-in names the version it was given under.
#[utoipa::path(put, path = "/business/consent-text", operation_id = "set_consent_text", tag = "audience",
    security(("bearer" = [])),
    request_body = PutConsentTextBody,
    responses(
        (status = 200, description = "The wording in force", body = Envelope<crate::routes::consent::ConsentText>),
    ))]
pub async fn put_consent_text(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<PutConsentTextBody>,
) -> ApiResult {
    let text = state
        .audience
        .clone()
        .put_consent_text(ctx.request(pb::PutConsentTextRequest { text: body.text }))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        crate::routes::consent::ConsentText::from(text),
    ))
}

/// The consent wording in force; `data` is null when none was set.
#[utoipa::path(get, path = "/business/consent-text", operation_id = "get_consent_text", tag = "audience",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The wording in force, or null", body = Envelope<crate::routes::consent::ConsentTextOrNull>),
    ))]
pub async fn get_consent_text(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let answer = state
        .audience
        .clone()
        .get_consent_text(ctx.request(pb::Empty {}))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        crate::routes::consent::ConsentTextOrNull::from(answer),
    ))
}

/// One change of a follower's consent ledger, as evidence.
#[derive(Debug, Serialize, ToSchema)]
pub struct EvidenceChange {
    #[schema(format = DateTime)]
    pub at: String,
    #[schema(value_type = crate::schema::FollowStatus)]
    pub status: String,
    pub marketing_opt_in: bool,
    #[schema(value_type = crate::schema::ChangeSource)]
    pub source: String,
    /// Whether this change gave marketing consent (an opt-in).
    pub opt_in: bool,
    /// An opt-in's wording: the version in force when it was given; null when the business had
    /// set none then (and for changes that are not opt-ins).
    #[schema(value_type = Option<crate::routes::consent::ConsentText>)]
    pub consent_text: Option<crate::routes::consent::ConsentText>,
    /// An opt-in: whether the user's call named that version (the app showed it).
    pub user_named_version: bool,
}

/// A marketing message sent to the follower that is still kept.
#[derive(Debug, Serialize, ToSchema)]
pub struct EvidenceMessage {
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(value_type = crate::schema::MessageStatus)]
    pub status: String,
    #[schema(format = DateTime)]
    pub completed_at: Option<String>,
    #[schema(value_type = Option<crate::schema::FailureReason>)]
    pub failure_reason: Option<String>,
    #[schema(format = Uuid)]
    pub broadcast_id: Option<String>,
}

/// What proves one follower's marketing consent.
#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerEvidence {
    #[schema(format = Uuid)]
    pub user_id: String,
    /// The consent ledger, oldest first.
    pub changes: Vec<EvidenceChange>,
    /// The marketing messages sent to them that are still kept, newest first, at most 1,000.
    pub marketing_messages: Vec<EvidenceMessage>,
}

/// What proves one follower's marketing consent: every change of their follow, each opt-in
/// with the wording it was given under and whether they named it, and the marketing messages
/// sent to them that are still kept.
#[utoipa::path(get, path = "/business/followers/{user_id}/evidence", operation_id = "get_follower_evidence", tag = "audience",
    security(("bearer" = [])),
    params(("user_id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The evidence", body = Envelope<FollowerEvidence>),
    ))]
pub async fn follower_evidence(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(user_id): PathParam,
) -> ApiResult {
    let evidence = state
        .audience
        .clone()
        .follower_evidence(ctx.request(pb::FollowerHistoryRequest { user_id }))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        FollowerEvidence {
            user_id: evidence.user_id,
            changes: evidence
                .changes
                .into_iter()
                .map(|c| EvidenceChange {
                    at: c.at,
                    status: c.status,
                    marketing_opt_in: c.marketing_opt_in,
                    source: c.source,
                    opt_in: c.opt_in,
                    consent_text: c.consent_text.map(Into::into),
                    user_named_version: c.user_named_version,
                })
                .collect(),
            marketing_messages: evidence
                .marketing_messages
                .into_iter()
                .map(|m| EvidenceMessage {
                    id: m.id,
                    created_at: m.created_at,
                    status: m.status,
                    completed_at: m.completed_at,
                    failure_reason: m.failure_reason,
                    broadcast_id: m.broadcast_id,
                })
                .collect(),
        },
    ))
}
