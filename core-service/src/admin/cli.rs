//! `core-service admin ...`: operator commands that call the AdminService over gRPC and print
//! JSON.

use clap::{Args, Subcommand};
use proto::v1 as pb;
use proto::v1::admin_service_client::AdminServiceClient;
use serde_json::json;
use tonic::Request;

#[derive(Debug, Clone, Args)]
pub struct AdminArgs {
    /// The core's gRPC address.
    #[arg(long, env = "CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// The core's INTERNAL_TOKEN (not needed against a core on loopback that has none).
    #[arg(long, env = "INTERNAL_TOKEN", hide_env_values = true)]
    pub internal_token: Option<String>,

    #[command(subcommand)]
    pub command: AdminCommand,
}

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
    /// Creates a live business with its owner, three followers (one opted in to marketing) and
    /// an app with every scope; prints their ids and phones, a fresh owner access token and the
    /// app token. Refused on PostgreSQL unless --yes.
    Demo {
        /// Create demo data even in a PostgreSQL database.
        #[arg(long)]
        yes: bool,
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
    let mut client_rpc = AdminServiceClient::connect(args.core_url.clone())
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach the core at {}: {e}", args.core_url))?;
    let token = args.internal_token.filter(|t| !t.is_empty());
    let describe = |status: tonic::Status| {
        let err = proto::RemoteError::from_status(&status);
        anyhow::anyhow!("{}: {}", err.code, err.detail)
    };
    Ok(match args.command {
        AdminCommand::Demo { yes } => {
            let demo = client_rpc
                .create_demo(with_token(
                    token.as_deref(),
                    pb::CreateDemoRequest { confirm: yes },
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
    })
}
