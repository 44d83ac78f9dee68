//! `core-service admin ...`: operator commands that call the AdminService over gRPC and print
//! JSON.

use clap::{Args, Subcommand};
use proto::v1 as pb;
use proto::v1::admin_service_client::AdminServiceClient;
use proto::v1::privacy_service_client::PrivacyServiceClient;
use proto::vocabulary::ErasureStatus;
use serde_json::json;
use tonic::Request;

#[derive(Debug, Clone, Args)]
pub struct AdminArgs {
    /// The core's gRPC address; several cores separated by commas (a command goes to one that
    /// answers).
    #[arg(long, env = "CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// PEM CA certificate to trust for an https:// CORE_URL (default: the system's roots).
    #[arg(long, env = "CORE_TLS_CA")]
    pub core_tls_ca: Option<std::path::PathBuf>,

    /// The core's INTERNAL_TOKEN (not needed against a core on loopback that has none).
    #[arg(long, env = "INTERNAL_TOKEN", hide_env_values = true)]
    pub internal_token: Option<String>,

    #[command(subcommand)]
    pub command: AdminCommand,
}

/// The flag naming a user by id (`--user <uuid>`): a flag's name, not a change source.
const USER_FLAG: &str = "user";

#[derive(Debug, Clone, Subcommand)]
pub enum AdminCommand {
    /// Creates an active user; prints {"id","phone_number","status","created_at"}.
    CreateUser {
        #[arg(long)]
        phone: String,
    },
    /// Sets a user's status (active, suspended or banned).
    SetUser {
        #[arg(long)]
        phone: String,
        #[arg(long)]
        status: String,
    },
    /// Records that a user granted a developer app sign-in.
    CreateGrant {
        #[arg(long)]
        user: String,
        #[arg(long)]
        client: String,
    },
    /// Revokes a grant; the app's business receives grant.revoked.
    RevokeGrant {
        #[arg(long)]
        user: String,
        #[arg(long)]
        client: String,
    },
    /// Creates a live business with its owner, followers (the first half, at least one, opted
    /// in to marketing) and an app with every scope; prints their ids, the first three
    /// followers, follower_count, a fresh owner access token, the app token and the conversation
    /// the first follower started with one message to the business. Refused on
    /// PostgreSQL unless --yes.
    Demo {
        /// Create demo data even in a PostgreSQL database.
        #[arg(long)]
        yes: bool,
        /// How many followers (1 to 1,000,000), written a thousand per transaction.
        #[arg(long, default_value_t = 3,
              value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        followers: u32,
    },
    /// Sets a business's mode (sandbox or live) and/or status (active or suspended).
    SetBusiness {
        #[arg(long)]
        id: String,
        #[arg(long)]
        mode: Option<String>,
        #[arg(long)]
        status: Option<String>,
    },
    /// Finds a user by phone number; prints the user, their business and role.
    FindUser {
        #[arg(long)]
        phone: String,
    },
    /// Shows a business (by id, or by the phone of its owner or a member) with its team, apps
    /// and webhook endpoints.
    GetBusiness {
        #[arg(long, conflicts_with = "phone", required_unless_present = "phone")]
        id: Option<String>,
        #[arg(long)]
        phone: Option<String>,
    },
    /// Lists businesses, newest first.
    ListBusinesses {
        /// active or suspended
        #[arg(long)]
        status: Option<String>,
        /// sandbox or live
        #[arg(long)]
        mode: Option<String>,
        /// 1 to 1000
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Lifts a phone's lock for the day after too many failed sign-in codes.
    UnlockPhone {
        #[arg(long)]
        phone: String,
    },
    /// Deletes one developer app of any business (a leaked token), leaving the business as it is.
    RevokeApp {
        #[arg(long)]
        id: String,
    },
    /// Pauses one webhook endpoint of any business.
    PauseWebhook {
        #[arg(long)]
        id: String,
    },
    /// Re-seals every webhook secret with the core's current MASTER_KEY (run after rotating it,
    /// with the old key as MASTER_KEY_PREVIOUS on the cores); prints {"resealed": n}.
    Rekey,
    /// Runs one retention pass now (the cores also purge on their own every
    /// PURGE_INTERVAL_SECS); prints the rows deleted per kind of data.
    Purge,
    /// Re-queues the failed deliveries created since a time (RFC 3339, at most 7 days back, or
    /// the deliveries' retention when shorter) of every active endpoint of a business; paused
    /// endpoints are skipped and listed.
    RetryDeliveries {
        #[arg(long)]
        business: String,
        #[arg(long)]
        since: String,
    },
    /// Changes a user's follow of a business on the user's request: --unfollow, or
    /// --marketing-opt-in false. Support may only withdraw: it never creates a follow nor grants
    /// consent. Recorded in the consent ledger with source `operator`; prints the follow.
    SetFollow {
        #[arg(long)]
        business: String,
        #[arg(long)]
        phone: String,
        #[arg(
            long,
            conflicts_with = "marketing_opt_in",
            required_unless_present = "marketing_opt_in"
        )]
        unfollow: bool,
        /// Only `false`: support withdraws consent, never grants it.
        #[arg(long, value_parser = ["false"])]
        marketing_opt_in: Option<String>,
    },
    /// Erases a user on their request (by --phone, or --user id): signed out and their number
    /// freed at once, then what they left removed by a paced job (ERASURE_ROWS_PER_SECOND) on
    /// any core. Refused for the owner of a business; a team member leaves the team first.
    /// Prints the erasure {"erasure_id","user_id","status","phase","rows","erased_at",
    /// "completed_at","businesses"}; --wait polls it until completed. Again by --user: the
    /// same erasure, nothing done twice.
    EraseUser {
        #[arg(long, conflicts_with = "user_id", required_unless_present = "user_id")]
        phone: Option<String>,
        #[arg(long = USER_FLAG)]
        user_id: Option<String>,
        /// Waits for the job to complete, printing its progress to stderr every second.
        #[arg(long)]
        wait: bool,
    },
    /// An erasure's progress, by its id or the erased user's id.
    Erasure {
        #[arg(long)]
        id: String,
    },
    /// Prints everything kept about a user (by --phone, or --user id) as one JSON document.
    ExportUser {
        #[arg(long, conflicts_with = "user_id", required_unless_present = "user_id")]
        phone: Option<String>,
        #[arg(long = USER_FLAG)]
        user_id: Option<String>,
    },
}

