//! `bm.v1.IdentityService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service;
use crate::caller::{authorization, client_info};
use crate::state::Core;

pub struct IdentityGrpc {
    pub core: Arc<Core>,
}

fn pair(tokens: service::TokenPair) -> pb::TokenPair {
    pb::TokenPair {
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        token_type: "Bearer".to_string(),
        expires_in: tokens.expires_in,
    }
}

#[tonic::async_trait]
impl pb::identity_service_server::IdentityService for IdentityGrpc {
    async fn request_otp(
        &self,
        request: Request<pb::RequestOtpRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        let client = client_info(&self.core, &request);
        service::request_otp(&self.core, &client, &request.get_ref().phone_number).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn verify_otp(
        &self,
        request: Request<pb::VerifyOtpRequest>,
    ) -> Result<Response<pb::TokenPair>, Status> {
        let client = client_info(&self.core, &request);
        let body = request.get_ref();
        let tokens =
            service::verify_otp(&self.core, &client, &body.phone_number, &body.code).await?;
        Ok(Response::new(pair(tokens)))
    }

    async fn refresh(
        &self,
        request: Request<pb::RefreshRequest>,
    ) -> Result<Response<pb::TokenPair>, Status> {
        let tokens = service::refresh(&self.core, &request.get_ref().refresh_token).await?;
        Ok(Response::new(pair(tokens)))
    }

    async fn who_am_i(&self, request: Request<pb::Empty>) -> Result<Response<pb::Me>, Status> {
        let me = crate::caller::who_am_i(&self.core, authorization(&request)).await?;
        Ok(Response::new(me_pb(me)))
    }

    async fn update_me(
        &self,
        request: Request<pb::UpdateMeRequest>,
    ) -> Result<Response<pb::Me>, Status> {
        let body = request.get_ref();
        let change = service::MeChange {
            display_name: body.display_name.clone().map(|p| p.value),
            read_receipts: body.read_receipts,
            language: body.language.clone().map(|p| p.value),
            webhook_alerts: body.webhook_alerts,
        };
        let user = crate::caller::User::of(&self.core, &request).await?;
        service::update_me(&self.core, &user, change).await?;
        let me = crate::caller::who_am_i(&self.core, authorization(&request)).await?;
        Ok(Response::new(me_pb(me)))
    }

    async fn logout(
        &self,
        request: Request<pb::LogoutRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        service::logout(&self.core, &request.get_ref().refresh_token).await?;
        Ok(Response::new(pb::Empty {}))
    }
}

fn me_pb(me: crate::caller::Me) -> pb::Me {
    let (business_account_id, role) = match me.business {
        Some((id, role)) => (Some(id.to_string()), Some(role.to_string())),
        None => (None, None),
    };
    pb::Me {
        user_id: me.user.id.to_string(),
        phone_number: me.user.phone_number,
        status: me.user.status.to_string(),
        business_account_id,
        role,
        display_name: me.user.display_name,
        read_receipts: me.user.read_receipts,
        language: me.user.language,
        webhook_alerts: me.user.webhook_alerts,
    }
}
