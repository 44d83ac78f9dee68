//! `bm.v1.AdminService`: guarded by INTERNAL_TOKEN (or loopback when none is configured).

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service;
use crate::apps::grpc::app_pb;
use crate::business::grpc::{account_pb, member_pb};
use crate::clock::rfc3339;
use crate::entities::users;
use crate::state::Core;
use crate::webhooks::grpc::webhook_pb;

/// The operator service; every call is guarded at the edge (`caller::internal_guard`).
pub struct AdminGrpc {
    pub core: Arc<Core>,
}

pub fn user_pb(user: users::Model) -> pb::User {
    pb::User {
        id: user.id.to_string(),
        phone_number: user.phone_number,
        status: user.status.to_string(),
        created_at: rfc3339(user.created_at),
    }
}

#[tonic::async_trait]
impl pb::admin_service_server::AdminService for AdminGrpc {
    async fn create_user(
        &self,
        request: Request<pb::CreateUserRequest>,
    ) -> Result<Response<pb::User>, Status> {
        let user = service::create_user(&self.core, &request.get_ref().phone_number).await?;
        Ok(Response::new(user_pb(user)))
    }

    async fn set_user_status(
        &self,
        request: Request<pb::SetUserStatusRequest>,
    ) -> Result<Response<pb::User>, Status> {
        let body = request.get_ref();
        let user = service::set_user_status(&self.core, &body.phone_number, &body.status).await?;
        Ok(Response::new(user_pb(user)))
    }

    async fn set_business(
        &self,
        request: Request<pb::SetBusinessRequest>,
    ) -> Result<Response<pb::BusinessAccount>, Status> {
        let body = request.get_ref();
        let view = service::set_business(
            &self.core,
            &body.id,
            body.mode.as_deref(),
            body.status.as_deref(),
        )
        .await?;
        Ok(Response::new(account_pb(view)))
    }

    async fn create_grant(
        &self,
        request: Request<pb::GrantRequest>,
    ) -> Result<Response<pb::Grant>, Status> {
        let body = request.get_ref();
        let grant =
            crate::grants::service::create(&self.core, &body.user_id, &body.client_id).await?;
        Ok(Response::new(crate::grants::grpc::grant_pb(grant)))
    }

    async fn create_demo(
        &self,
        request: Request<pb::CreateDemoRequest>,
    ) -> Result<Response<pb::Demo>, Status> {
        let body = request.get_ref();
        let demo =
            super::service::create_demo(&self.core, body.confirm, body.followers.unwrap_or(3))
                .await?;
        Ok(Response::new(pb::Demo {
            business_account_id: demo.business.business.id.to_string(),
            business_name: demo.business.business.business_name,
            owner_phone_number: demo.business.phone_number,
            owner_access_token: demo.owner_access_token,
            app_id: demo.app_id.to_string(),
            app_token: demo.app_token,
            followers: demo
                .followers
                .into_iter()
                .map(|(id, phone_number, opt_in)| pb::DemoPerson {
                    user_id: id.to_string(),
                    phone_number,
                    marketing_opt_in: opt_in,
                })
                .collect(),
            follower_count: demo.follower_count,
            conversation_id: demo.conversation_id.to_string(),
        }))
    }

    async fn revoke_grant(
        &self,
        request: Request<pb::GrantRequest>,
    ) -> Result<Response<pb::Grant>, Status> {
        let body = request.get_ref();
        let grant =
            crate::grants::service::revoke_as_operator(&self.core, &body.user_id, &body.client_id)
                .await?;
        Ok(Response::new(crate::grants::grpc::grant_pb(grant)))
    }

    async fn find_user(
        &self,
        request: Request<pb::FindUserRequest>,
    ) -> Result<Response<pb::FoundUser>, Status> {
        let found = service::find_user(&self.core, &request.get_ref().phone_number).await?;
        let (business_account_id, role) = match found.membership {
            Some((id, role)) => (Some(id.to_string()), Some(role.to_string())),
            None => (None, None),
        };
        Ok(Response::new(pb::FoundUser {
            user: Some(user_pb(found.user)),
            business_account_id,
            role,
        }))
    }