fn erasure_json(e: pb::Erasure) -> serde_json::Value {
    json!({
        "erasure_id": e.erasure_id,
        "user_id": e.user_id,
        "status": e.status,
        "phase": e.phase,
        "rows": e.rows,
        "erased_at": e.erased_at,
        "completed_at": e.completed_at,
        "businesses": e.businesses,
    })
}

fn business_json(b: pb::BusinessAccount) -> serde_json::Value {
    json!({
        "user_id": b.user_id,
        "business_name": b.business_name,
        "category": b.category,
        "website_url": b.website_url,
        "status": b.status,
        "mode": b.mode,
        "phone_number": b.phone_number,
        "created_at": b.created_at,
    })
}

fn app_json(a: pb::App) -> serde_json::Value {
    json!({ "id": a.id, "name": a.name, "scopes": a.scopes, "created_at": a.created_at })
}

fn webhook_json(w: pb::Webhook) -> serde_json::Value {
    json!({ "id": w.id, "url": w.url, "events": w.events, "active": w.active, "created_at": w.created_at })
}

fn user_json(user: pb::User) -> serde_json::Value {
    json!({
        "id": user.id,
        "phone_number": user.phone_number,
        "status": user.status,
        "created_at": user.created_at,
    })
}

fn grant_request(user_id: String, client_id: String) -> pb::GrantRequest {
    pb::GrantRequest { user_id, client_id }
}

fn grant_json(grant: pb::Grant) -> serde_json::Value {
    json!({
        "user_id": grant.user_id,
        "client_id": grant.client_id,
        "created_at": grant.created_at,
        "revoked_at": grant.revoked_at,
    })
}

