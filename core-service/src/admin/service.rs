//! Operator actions: create users, change a user's status, change a business's mode and status.

use proto::ErrorCode;
use sea_orm::Set;
use uuid::Uuid;

use crate::business::service::AccountView;
use crate::business::store as business_store;
use crate::domain::{BusinessMode, BusinessStatus, PhoneNumber, Role, UserStatus};
use crate::entities::{business_accounts, users};
use crate::error::{AppError, AppResult, is_unique_violation};
use crate::identity::store as identity_store;
use crate::state::Core;

/// Creates an active user. Errors: `invalid_phone_number`, `user_already_exists`.
pub async fn create_user(core: &Core, phone: &str) -> AppResult<users::Model> {
    let phone = PhoneNumber::parse(phone)?;
    let exists = || AppError::new(ErrorCode::UserAlreadyExists, "a user has this phone number");
    if identity_store::user_by_phone(&core.db, phone.as_str())
        .await?
        .is_some()
    {
        return Err(exists());
    }
    match identity_store::insert_user(
        &core.db,
        phone.as_str(),
        UserStatus::Active,
        core.clock.now(),
    )
    .await
    {
        Ok(user) => Ok(user),
        Err(err) if is_unique_violation(&err) => Err(exists()),
        Err(err) => Err(err.into()),
    }
}

/// The user with `phone`. Errors: `user_not_found`.
async fn user_with_phone(core: &Core, phone: &PhoneNumber) -> AppResult<users::Model> {
    identity_store::user_by_phone(&core.db, phone.as_str())
        .await?
        .ok_or_else(|| AppError::new(ErrorCode::UserNotFound, "no user has this phone number"))
}

/// Sets a user's status. Errors: `invalid_phone_number`, `invalid_request`, `user_not_found`.
pub async fn set_user_status(core: &Core, phone: &str, status: &str) -> AppResult<users::Model> {
    let phone = PhoneNumber::parse(phone)?;
    let status = UserStatus::parse(status, "status")?;
    if status == UserStatus::Erased {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            "status: erased is set by an erasure only (admin erase-user)",
        ));
    }
    let user = user_with_phone(core, &phone).await?;
    identity_store::set_user_status(&core.db, user, status, core.clock.now()).await
}

/// Sets a business's mode and/or status. Errors: `invalid_request`, `business_not_found`.
pub async fn set_business(
    core: &Core,
    id: &str,
    mode: Option<&str>,
    status: Option<&str>,
) -> AppResult<AccountView> {
    let not_found = || AppError::new(ErrorCode::BusinessNotFound, "no such business account");
    let id = Uuid::parse_str(id.trim()).map_err(|_| not_found())?;
    let mode = mode.map(|m| BusinessMode::parse(m, "mode")).transpose()?;
    let status = status
        .map(|s| BusinessStatus::parse(s, "status"))
        .transpose()?;
    let business = business_store::business(&core.db, id)
        .await?
        .ok_or_else(not_found)?;
    let mut active: business_accounts::ActiveModel = business.into();
    if let Some(mode) = mode {
        active.mode = Set(mode);
    }
    if let Some(status) = status {
        active.status = Set(status);
    }
    active.updated_at = Set(core.clock.now());
    let saved = business_store::save_business(&core.db, active).await?;
    let owner = identity_store::user_by_id(&core.db, saved.id)
        .await?
        .ok_or_else(|| AppError::internal("business without owner"))?;
    Ok(AccountView {
        business: saved,
        phone_number: owner.phone_number,
    })
}
/// What [`create_demo`] made.
#[derive(Debug, Clone)]
pub struct Demo {
    pub business: AccountView,
    pub owner_access_token: String,
    pub app_id: Uuid,
    pub app_token: String,
    /// The first three followers: (user id, phone number, marketing opt-in).
    pub followers: Vec<(Uuid, String, bool)>,
    pub follower_count: u64,
    /// The conversation the first follower started (one message to the business).
    pub conversation_id: Uuid,
}

/// The most followers a demo makes.
pub const MAX_DEMO_FOLLOWERS: u32 = 1_000_000;
/// Follows written per transaction by the demo.
const DEMO_BATCH: usize = 1_000;

/// The `i`-th number of the demo's block: +1 415 2xx xxxx, room for a million numbers, apart
/// from the owners' +1 415 555 xxxx.
fn demo_number(i: u32) -> String {
    format!("+1415{:07}", 2_000_000 + i)
}

/// A user with a fresh, unused demo number (+1 415 555 01xx/02xx...).
async fn demo_user(core: &Core) -> AppResult<users::Model> {
    for _ in 0..50 {
        let phone = format!("+1415555{:04}", rand::random_range(100..10_000u32));
        match create_user(core, &phone).await {
            Ok(user) => return Ok(user),
            Err(err) if err.code == ErrorCode::UserAlreadyExists => continue,
            Err(err) => return Err(err),
        }
    }
    Err(AppError::internal("no free demo phone number"))
}

