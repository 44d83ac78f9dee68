//! `/business/team`: the business's members and their roles.

use axum::extract::State;
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::envelope::{ApiResult, EmptyEnvelope, Envelope, Null, ok};
use crate::extract::{CallContext, JsonBody, PathParam, uuid_path};
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct TeamMember {
    #[schema(format = Uuid)]
    pub user_id: String,
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$")]
    pub phone_number: String,
    #[schema(value_type = crate::schema::Role)]
    pub role: String,
    #[schema(format = DateTime)]
    pub added_at: String,
}

impl From<pb::TeamMember> for TeamMember {
    fn from(m: pb::TeamMember) -> Self {
        TeamMember {
            user_id: m.user_id,
            phone_number: m.phone_number,
            role: m.role,
            added_at: m.added_at,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddMemberBody {
    /// The phone number of an existing account.
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550123")]
    pub phone_number: String,
    #[schema(value_type = crate::schema::AssignableRole)]
    pub role: String,
}

/// The team, oldest member first.
#[utoipa::path(get, path = "/business/team", tag = "team",
    security(("bearer" = [])),
    responses((status = 200, description = "The members", body = Envelope<Vec<TeamMember>>)))]
pub async fn list_team(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let list = state
        .team
        .clone()
        .list_team(ctx.request(pb::ListTeamRequest {}))
        .await?;
    let members: Vec<TeamMember> = list
        .into_inner()
        .members
        .into_iter()
        .map(Into::into)
        .collect();
    Ok(ok(StatusCode::OK, members))
}

/// Add a member, or change a member's role (owner or admin).
#[utoipa::path(post, path = "/business/team", tag = "team",
    security(("bearer" = [])),
    request_body = AddMemberBody,
    responses((status = 201, description = "Added or updated", body = Envelope<TeamMember>)))]
pub async fn add_member(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<AddMemberBody>,
) -> ApiResult {
    let message = pb::UpsertTeamMemberRequest {
        phone_number: body.phone_number,
        role: body.role,
    };
    let member = state
        .team
        .clone()
        .upsert_team_member(ctx.request(message))
        .await?;
    Ok(ok(
        StatusCode::CREATED,
        TeamMember::from(member.into_inner()),
    ))
}

/// Remove a member (owner or admin; never the owner).
#[utoipa::path(delete, path = "/business/team/{userId}", tag = "team",
    security(("bearer" = [])),
    params(("userId" = String, Path, format = Uuid)),
    responses((status = 200, description = "Removed", body = EmptyEnvelope)))]
pub async fn remove_member(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(user_id): PathParam,
) -> ApiResult {
    let message = pb::RemoveTeamMemberRequest {
        user_id: uuid_path(&user_id)?,
    };
    state
        .team
        .clone()
        .remove_team_member(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Null))
}
