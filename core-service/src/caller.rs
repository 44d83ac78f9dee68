//! Who is calling. Every credential the core accepts is read here and nowhere else: the
//! `authorization` metadata (a user's access token, an app token, the internal token), the
//! client's address and User-Agent, and what they resolve to: an active user, a console caller
//! with their business and role, an app token's form, an internal caller. The rules (what each
//! caller may do) stay in the domains, which take the resolved caller from here.
//!
//! Internal services (the operator service and the workers' job stream) are guarded once at
//! their edge by [`internal_guard`], not per method.

use proto::ErrorCode;
use subtle::ConstantTimeEq as _;
use tonic::{Request, Status};
use uuid::Uuid;

use crate::business::store as business_store;
use crate::domain::{BusinessStatus, Role, UserStatus};
use crate::entities::{business_accounts, users};
use crate::error::{AppError, AppResult};
use crate::identity::store as identity_store;
use crate::identity::tokens::{self, TOKEN_PREFIX};
use crate::state::Core;

/// The `authorization` metadata value, if any.
pub fn authorization<T>(request: &Request<T>) -> Option<&str> {
    request
        .metadata()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
}

/// The token of a `Bearer` authorization value (the scheme is case-insensitive).
pub fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Who is asking, as far as the transport can tell.
#[derive(Debug, Clone, Default)]
pub struct ClientInfo {
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

/// The client IP the gateway forwarded (`x-client-ip`), else the peer address; and the
/// forwarded User-Agent (`x-client-user-agent`), else the gRPC caller's own.
///
/// The forwarded values are honoured only from a caller the core trusts: one presenting
/// INTERNAL_TOKEN in `x-internal-token` (the gateway), or, with no token configured, one on
/// loopback. From anyone else the peer address and the caller's own User-Agent are used, so a
/// gRPC client cannot pick the IP its per-IP limits count against.
pub fn client_info<T>(core: &Core, request: &Request<T>) -> ClientInfo {
    let meta = request.metadata();
    let trusted = match &core.internal_token {
        Some(expected) => meta
            .get("x-internal-token")
            .is_some_and(|v| bool::from(v.as_bytes().ct_eq(expected.as_bytes()))),
        None => request.remote_addr().is_some_and(|a| a.ip().is_loopback()),
    };
    let text = |name: &str| {
        meta.get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| v.chars().take(512).collect::<String>())
    };
    let forwarded = |name: &str| if trusted { text(name) } else { None };
    let ip = forwarded("x-client-ip")
        .and_then(|ip| ip.parse::<std::net::IpAddr>().ok())
        .or_else(|| request.remote_addr().map(|a| a.ip()))
        .map(|ip| ip.to_string());
    ClientInfo {
        ip,
        user_agent: forwarded("x-client-user-agent").or_else(|| text("user-agent")),
    }
}

/// The user behind an `authorization: Bearer <access token>` value. The account's status is
/// read on every call, so a suspension takes effect before the token expires.
///
/// Errors: `unauthorized` (missing, malformed, expired or foreign-signed token, or the user is
/// gone), `account_suspended`.
pub async fn authenticate_user(
    core: &Core,
    authorization: Option<&str>,
) -> AppResult<users::Model> {
    let token = UserToken::verify(core, authorization)?;
    let user = identity_store::user_by_id(&core.db, token.user_id()).await?;
    admit(user.as_ref().map(|user| user.status))?;
    user.ok_or_else(unauthorized)
}

fn unauthorized() -> AppError {
    AppError::new(ErrorCode::Unauthorized, "a valid access token is required")
}

/// Who the caller is: the user, and their business and role if they have one.
pub struct Me {
    pub user: users::Model,
    pub business: Option<(Uuid, Role)>,
}

/// The caller of an access token, with their team membership.
///
/// Errors: `unauthorized`, `account_suspended`.
pub async fn who_am_i(core: &Core, authorization: Option<&str>) -> AppResult<Me> {
    let user = authenticate_user(core, authorization).await?;
    let business = business_store::membership(&core.db, user.id)
        .await?
        .map(|member| (member.business_id, member.role));
    Ok(Me { user, business })
}

/// Refuses a suspended or banned user (`account_suspended`).
pub fn ensure_active(user: &users::Model) -> AppResult<()> {
    admit(Some(user.status))
}

/// Whether the user of a verified access token, read with this status (None: no such user),
/// may act. An erased user is gone: their tokens answer as if they had never been.
///
/// Errors: `unauthorized` (gone or erased), `account_suspended`.
pub fn admit(status: Option<UserStatus>) -> AppResult<()> {
    match status {
        None | Some(UserStatus::Erased) => Err(unauthorized()),
        Some(UserStatus::Suspended | UserStatus::Banned) => Err(AppError::new(
            ErrorCode::AccountSuspended,
            "this account is suspended",
        )),
        Some(UserStatus::Active) => Ok(()),
    }
}

