//! `bm.v1.BusinessService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service::{self, AccountPatch, AccountView, NewAccount};
use crate::clock::rfc3339;
use crate::grpc_util::authorization;
use crate::state::Core;

pub struct BusinessGrpc {
    pub core: Arc<Core>,
}

/// The wire form of a business account.
pub fn account_pb(view: AccountView) -> pb::BusinessAccount {
    let b = view.business;
    pb::BusinessAccount {
        user_id: b.id.to_string(),
        business_name: b.business_name,
        category: b.category,
        website_url: b.website_url,
        status: b.status,
        mode: b.mode,
        phone_number: view.phone_number,
        created_at: rfc3339(b.created_at),
    }
}

fn patch_field(patch: Option<pb::StringPatch>) -> Option<Option<String>> {
    patch.map(|p| p.value)
}

#[tonic::async_trait]
impl pb::business_service_server::BusinessService for BusinessGrpc {
    async fn get_my_business(
        &self,
        request: Request<pb::GetMyBusinessRequest>,
    ) -> Result<Response<pb::BusinessAccount>, Status> {
        let view = service::get_mine(&self.core, authorization(&request)).await?;
        Ok(Response::new(account_pb(view)))
    }

    async fn update_my_business(
        &self,
        request: Request<pb::UpdateMyBusinessRequest>,
    ) -> Result<Response<pb::BusinessAccount>, Status> {
        let auth = authorization(&request).map(str::to_string);
        let body = request.into_inner();
        let patch = AccountPatch {
            business_name: body.business_name,
            category: patch_field(body.category),
            website_url: patch_field(body.website_url),
        };
        let view = service::update_mine(&self.core, auth.as_deref(), patch).await?;
        Ok(Response::new(account_pb(view)))
    }

    async fn create_sandbox(
        &self,
        request: Request<pb::CreateSandboxRequest>,
    ) -> Result<Response<pb::BusinessAccount>, Status> {
        let auth = authorization(&request).map(str::to_string);
        let body = request.into_inner();
        let input = NewAccount {
            business_name: body.business_name,
            category: body.category,
            website_url: body.website_url,
        };
        let view = service::create_sandbox(&self.core, auth.as_deref(), input).await?;
        Ok(Response::new(account_pb(view)))
    }
}