    async fn get_business(
        &self,
        request: Request<pb::GetBusinessRequest>,
    ) -> Result<Response<pb::BusinessDetail>, Status> {
        let body = request.get_ref();
        let detail =
            service::get_business(&self.core, body.id.as_deref(), body.phone_number.as_deref())
                .await?;
        Ok(Response::new(pb::BusinessDetail {
            business: Some(account_pb(detail.business)),
            team: detail.team.into_iter().map(member_pb).collect(),
            apps: detail.apps.into_iter().map(app_pb).collect(),
            webhooks: detail
                .webhooks
                .into_iter()
                .map(|w| webhook_pb(w, None, self.core.clock.now()))
                .collect(),
        }))
    }

    async fn list_businesses(
        &self,
        request: Request<pb::ListBusinessesRequest>,
    ) -> Result<Response<pb::BusinessList>, Status> {
        let body = request.get_ref();
        let businesses = service::list_businesses(
            &self.core,
            body.status.as_deref(),
            body.mode.as_deref(),
            body.limit,
        )
        .await?;
        Ok(Response::new(pb::BusinessList {
            businesses: businesses.into_iter().map(account_pb).collect(),
        }))
    }

    async fn unlock_phone(
        &self,
        request: Request<pb::UnlockPhoneRequest>,
    ) -> Result<Response<pb::UnlockPhoneResult>, Status> {
        let phone = request.get_ref().phone_number.clone();
        let was_locked = service::unlock_phone(&self.core, &phone).await?;
        Ok(Response::new(pb::UnlockPhoneResult {
            phone_number: phone,
            was_locked,
        }))
    }

    async fn revoke_app(
        &self,
        request: Request<pb::RevokeAppRequest>,
    ) -> Result<Response<pb::App>, Status> {
        let app = crate::apps::service::revoke(&self.core, &request.get_ref().id).await?;
        Ok(Response::new(app_pb(app)))
    }

    async fn pause_webhook(
        &self,
        request: Request<pb::PauseWebhookRequest>,
    ) -> Result<Response<pb::Webhook>, Status> {
        let endpoint = crate::webhooks::endpoints::pause(&self.core, &request.get_ref().id).await?;
        Ok(Response::new(webhook_pb(
            endpoint,
            None,
            self.core.clock.now(),
        )))
    }

    async fn rekey(
        &self,
        _request: Request<pb::RekeyRequest>,
    ) -> Result<Response<pb::RekeyResult>, Status> {
        let resealed = crate::webhooks::secret::rekey(&self.core.db, &self.core.keys).await?;
        tracing::info!(
            resealed,
            "webhook secrets re-sealed with the current MASTER_KEY"
        );
        Ok(Response::new(pb::RekeyResult { resealed }))
    }

    async fn purge(
        &self,
        _request: Request<pb::PurgeRequest>,
    ) -> Result<Response<pb::PurgeResult>, Status> {
        let purged =
            crate::retention::purge(&self.core, &tokio_util::sync::CancellationToken::new())
                .await
                .map_err(crate::error::AppError::from)?;
        tracing::info!(detail = ?purged.0, "retention pass run by an operator");
        Ok(Response::new(pb::PurgeResult {
            purged: purged
                .0
                .into_iter()
                .map(|(data, rows)| pb::PurgedRows {
                    data: data.to_string(),
                    rows,
                })
                .collect(),
        }))
    }

    async fn retry_deliveries(
        &self,
        request: Request<pb::RetryDeliveriesRequest>,
    ) -> Result<Response<pb::RetryDeliveriesResult>, Status> {
        let body = request.get_ref();
        let recovery = crate::webhooks::deliveries::recover_business(
            &self.core,
            &body.business_account_id,
            Some(body.since.as_str()),
        )
        .await?;
        Ok(Response::new(pb::RetryDeliveriesResult {
            endpoints: recovery
                .requeued
                .into_iter()
                .map(|(id, n)| pb::EndpointRequeued {
                    webhook_id: id.to_string(),
                    requeued: n as i64,
                })
                .collect(),
            skipped_paused: recovery
                .skipped_paused
                .into_iter()
                .map(|id| id.to_string())
                .collect(),
        }))
    }

    async fn set_follow(
        &self,
        request: Request<pb::SetFollowRequest>,
    ) -> Result<Response<pb::Follow>, Status> {
        use crate::consent::service::{Withdrawal, withdraw};
        let body = request.get_ref();
        let withdrawal = Withdrawal::asked(body.unfollow, body.marketing_opt_in)?;
        let follow = withdraw(
            &self.core,
            &body.business_id,
            &body.phone_number,
            withdrawal,
        )
        .await?;
        Ok(Response::new(crate::consent::grpc::follow_pb(follow)))
    }
}