/// A live business with its owner, `followers` followers (the first half, at least one, opted
/// in to marketing; numbers from the block of [`demo_number`], their users made where none
/// exists) and an app with every scope, so a developer can send within a minute. The business
/// and the app go through the same rules as the public API; the follows are ordinary follows
/// written a thousand per transaction, each with its ledger entry and `follow.created`.
/// Refused on PostgreSQL (a production database, most likely) unless `confirm`.
///
/// Errors: `invalid_request` (PostgreSQL without confirmation, `followers` not 1 to 1,000,000).
pub async fn create_demo(core: &Core, confirm: bool, followers: u32) -> AppResult<Demo> {
    if !(1..=MAX_DEMO_FOLLOWERS).contains(&followers) {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            format!("followers: 1 to {MAX_DEMO_FOLLOWERS}"),
        ));
    }
    if core.tuning.shared && !confirm {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            "confirm: this database is PostgreSQL; pass --yes to create demo data in it",
        ));
    }
    let bearer_of = |user: &users::Model| -> AppResult<String> {
        crate::identity::tokens::issue_access_token(
            &core.keys.jwt_secret,
            &core.tokens,
            user.id,
            core.clock.now().timestamp(),
        )
        .map_err(|e| AppError::internal(format!("signing a token: {e}")))
    };
    let owner = demo_user(core).await?;
    let owner_token = bearer_of(&owner)?;
    let owner_auth = format!("Bearer {owner_token}");
    crate::business::service::create_sandbox(
        core,
        &crate::caller::User::authenticate(core, Some(&owner_auth)).await?,
        crate::business::service::NewAccount {
            business_name: Some("Demo Coffee".to_string()),
            category: Some("Food and drink".to_string()),
            website_url: Some("https://example.com".to_string()),
        },
    )
    .await?;
    let business = set_business(
        core,
        &owner.id.to_string(),
        Some(BusinessMode::Live.as_str()),
        None,
    )
    .await?;
    let scopes: Vec<String> = crate::domain::Scope::ALL
        .iter()
        .map(|s| s.as_str().to_string())
        .collect();
    let demo_owner = crate::caller::Owner::authenticate(core, Some(&owner_auth)).await?;
    let (app, app_token) =
        crate::apps::service::create(core, &demo_owner, "Demo server", &scopes).await?;
    // The audience, a batch at a time: users (made where their number has none yet) and their
    // follows, the first half (at least one) opted in to marketing.
    let business_id = owner.id;
    let opted_in = (followers / 2).max(1);
    let mut first = Vec::new();
    let mut made: u32 = 0;
    let mut next: u32 = 0;
    while made < followers {
        let mut phones = Vec::with_capacity(DEMO_BATCH);
        while phones.len() < DEMO_BATCH && made + (phones.len() as u32) < followers {
            if next >= MAX_DEMO_FOLLOWERS * 2 {
                return Err(AppError::internal("the demo's number block is used up"));
            }
            let phone = demo_number(next);
            next += 1;
            if PhoneNumber::parse(&phone).is_ok() {
                phones.push(phone);
            }
        }
        let ids =
            identity_store::ensure_users(&core.db, &phones, UserStatus::Active, core.clock.now())
                .await?;
        let mut people = Vec::with_capacity(phones.len());
        for phone in phones {
            let id = *ids
                .get(&phone)
                .ok_or_else(|| AppError::internal("a demo user was not made"))?;
            let opt_in = made < opted_in;
            if first.len() < 3 {
                first.push((id, phone, opt_in));
            }
            people.push((id, opt_in));
            made += 1;
        }
        crate::consent::service::follow_many(core, business_id, &people).await?;
    }
    crate::db::analyze_after_load(
        &core.db,
        &["users", "follows", "follow_changes"],
        u64::from(made),
    )
    .await;
    // A newcomer sees a conversation at once: the first follower writes to the business.
    let (writer_id, _, _) = first
        .first()
        .cloned()
        .ok_or_else(|| AppError::internal("a demo without followers"))?;
    let writer = identity_store::user_by_id(&core.db, writer_id)
        .await?
        .ok_or_else(|| AppError::internal("a demo follower was not made"))?;
    let writer_auth = format!("Bearer {}", bearer_of(&writer)?);
    let message = crate::conversations::service::write(
        core,
        &crate::caller::UserToken::verify(core, Some(&writer_auth))?,
        crate::conversations::service::UserMessage {
            business_account_id: business_id.to_string(),
            text: Some("Hi! Do you have oat milk today?".to_string()),
            ..Default::default()
        },
    )
    .await?;
    Ok(Demo {
        conversation_id: message.conversation_id,
        business,
        owner_access_token: owner_token,
        app_id: app.app.id,
        app_token,
        followers: first,
        follower_count: u64::from(made),
    })
}