/// A console caller: an active user, the business they are on, and their role in it.
#[derive(Debug, Clone)]
pub struct Console {
    pub user: users::Model,
    pub business: business_accounts::Model,
    pub role: Role,
    /// Whether the business's owner is an active user: a business is its owner's profile, so
    /// while the owner is suspended or banned the business is treated as suspended.
    pub owner_active: bool,
}

impl Console {
    /// Refuses a suspended business, or one whose owner is suspended or banned
    /// (`business_suspended`).
    pub fn require_active_business(&self) -> AppResult<()> {
        if !self.owner_active {
            return Err(AppError::new(
                ErrorCode::BusinessSuspended,
                "this business account is suspended: its owner's account is not active",
            ));
        }
        match self.business.status {
            BusinessStatus::Active => Ok(()),
            BusinessStatus::Suspended => Err(AppError::new(
                ErrorCode::BusinessSuspended,
                "this business account is suspended",
            )),
        }
    }

    /// Refuses members (`insufficient_role`): owners and admins only.
    pub fn require_manager(&self) -> AppResult<()> {
        match self.role {
            Role::Owner | Role::Admin => Ok(()),
            Role::Member => Err(AppError::new(
                ErrorCode::InsufficientRole,
                "this needs the owner or an admin",
            )),
        }
    }
}

/// Authenticates the caller and finds their business.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`.
pub async fn console(core: &Core, authorization: Option<&str>) -> AppResult<Console> {
    let user = authenticate_user(core, authorization).await?;
    let not_business = || {
        AppError::new(
            ErrorCode::NotABusinessAccount,
            "create a sandbox business or join a team first",
        )
    };
    let member = business_store::membership(&core.db, user.id)
        .await?
        .ok_or_else(not_business)?;
    let business = business_store::business(&core.db, member.business_id)
        .await?
        .ok_or_else(not_business)?;
    let owner_active = if business.id == user.id {
        true // the caller is the owner, and authenticate_user found them active
    } else {
        identity_store::user_by_id(&core.db, business.id)
            .await?
            .is_some_and(|owner| owner.status == UserStatus::Active)
    };
    Ok(Console {
        role: member.role,
        user,
        business,
        owner_active,
    })
}

/// A member of an active business's team, any role: what reading the console needs. Holding
/// one is the proof: it is made only by [`Member::of`].
#[derive(Debug, Clone)]
pub struct Member(Console);

/// An owner or admin of an active business: what changing its webhooks and team needs.
#[derive(Debug, Clone)]
pub struct Manager(Console);

/// The owner of an active business: what managing its developer apps needs.
#[derive(Debug, Clone)]
pub struct Owner(Console);

/// An authenticated, active user.
#[derive(Debug, Clone)]
pub struct User(users::Model);

/// An access token whose signature and expiry are checked, the user behind it not read yet: the
/// user-message write reads the user's status with the rest of its context (for a whole batch
/// of messages in one statement) and admits it with [`admit`] before anything else is decided.
#[derive(Debug, Clone, Copy)]
pub struct UserToken(Uuid);

/// An app token of the right form (`Bearer sva_...`), not looked up yet: the send paths read the
/// app behind it with the rest of a send's context.
#[derive(Debug, Clone)]
pub struct AppToken(String);

impl Console {
    /// The console caller of `request`.
    ///
    /// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`.
    pub async fn of<T>(core: &Core, request: &Request<T>) -> AppResult<Console> {
        console(core, authorization(request)).await
    }
}

impl Member {
    /// The console caller of `request`, on an active business.
    ///
    /// Errors: as [`Console::of`], `business_suspended`.
    pub async fn of<T>(core: &Core, request: &Request<T>) -> AppResult<Member> {
        let console = Console::of(core, request).await?;
        console.require_active_business()?;
        Ok(Member(console))
    }
}

impl Manager {
    /// The console caller of `request`, an owner or admin of an active business.
    ///
    /// Errors: as [`Member::of`], `insufficient_role`.
    pub async fn of<T>(core: &Core, request: &Request<T>) -> AppResult<Manager> {
        let Member(console) = Member::of(core, request).await?;
        console.require_manager()?;
        Ok(Manager(console))
    }
}

impl Owner {
    /// The console caller of `request`, the owner of an active business.
    ///
    /// Errors: as [`Member::of`], `owner_required`.
    pub async fn of<T>(core: &Core, request: &Request<T>) -> AppResult<Owner> {
        Owner::authenticate(core, authorization(request)).await
    }

