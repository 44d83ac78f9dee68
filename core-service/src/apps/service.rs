//! The developer-app rules: owner-only management, tokens shown once and stored as hashes,
//! rotation and revocation effective on the very next request.

use proto::ErrorCode;
use sea_orm::Set;
use uuid::Uuid;

use super::store;
use crate::caller::Owner;
use crate::domain::{Scopes, parse_name};
use crate::entities::developer_apps;
use crate::error::{AppError, AppResult};
use crate::identity::tokens::{TOKEN_PREFIX, hash_token, new_opaque_token};
use crate::state::Core;

/// An app and its scopes.
#[derive(Debug, Clone)]
pub struct AppView {
    pub app: developer_apps::Model,
    pub scopes: Scopes,
}

pub fn view(app: developer_apps::Model) -> AppResult<AppView> {
    Ok(AppView {
        scopes: Scopes::from_db(&app.scopes)?,
        app,
    })
}

/// `sva_` + 256 random bits (base64url).
fn new_token() -> String {
    format!("{TOKEN_PREFIX}{}", new_opaque_token())
}

fn not_found() -> AppError {
    AppError::new(ErrorCode::AppNotFound, "no such app")
}

fn app_id(id: &str) -> AppResult<Uuid> {
    Uuid::parse_str(id.trim()).map_err(|_| not_found())
}

/// The business's apps, oldest first (never with tokens).
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`,
/// `owner_required`.
pub async fn list(core: &Core, console: &Owner) -> AppResult<Vec<AppView>> {
    of_business(core, console.business.id).await
}

/// The apps of a business (what an operator looks at).
pub async fn of_business(core: &Core, business_id: Uuid) -> AppResult<Vec<AppView>> {
    store::list(&core.db, business_id)
        .await?
        .into_iter()
        .map(view)
        .collect()
}

/// Creates an app; the token is returned here and never again.
///
/// Errors: as [`list`], `invalid_request` (name), `invalid_app_scopes`.
pub async fn create(
    core: &Core,
    console: &Owner,
    name: &str,
    scopes: &[String],
) -> AppResult<(AppView, String)> {
    let name = parse_name("name", name)?;
    let scopes = Scopes::parse(scopes)?;
    let token = new_token();
    let now = core.clock.now();
    let app = store::insert(
        &core.db,
        developer_apps::ActiveModel {
            id: Set(Uuid::now_v7()),
            business_id: Set(console.business.id),
            name: Set(name),
            scopes: Set(scopes.to_db()),
            token_hash: Set(hash_token(&token)),
            created_at: Set(now),
            updated_at: Set(now),
        },
    )
    .await?;
    Ok((AppView { app, scopes }, token))
}

/// Replaces an app's token; the old one fails from the next request on.
///
/// Errors: as [`list`], `app_not_found`.
pub async fn rotate(core: &Core, console: &Owner, id: &str) -> AppResult<(AppView, String)> {
    let app = store::find(&core.db, console.business.id, app_id(id)?)
        .await?
        .ok_or_else(not_found)?;
    let token = new_token();
    let mut active: developer_apps::ActiveModel = app.into();
    active.token_hash = Set(hash_token(&token));
    active.updated_at = Set(core.clock.now());
    // Deleted meanwhile: the rotation has nothing left to rotate.
    let app = store::update(&core.db, active)
        .await?
        .ok_or_else(not_found)?;
    Ok((view(app)?, token))
}

/// Deletes an app; its token fails from the next request on.
///
/// Errors: as [`list`], `app_not_found`.
pub async fn delete(core: &Core, console: &Owner, id: &str) -> AppResult<()> {
    if store::delete(&core.db, console.business.id, app_id(id)?).await? == 0 {
        return Err(not_found());
    }
    Ok(())
}

/// Deletes one app of any business (an operator's action); its token fails from the next
/// request on, as when its owner deletes it.
///
/// Errors: `app_not_found`.
pub async fn revoke(core: &Core, id: &str) -> AppResult<AppView> {
    let app = store::by_id(&core.db, app_id(id)?)
        .await?
        .ok_or_else(not_found)?;
    if store::delete(&core.db, app.business_id, app.id).await? == 0 {
        return Err(not_found());
    }
    view(app)
}
