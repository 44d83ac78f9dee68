//! `bm.v1.QrService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service;
use crate::caller::{User, client_info};
use crate::clock::rfc3339;
use crate::state::Core;

pub struct QrGrpc {
    pub core: Arc<Core>,
}

#[tonic::async_trait]
impl pb::qr_service_server::QrService for QrGrpc {
    async fn create_session(
        &self,
        request: Request<pb::CreateQrSessionRequest>,
    ) -> Result<Response<pb::QrSession>, Status> {
        let created = service::create(&self.core, &client_info(&self.core, &request)).await?;
        Ok(Response::new(pb::QrSession {
            id: created.id.to_string(),
            qr_payload: format!("service://business-login/{}", created.id),
            exchange_secret: created.secret,
            expires_at: rfc3339(created.expires_at),
        }))
    }

    async fn preview(
        &self,
        request: Request<pb::QrSessionRequest>,
    ) -> Result<Response<pb::QrPreview>, Status> {
        let session = service::preview(
            &self.core,
            &client_info(&self.core, &request),
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(pb::QrPreview {
            client_name: session.client_name,
            expires_at: chrono::DateTime::from_timestamp_millis(session.expires_at_ms)
                .map(rfc3339)
                .unwrap_or_default(),
            created_at: rfc3339(session.created_at),
            origin_hint: session.origin_hint,
        }))
    }

    async fn status(
        &self,
        request: Request<pb::QrSessionRequest>,
    ) -> Result<Response<pb::QrStatus>, Status> {
        let body = request.get_ref();
        let status = service::status(
            &self.core,
            &client_info(&self.core, &request),
            &body.id,
            body.secret.as_deref(),
        )
        .await?;
        Ok(Response::new(pb::QrStatus {
            status: status.to_string(),
        }))
    }

    async fn approve(
        &self,
        request: Request<pb::QrSessionRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        service::approve(
            &self.core,
            &client_info(&self.core, &request),
            &User::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn exchange(
        &self,
        request: Request<pb::QrSessionRequest>,
    ) -> Result<Response<pb::QrToken>, Status> {
        let body = request.get_ref();
        let token = service::exchange(
            &self.core,
            &client_info(&self.core, &request),
            &body.id,
            body.secret.as_deref(),
        )
        .await?;
        Ok(Response::new(pb::QrToken { token }))
    }
}
