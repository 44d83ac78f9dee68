//! `bm.v1.ConsentService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service;
use crate::caller::authorization;
use crate::clock::rfc3339;
use crate::entities::follows;
use crate::state::Core;

pub struct ConsentGrpc {
    pub core: Arc<Core>,
}

fn follow_pb(f: follows::Model) -> pb::Follow {
    pb::Follow {
        business_account_id: f.business_id.to_string(),
        user_id: f.user_id.to_string(),
        status: f.status,
        marketing_opt_in: f.marketing_opt_in,
        followed_at: f.followed_at.map(rfc3339),
        updated_at: f.updated_at.map(rfc3339),
    }
}

#[tonic::async_trait]
impl pb::consent_service_server::ConsentService for ConsentGrpc {
    async fn get_follow(
        &self,
        request: Request<pb::FollowRequest>,
    ) -> Result<Response<pb::Follow>, Status> {
        let id = &request.get_ref().business_account_id;
        let follow = service::get(&self.core, authorization(&request), id).await?;
        Ok(Response::new(follow_pb(follow)))
    }

    async fn put_follow(
        &self,
        request: Request<pb::PutFollowRequest>,
    ) -> Result<Response<pb::Follow>, Status> {
        let body = request.get_ref();
        let follow = service::put(
            &self.core,
            authorization(&request),
            &body.business_account_id,
            body.marketing_opt_in,
        )
        .await?;
        Ok(Response::new(follow_pb(follow)))
    }

    async fn patch_follow(
        &self,
        request: Request<pb::PatchFollowRequest>,
    ) -> Result<Response<pb::Follow>, Status> {
        let body = request.get_ref();
        let follow = service::patch(
            &self.core,
            authorization(&request),
            &body.business_account_id,
            body.marketing_opt_in,
        )
        .await?;
        Ok(Response::new(follow_pb(follow)))
    }

    async fn delete_follow(
        &self,
        request: Request<pb::FollowRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        let id = &request.get_ref().business_account_id;
        service::delete(&self.core, authorization(&request), id).await?;
        Ok(Response::new(pb::Empty {}))
    }
}
