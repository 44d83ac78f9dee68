//! What an app-token send is checked against, read in one round trip per batch: the app, its
//! business, the owner, the recipient and the follow (with their row versions on PostgreSQL).

use proto::vocabulary::{BusinessMode, BusinessStatus, FollowStatus};

use super::*;

/// What one read tells an app-token send: the app, its business, the business owner's number,
/// the recipient and the recipient's follow. Everything the checks before the write need, in one
/// round trip.
#[derive(Debug, Clone)]
pub struct AppSendContext {
    pub app_id: Uuid,
    pub business_id: Uuid,
    pub scopes: String,
    /// None when the app's business row is gone.
    pub business: Option<BusinessState>,
    pub owner_phone: Option<String>,
    pub recipient: RecipientState,
    /// PostgreSQL: the versions of the rows read (see [`ContextCheck`]); None on SQLite.
    pub version: Option<String>,
}

/// A send decided from a context read earlier: the write stores it only while the rows the
/// context came from (app, business, owner, recipient, follow) are as they were read, compared
/// by their versions (`xmin`, and the recipient's id) in the writing statement itself; else it
/// answers [`Written::Stale`] and stores nothing.
#[derive(Debug, Clone)]
pub struct ContextCheck {
    pub token_hash: String,
    pub to: String,
    pub version: String,
    /// A templated send rendered from a kept template row: the template's id and that row's
    /// version (`xmin`), checked with the rest.
    pub template: Option<(Uuid, String)>,
}

/// The rows an app-token send's context is read from, for `q(token_hash, to_phone)`.
pub(super) const CONTEXT_JOINS: &str = "JOIN developer_apps a ON a.token_hash = q.token_hash \
     LEFT JOIN business_accounts b ON b.id = a.business_id \
     LEFT JOIN users o ON o.id = a.business_id \
     LEFT JOIN users r ON r.phone_number = q.to_phone \
     LEFT JOIN follows f ON f.business_id = a.business_id AND f.user_id = r.id";

/// PostgreSQL: the versions of a context's rows as one text, as read and as checked. Any update
/// (or deletion, or a row appearing) of one of them changes it.
pub(super) const CONTEXT_VERSION: &str = "concat(a.xmin::text, ':', COALESCE(b.xmin::text, '-'), ':', \
     COALESCE(o.xmin::text, '-'), ':', COALESCE(r.id::text, '-'), ':', \
     COALESCE(r.xmin::text, '-'), ':', COALESCE(f.xmin::text, '-'))";

/// A business's status and mode, as stored.
#[derive(Debug, Clone)]
pub struct BusinessState {
    pub status: BusinessStatus,
    pub mode: BusinessMode,
}

/// The recipient of a send and their follow of the sending business.
#[derive(Debug, Clone, Default)]
pub struct RecipientState {
    pub user_id: Option<Uuid>,
    pub follow_status: Option<FollowStatus>,
    pub marketing_opt_in: bool,
    /// The recipient's own language, as read with the rest (None: not set, or not read).
    pub language: Option<String>,
}

/// The contexts of many app-token sends in one read: each `(token hash, recipient number)`
/// looks up its app by the token's hash (a unique index), the recipient by phone (a unique
/// index) and the follow by its primary key. The answer has one entry per request, in order
/// (None for an unknown token).
pub async fn app_send_contexts(
    db: &impl ConnectionTrait,
    requests: &[(String, Option<String>)],
) -> AppResult<Vec<Option<AppSendContext>>> {
    if requests.is_empty() {
        return Ok(Vec::new());
    }
    // The requests travel as one JSON array of [hash, phone] pairs, so the statement's text
    // (and its prepared plan) is the same whatever the batch's size.
    let pairs: Vec<(&str, Option<&str>)> = requests
        .iter()
        .map(|(hash, to)| (hash.as_str(), to.as_deref()))
        .collect();
    let json = serde_json::to_string(&pairs).map_err(|_| AppError::internal("encoding a read"))?;
    let (keys, version) = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => (
            "SELECT CAST(e.n - 1 AS BIGINT) AS n, e.v->>0 AS token_hash, e.v->>1 AS to_phone \
             FROM jsonb_array_elements(CAST($1 AS jsonb)) WITH ORDINALITY AS e(v, n)",
            CONTEXT_VERSION,
        ),
        _ => (
            "SELECT CAST(e.key AS BIGINT) AS n, json_extract(e.value, '$[0]') AS token_hash, \
             json_extract(e.value, '$[1]') AS to_phone FROM json_each($1) AS e",
            "CAST(NULL AS TEXT)",
        ),
    };
    let values: Vec<Value> = vec![json.into()];
    let sql = format!(
        "SELECT q.n, a.id AS app_id, a.business_id, a.scopes, \
         CASE WHEN o.status IS NOT NULL AND o.status <> 'active' THEN 'suspended' \
         ELSE b.status END AS business_status, b.mode AS business_mode, o.phone_number AS owner_phone, \
         r.id AS recipient_id, f.status AS follow_status, f.marketing_opt_in, \
         r.language AS recipient_language, {version} AS version \
         FROM ({keys}) q {CONTEXT_JOINS}"
    );
    let mut contexts: Vec<Option<AppSendContext>> = requests.iter().map(|_| None).collect();
    for row in db.query_all_raw(statement(db, &sql, values)).await? {
        let n: i64 = row.try_get("", "n")?;
        let status: Option<BusinessStatus> = row.try_get("", "business_status")?;
        let mode: Option<BusinessMode> = row.try_get("", "business_mode")?;
        let context = AppSendContext {
            app_id: row.try_get("", "app_id")?,
            business_id: row.try_get("", "business_id")?,
            scopes: row.try_get("", "scopes")?,
            business: status
                .zip(mode)
                .map(|(status, mode)| BusinessState { status, mode }),
            owner_phone: row.try_get("", "owner_phone")?,
            recipient: recipient_from_row(&row)?,
            version: row.try_get("", "version")?,
        };
        if let Some(slot) = contexts.get_mut(n as usize) {
            *slot = Some(context);
        }
    }
    Ok(contexts)
}

fn recipient_from_row(row: &sea_orm::QueryResult) -> AppResult<RecipientState> {
    Ok(RecipientState {
        user_id: row.try_get("", "recipient_id")?,
        follow_status: row.try_get("", "follow_status")?,
        marketing_opt_in: row
            .try_get::<Option<bool>>("", "marketing_opt_in")?
            .unwrap_or(false),
        language: row.try_get("", "recipient_language")?,
    })
}

/// The recipient with this phone number and their follow of `business_id`, in one read.
pub async fn recipient_state(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    to: &str,
) -> AppResult<RecipientState> {
    const SQL: &str = "SELECT r.id AS recipient_id, f.status AS follow_status, f.marketing_opt_in, \
         r.language AS recipient_language FROM users r LEFT JOIN follows f ON f.business_id = $1 AND f.user_id = r.id \
         WHERE r.phone_number = $2";
    let values = vec![business_id.into(), to.into()];
    match db.query_one_raw(statement(db, SQL, values)).await? {
        Some(row) => recipient_from_row(&row),
        None => Ok(RecipientState::default()),
    }
}

/// The live record of an Idempotency-Key (None when absent or past its retention).
pub async fn live_key(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    key: &str,
    now_ms: i64,
) -> AppResult<Option<idempotency_keys::Model>> {
    Ok(
        idempotency_keys::Entity::find_by_id((business_id, key.to_string()))
            .one(db)
            .await?
            .filter(|k| k.expires_at_ms > now_ms),
    )
}
