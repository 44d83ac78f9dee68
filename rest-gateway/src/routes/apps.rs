//! `/business/apps`: developer apps (owner only).

use axum::extract::State;
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::envelope::{ApiResult, EmptyEnvelope, Envelope, Null, ok};
use crate::extract::{CallContext, JsonBody, PathParam, uuid_path};
use crate::state::AppState;

/// A developer app (never with its token).
#[derive(Debug, Serialize, ToSchema)]
pub struct App {
    #[schema(format = Uuid)]
    pub id: String,
    pub name: String,
    #[schema(value_type = crate::schema::Scopes)]
    pub scopes: Vec<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<pb::App> for App {
    fn from(a: pb::App) -> Self {
        App {
            id: a.id,
            name: a.name,
            scopes: a.scopes,
            created_at: a.created_at,
            updated_at: a.updated_at,
        }
    }
}

/// A developer app with its token: shown only in this answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct AppWithToken {
    #[schema(format = Uuid)]
    pub id: String,
    pub name: String,
    #[schema(value_type = crate::schema::Scopes)]
    pub scopes: Vec<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// `sva_...`; store it now, it is never shown again.
    #[schema(pattern = "^sva_")]
    pub token: String,
}

impl From<pb::AppWithToken> for AppWithToken {
    fn from(a: pb::AppWithToken) -> Self {
        let app = App::from(a.app.unwrap_or_default());
        AppWithToken {
            id: app.id,
            name: app.name,
            scopes: app.scopes,
            created_at: app.created_at,
            updated_at: app.updated_at,
            token: a.token,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateAppBody {
    /// 1 to 100 characters once trimmed.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "Order notifications"
    )]
    pub name: String,
    /// What the app may send: at least one, each once.
    #[schema(value_type = crate::schema::Scopes, example = json!(["utility", "marketing"]))]
    pub scopes: Vec<String>,
}

/// The business's apps (no tokens).
#[utoipa::path(get, path = "/business/apps", tag = "apps",
    security(("bearer" = [])),
    responses((status = 200, description = "The apps", body = Envelope<Vec<App>>)))]
pub async fn list_apps(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let list = state
        .apps
        .clone()
        .list_apps(ctx.request(pb::ListAppsRequest {}))
        .await?;
    let apps: Vec<App> = list.into_inner().apps.into_iter().map(Into::into).collect();
    Ok(ok(StatusCode::OK, apps))
}

/// Create an app; its token is in this answer only.
#[utoipa::path(post, path = "/business/apps", tag = "apps",
    security(("bearer" = [])),
    request_body = CreateAppBody,
    responses((status = 201, description = "The app and its token", body = Envelope<AppWithToken>)))]
pub async fn create_app(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<CreateAppBody>,
) -> ApiResult {
    let message = pb::CreateAppRequest {
        name: body.name,
        scopes: body.scopes,
    };
    let created = state.apps.clone().create_app(ctx.request(message)).await?;
    Ok(ok(
        StatusCode::CREATED,
        AppWithToken::from(created.into_inner()),
    ))
}

/// Replace an app's token; the old one stops working at once.
#[utoipa::path(post, path = "/business/apps/{appId}/rotate", tag = "apps",
    security(("bearer" = [])),
    params(("appId" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The app and its new token", body = Envelope<AppWithToken>),
    ))]
pub async fn rotate_app(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(app_id): PathParam,
) -> ApiResult {
    let message = pb::AppRequest {
        app_id: uuid_path(&app_id)?,
    };
    let rotated = state.apps.clone().rotate_app(ctx.request(message)).await?;
    Ok(ok(StatusCode::OK, AppWithToken::from(rotated.into_inner())))
}

/// Delete an app and its token.
#[utoipa::path(delete, path = "/business/apps/{appId}", tag = "apps",
    security(("bearer" = [])),
    params(("appId" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "Deleted", body = EmptyEnvelope),
    ))]
pub async fn delete_app(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(app_id): PathParam,
) -> ApiResult {
    let message = pb::AppRequest {
        app_id: uuid_path(&app_id)?,
    };
    state.apps.clone().delete_app(ctx.request(message)).await?;
    Ok(ok(StatusCode::OK, Null))
}
