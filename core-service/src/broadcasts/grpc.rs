//! `bm.v1.BroadcastService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service::{self, BroadcastFields, ListQuery};
use crate::caller::{AppToken, Member};
use crate::clock::rfc3339;
use crate::entities::broadcasts;
use crate::state::Core;

pub struct BroadcastGrpc {
    pub core: Arc<Core>,
}

fn fields(input: pb::BroadcastInput) -> BroadcastFields {
    BroadcastFields {
        name: input.name,
        category: input.category,
        body: input.body,
        message_content_json: input.message_content_json,
        template_json: input.template_json,
        send_at: input.send_at,
        max_per_second: input.max_per_second,
        idempotency_key: input.idempotency_key,
    }
}

pub fn broadcast_pb(b: broadcasts::Model) -> pb::Broadcast {
    pb::Broadcast {
        counts: Some(pb::BroadcastCounts {
            audience: b.audience,
            accepted: b.accepted,
            skipped: b.skipped,
            not_created: b.not_created,
            delivered: b.delivered,
            failed: b.failed,
        }),
        id: b.id.to_string(),
        name: b.name,
        category: b.category.to_string(),
        status: b.status.to_string(),
        send_at: b.send_at.map(rfc3339),
        max_per_second: b.max_per_second,
        created_at: rfc3339(b.created_at),
        completed_at: b.completed_at.map(rfc3339),
        body: b.body,
        message_content_json: b.message_content,
        template_json: b.template.map(|stored| {
            // What the broadcast names: the template and version it renders, its variables
            // and locale.
            let mut value: serde_json::Value = serde_json::from_str(&stored).unwrap_or_default();
            if let Some(map) = value.as_object_mut() {
                map.retain(|_, v| !v.is_null());
            }
            value.to_string()
        }),
    }
}

fn reply((broadcast, replay): (broadcasts::Model, bool)) -> Response<pb::BroadcastReply> {
    Response::new(pb::BroadcastReply {
        broadcast: Some(broadcast_pb(broadcast)),
        replay,
    })
}

#[tonic::async_trait]
impl pb::broadcast_service_server::BroadcastService for BroadcastGrpc {
    async fn create_broadcast(
        &self,
        request: Request<pb::CreateBroadcastRequest>,
    ) -> Result<Response<pb::BroadcastReply>, Status> {
        let caller = Member::of(&self.core, &request).await?;
        let input = request.into_inner().broadcast.unwrap_or_default();
        let created = service::create_console(&self.core, &caller, fields(input)).await?;
        Ok(reply(created))
    }

    async fn create_app_broadcast(
        &self,
        request: Request<pb::CreateAppBroadcastRequest>,
    ) -> Result<Response<pb::BroadcastReply>, Status> {
        let caller = AppToken::of(&request)?;
        let body = request.into_inner();
        let input = body.broadcast.unwrap_or_default();
        let created = service::create_app(
            &self.core,
            &caller,
            &body.business_account_id,
            fields(input),
        )
        .await?;
        Ok(reply(created))
    }

    async fn list_broadcasts(
        &self,
        request: Request<pb::ListBroadcastsRequest>,
    ) -> Result<Response<pb::BroadcastList>, Status> {
        let body = request.get_ref();
        let query = ListQuery {
            limit: body.limit,
            starting_after: body.starting_after.clone(),
            status: body.status.clone(),
        };
        let (list, has_more) =
            service::list(&self.core, &Member::of(&self.core, &request).await?, query).await?;
        Ok(Response::new(pb::BroadcastList {
            broadcasts: list.into_iter().map(broadcast_pb).collect(),
            has_more,
        }))
    }

    async fn get_broadcast(
        &self,
        request: Request<pb::BroadcastId>,
    ) -> Result<Response<pb::Broadcast>, Status> {
        let broadcast = service::get(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(broadcast_pb(broadcast)))
    }

    async fn get_app_broadcast(
        &self,
        request: Request<pb::AppBroadcastId>,
    ) -> Result<Response<pb::Broadcast>, Status> {
        let body = request.get_ref();
        let broadcast = service::get_app(
            &self.core,
            &AppToken::of(&request)?,
            &body.business_account_id,
            &body.id,
        )
        .await?;
        Ok(Response::new(broadcast_pb(broadcast)))
    }

    async fn cancel_broadcast(
        &self,
        request: Request<pb::BroadcastId>,
    ) -> Result<Response<pb::Broadcast>, Status> {
        let broadcast = service::cancel_console(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(broadcast_pb(broadcast)))
    }

    async fn cancel_app_broadcast(
        &self,
        request: Request<pb::AppBroadcastId>,
    ) -> Result<Response<pb::Broadcast>, Status> {
        let body = request.get_ref();
        let broadcast = service::cancel_app(
            &self.core,
            &AppToken::of(&request)?,
            &body.business_account_id,
            &body.id,
        )
        .await?;
        Ok(Response::new(broadcast_pb(broadcast)))
    }
}