/// A user found by phone, with their business and role.
pub struct FoundUser {
    pub user: users::Model,
    pub membership: Option<(Uuid, Role)>,
}

/// Errors: `invalid_phone_number`, `user_not_found`.
pub async fn find_user(core: &Core, phone: &str) -> AppResult<FoundUser> {
    let user = user_with_phone(core, &PhoneNumber::parse(phone)?).await?;
    let membership = business_store::membership(&core.db, user.id)
        .await?
        .map(|m| (m.business_id, m.role));
    Ok(FoundUser { user, membership })
}

/// A business with what an operator looks at.
pub struct BusinessDetail {
    pub business: AccountView,
    pub team: Vec<crate::business::store::Member>,
    pub apps: Vec<crate::apps::service::AppView>,
    pub webhooks: Vec<crate::webhooks::endpoints::Endpoint>,
}

/// A business by id, or by its owner's phone number (or a member's: their business).
///
/// Errors: `invalid_request` (neither or both given), `invalid_phone_number`,
/// `business_not_found`.
pub async fn get_business(
    core: &Core,
    id: Option<&str>,
    phone: Option<&str>,
) -> AppResult<BusinessDetail> {
    let not_found = || AppError::new(ErrorCode::BusinessNotFound, "no such business account");
    let id = match (id, phone) {
        (Some(id), None) => Uuid::parse_str(id.trim()).map_err(|_| not_found())?,
        (None, Some(phone)) => {
            find_user(core, phone)
                .await
                .map_err(|e| match e.code {
                    ErrorCode::UserNotFound => not_found(),
                    _ => e,
                })?
                .membership
                .ok_or_else(not_found)?
                .0
        }
        _ => {
            return Err(AppError::new(
                ErrorCode::InvalidRequest,
                "give the business id or a phone number (one of them)",
            ));
        }
    };
    let business = business_store::business(&core.db, id)
        .await?
        .ok_or_else(not_found)?;
    let owner = identity_store::user_by_id(&core.db, business.id)
        .await?
        .ok_or_else(|| AppError::internal("business without owner"))?;
    let team = business_store::team(&core.db, business.id).await?;
    let apps = crate::apps::service::of_business(core, business.id).await?;
    let webhooks = crate::webhooks::endpoints::of_business(core, business.id).await?;
    Ok(BusinessDetail {
        business: AccountView {
            business,
            phone_number: owner.phone_number,
        },
        team,
        apps,
        webhooks,
    })
}

/// Businesses, newest first. Errors: `invalid_request` (status, mode or limit).
pub async fn list_businesses(
    core: &Core,
    status: Option<&str>,
    mode: Option<&str>,
    limit: u32,
) -> AppResult<Vec<AccountView>> {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
    let status = status
        .map(|s| BusinessStatus::parse(s, "status"))
        .transpose()?;
    let mode = mode.map(|m| BusinessMode::parse(m, "mode")).transpose()?;
    let limit = match limit {
        0 => 100,
        1..=1000 => limit,
        _ => {
            return Err(AppError::new(ErrorCode::InvalidRequest, "limit: 1 to 1000"));
        }
    };
    let mut query = business_accounts::Entity::find()
        .order_by_desc(business_accounts::Column::CreatedAt)
        .order_by_desc(business_accounts::Column::Id)
        .limit(u64::from(limit));
    if let Some(status) = status {
        query = query.filter(business_accounts::Column::Status.eq(status.as_str()));
    }
    if let Some(mode) = mode {
        query = query.filter(business_accounts::Column::Mode.eq(mode.as_str()));
    }
    let businesses = query.all(&core.db).await?;
    let owners: std::collections::HashMap<Uuid, String> = users::Entity::find()
        .filter(users::Column::Id.is_in(businesses.iter().map(|b| b.id)))
        .all(&core.db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.phone_number))
        .collect();
    Ok(businesses
        .into_iter()
        .map(|business| AccountView {
            phone_number: owners.get(&business.id).cloned().unwrap_or_default(),
            business,
        })
        .collect())
}

/// Lifts today's lock of a phone after too many failed codes (and forgets its failures).
/// Returns whether anything was counted. Errors: `invalid_phone_number`.
pub async fn unlock_phone(core: &Core, phone: &str) -> AppResult<bool> {
    let phone = PhoneNumber::parse(phone)?;
    let today = core.clock.now().date_naive();
    crate::identity::service::clear_failures(core, &phone, today).await
}