    /// [`Owner::of`] for an `authorization` value (the operator's demo data signs one in).
    pub async fn authenticate(core: &Core, authorization: Option<&str>) -> AppResult<Owner> {
        let console = console(core, authorization).await?;
        console.require_active_business()?;
        if console.role != Role::Owner {
            return Err(AppError::new(
                ErrorCode::OwnerRequired,
                "developer apps are managed by the owner",
            ));
        }
        Ok(Owner(console))
    }
}

impl User {
    /// The user behind `request`'s access token (see [`authenticate_user`]).
    ///
    /// Errors: `unauthorized`, `account_suspended`.
    pub async fn of<T>(core: &Core, request: &Request<T>) -> AppResult<User> {
        User::authenticate(core, authorization(request)).await
    }

    /// [`User::of`] for an `authorization` value (the operator's demo data signs one in).
    pub async fn authenticate(core: &Core, authorization: Option<&str>) -> AppResult<User> {
        authenticate_user(core, authorization).await.map(User)
    }
}

impl UserToken {
    /// The access token `request` presents, its signature and expiry checked.
    ///
    /// Errors: `unauthorized`.
    pub fn of<T>(core: &Core, request: &Request<T>) -> AppResult<UserToken> {
        UserToken::verify(core, authorization(request))
    }

    /// [`UserToken::of`] for an `authorization` value.
    pub fn verify(core: &Core, authorization: Option<&str>) -> AppResult<UserToken> {
        let token = authorization.and_then(bearer).ok_or_else(unauthorized)?;
        let now = core.clock.now().timestamp();
        core.keys
            .jwt_verifying()
            .find_map(|secret| tokens::verify_access_token(secret, &core.tokens, token, now))
            .map(UserToken)
            .ok_or_else(unauthorized)
    }

    /// The user the token names.
    pub fn user_id(&self) -> Uuid {
        self.0
    }
}

impl AppToken {
    /// The app token `request` presents, when it has the form of one.
    ///
    /// Errors: `invalid_app_token`.
    pub fn of<T>(request: &Request<T>) -> AppResult<AppToken> {
        app_token(authorization(request)).map(|token| AppToken(token.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! derefs_to {
    ($($caller:ty => $target:ty),* $(,)?) => {$(
        impl std::ops::Deref for $caller {
            type Target = $target;
            fn deref(&self) -> &$target {
                &self.0
            }
        }
    )*};
}

derefs_to!(Member => Console, Manager => Console, Owner => Console, User => users::Model);

/// The answer to a missing, malformed, unknown, rotated or deleted app token. The app behind a
/// token is read with every send (`messaging::reader`), never cached, so a rotated or deleted
/// token fails on its very next request on every core.
pub fn invalid_app_token() -> AppError {
    AppError::new(ErrorCode::InvalidAppToken, "a valid app token is required")
}

/// The token of `authorization: Bearer sva_...`, when it has the form of one.
///
/// Errors: `invalid_app_token`.
pub fn app_token(authorization: Option<&str>) -> AppResult<&str> {
    authorization
        .and_then(bearer)
        .filter(|t| t.starts_with(TOKEN_PREFIX) && t.len() <= 128)
        .ok_or_else(invalid_app_token)
}

/// Admits the caller when it presents INTERNAL_TOKEN or, with no token configured, when it
/// connects from loopback.
///
/// Errors: `unauthorized`.
pub fn authorize_internal(
    core: &Core,
    authorization: Option<&str>,
    peer: Option<std::net::SocketAddr>,
) -> AppResult<()> {
    let refused = || AppError::new(ErrorCode::Unauthorized, "internal token required");
    match &core.internal_token {
        Some(expected) => {
            let presented = authorization.and_then(bearer).ok_or_else(refused)?;
            if bool::from(presented.as_bytes().ct_eq(expected.as_bytes())) {
                Ok(())
            } else {
                Err(refused())
            }
        }
        None if peer.is_some_and(|p| p.ip().is_loopback()) => Ok(()),
        None => Err(refused()),
    }
}

/// Guards a whole internal service at its edge (tonic's `with_interceptor`): every call must
/// pass [`authorize_internal`] before it is decoded or reaches a method.
pub fn internal_guard(
    core: std::sync::Arc<Core>,
) -> impl FnMut(Request<()>) -> Result<Request<()>, Status> + Clone {
    move |request: Request<()>| {
        authorize_internal(&core, authorization(&request), request.remote_addr())?;
        Ok(request)
    }
}
