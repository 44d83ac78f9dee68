//! `bm.v1.GrantService`: a user revokes their own grant.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service;
use crate::caller::User;
use crate::clock::rfc3339;
use crate::entities::grants;
use crate::state::Core;

pub struct GrantGrpc {
    pub core: Arc<Core>,
}

pub fn grant_pb(g: grants::Model) -> pb::Grant {
    pb::Grant {
        user_id: g.user_id.to_string(),
        client_id: g.client_id.to_string(),
        created_at: rfc3339(g.created_at),
        revoked_at: g.revoked_at.map(rfc3339),
    }
}

#[tonic::async_trait]
impl pb::grant_service_server::GrantService for GrantGrpc {
    async fn revoke_my_grant(
        &self,
        request: Request<pb::RevokeMyGrantRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        service::revoke_mine(
            &self.core,
            &User::of(&self.core, &request).await?,
            &request.get_ref().client_id,
        )
        .await?;
        Ok(Response::new(pb::Empty {}))
    }
}