fn with_token<T>(token: Option<&str>, body: T) -> Request<T> {
    let mut request = Request::new(body);
    if let Some(value) = token.and_then(|t| format!("Bearer {t}").parse().ok()) {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// Runs one command and returns the JSON to print.
pub async fn run(args: AdminArgs) -> anyhow::Result<serde_json::Value> {
    let cores = proto::cores::Cores::new(&args.core_url, args.core_tls_ca.as_deref(), |e| {
        e.connect_timeout(std::time::Duration::from_secs(3))
    })
    .map_err(|e| anyhow::anyhow!(e))?;
    let mut client_rpc = AdminServiceClient::new(cores.channel());
    let mut privacy = PrivacyServiceClient::new(cores.channel());
    let token = args.internal_token.filter(|t| !t.is_empty());
    let describe = |status: tonic::Status| {
        if status.code() == tonic::Code::Unavailable
            && std::error::Error::source(&status).is_some_and(proto::cores::is_connect_error)
        {
            let cause = std::error::Error::source(&status).map(proto::cores::describe);
            return anyhow::anyhow!(
                "cannot reach the core at {}: {}",
                args.core_url,
                cause.unwrap_or_else(|| status.message().to_string())
            );
        }
        let err = proto::RemoteError::from_status(&status);
        anyhow::anyhow!("{}: {}", err.code, err.detail)
    };
    Ok(match args.command {
        AdminCommand::Demo { yes, followers } => {
            let demo = client_rpc
                .create_demo(with_token(
                    token.as_deref(),
                    pb::CreateDemoRequest {
                        confirm: yes,
                        followers: Some(followers),
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            serde_json::json!({
                "business_account_id": demo.business_account_id,
                "business_name": demo.business_name,
                "owner_phone_number": demo.owner_phone_number,
                "owner_access_token": demo.owner_access_token,
                "app_id": demo.app_id,
                "app_token": demo.app_token,
                "followers": demo.followers.into_iter().map(|f| serde_json::json!({
                    "user_id": f.user_id,
                    "phone_number": f.phone_number,
                    "marketing_opt_in": f.marketing_opt_in,
                })).collect::<Vec<_>>(),
                "follower_count": demo.follower_count,
                "conversation_id": demo.conversation_id,
            })
        }
        AdminCommand::CreateUser { phone } => {
            let user = client_rpc
                .create_user(with_token(
                    token.as_deref(),
                    pb::CreateUserRequest {
                        phone_number: phone,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            user_json(user)
        }
        AdminCommand::SetUser { phone, status } => {
            let user = client_rpc
                .set_user_status(with_token(
                    token.as_deref(),
                    pb::SetUserStatusRequest {
                        phone_number: phone,
                        status,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            user_json(user)
        }
        AdminCommand::CreateGrant { user, client } => {
            let request = with_token(token.as_deref(), grant_request(user, client));
            grant_json(
                client_rpc
                    .create_grant(request)
                    .await
                    .map_err(describe)?
                    .into_inner(),
            )
        }
        AdminCommand::RevokeGrant { user, client } => {
            let request = with_token(token.as_deref(), grant_request(user, client));
            grant_json(
                client_rpc
                    .revoke_grant(request)
                    .await
                    .map_err(describe)?
                    .into_inner(),
            )
        }
        AdminCommand::SetBusiness { id, mode, status } => {
            if mode.is_none() && status.is_none() {
                anyhow::bail!("give --mode and/or --status");
            }
            let b = client_rpc
                .set_business(with_token(
                    token.as_deref(),
                    pb::SetBusinessRequest { id, mode, status },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            business_json(b)
        }
        AdminCommand::FindUser { phone } => {
            let found = client_rpc
                .find_user(with_token(
                    token.as_deref(),
                    pb::FindUserRequest {
                        phone_number: phone,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            let mut value = found.user.map(user_json).unwrap_or_default();
            value["business_account_id"] = json!(found.business_account_id);
            value["role"] = json!(found.role);
            value
        }
        AdminCommand::GetBusiness { id, phone } => {
            let detail = client_rpc
                .get_business(with_token(
                    token.as_deref(),
                    pb::GetBusinessRequest {
                        id,
                        phone_number: phone,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            let mut value = detail.business.map(business_json).unwrap_or_default();
            value["team"] = detail
                .team
                .into_iter()
                .map(|m| json!({ "user_id": m.user_id, "phone_number": m.phone_number, "role": m.role, "added_at": m.added_at }))
                .collect();
            value["apps"] = detail.apps.into_iter().map(app_json).collect();
            value["webhooks"] = detail.webhooks.into_iter().map(webhook_json).collect();
            value
        }
        AdminCommand::ListBusinesses {
            status,
            mode,
            limit,
        } => {
            let list = client_rpc
                .list_businesses(with_token(
                    token.as_deref(),
                    pb::ListBusinessesRequest {
                        status,
                        mode,
                        limit,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            list.businesses.into_iter().map(business_json).collect()
        }
        AdminCommand::UnlockPhone { phone } => {
            let result = client_rpc
                .unlock_phone(with_token(
                    token.as_deref(),
                    pb::UnlockPhoneRequest {
                        phone_number: phone,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            json!({ "phone_number": result.phone_number, "was_locked": result.was_locked })
        }
        AdminCommand::RevokeApp { id } => app_json(
            client_rpc
                .revoke_app(with_token(token.as_deref(), pb::RevokeAppRequest { id }))
                .await
                .map_err(describe)?
                .into_inner(),
        ),
        AdminCommand::RetryDeliveries { business, since } => {
            let result = client_rpc
                .retry_deliveries(with_token(
                    token.as_deref(),
                    pb::RetryDeliveriesRequest {
                        business_account_id: business,
                        since,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            json!({
                "endpoints": result
                    .endpoints
                    .into_iter()
                    .map(|e| json!({ "webhook_id": e.webhook_id, "requeued": e.requeued }))
                    .collect::<Vec<_>>(),
                "skipped_paused": result.skipped_paused,
            })
        }
        AdminCommand::SetFollow {
            business,
            phone,
            unfollow,
            marketing_opt_in,
        } => {
            let follow = client_rpc
                .set_follow(with_token(
                    token.as_deref(),
                    pb::SetFollowRequest {
                        business_id: business,
                        phone_number: phone,
                        unfollow,
                        marketing_opt_in: marketing_opt_in.map(|v| v == "true"),
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            json!({
                "business_account_id": follow.business_account_id,
                "user_id": follow.user_id,
                "status": follow.status,
                "marketing_opt_in": follow.marketing_opt_in,
                "followed_at": follow.followed_at,
                "updated_at": follow.updated_at,
            })
        }
        AdminCommand::Purge => {
            let result = client_rpc
                .purge(with_token(token.as_deref(), pb::PurgeRequest {}))
                .await
                .map_err(describe)?
                .into_inner();
            serde_json::Value::Object(
                result
                    .purged
                    .into_iter()
                    .map(|p| (p.data, json!(p.rows)))
                    .collect(),
            )
        }
        AdminCommand::Rekey => {
            let result = client_rpc
                .rekey(with_token(token.as_deref(), pb::RekeyRequest {}))
                .await
                .map_err(describe)?
                .into_inner();
            json!({ "resealed": result.resealed })
        }
        AdminCommand::EraseUser {
            phone,
            user_id,
            wait,
        } => {
            let mut erasure = privacy
                .erase_user(with_token(
                    token.as_deref(),
                    pb::EraseUserRequest {
                        user_id,
                        phone_number: phone,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            while wait && erasure.status != ErasureStatus::Completed.as_str() {
                eprintln!(
                    "erasure {}: {}, {} rows",
                    erasure.erasure_id, erasure.phase, erasure.rows
                );
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                erasure = privacy
                    .get_erasure(with_token(
                        token.as_deref(),
                        pb::GetErasureRequest {
                            id: erasure.erasure_id.clone(),
                        },
                    ))
                    .await
                    .map_err(describe)?
                    .into_inner();
            }
            erasure_json(erasure)
        }
        AdminCommand::Erasure { id } => erasure_json(
            privacy
                .get_erasure(with_token(token.as_deref(), pb::GetErasureRequest { id }))
                .await
                .map_err(describe)?
                .into_inner(),
        ),
        AdminCommand::ExportUser { phone, user_id } => {
            let mut stream = privacy
                .export_user(with_token(
                    token.as_deref(),
                    pb::ExportUserRequest {
                        user_id,
                        phone_number: phone,
                    },
                ))
                .await
                .map_err(describe)?
                .into_inner();
            let mut document = Vec::new();
            while let Some(chunk) = stream.message().await.map_err(describe)? {
                document.extend_from_slice(&chunk.data);
            }
            serde_json::from_slice(&document)
                .map_err(|e| anyhow::anyhow!("the export is not JSON: {e}"))?
        }
        AdminCommand::PauseWebhook { id } => webhook_json(
            client_rpc
                .pause_webhook(with_token(token.as_deref(), pb::PauseWebhookRequest { id }))
                .await
                .map_err(describe)?
                .into_inner(),
        ),
    })
}
