//! `bm.v1.BusinessService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service::{self, AccountPatch, AccountView, NewAccount};
use crate::caller::{Console, Member, User};
use crate::clock::rfc3339;
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
        status: b.status.to_string(),
        mode: b.mode.to_string(),
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
        let view = service::get_mine(&self.core, &Console::of(&self.core, &request).await?).await?;
        Ok(Response::new(account_pb(view)))
    }

    async fn update_my_business(
        &self,
        request: Request<pb::UpdateMyBusinessRequest>,
    ) -> Result<Response<pb::BusinessAccount>, Status> {
        let caller = Member::of(&self.core, &request).await?;
        let body = request.into_inner();
        let patch = AccountPatch {
            business_name: body.business_name,
            category: patch_field(body.category),
            website_url: patch_field(body.website_url),
        };
        let view = service::update_mine(&self.core, &caller, patch).await?;
        Ok(Response::new(account_pb(view)))
    }

    async fn create_sandbox(
        &self,
        request: Request<pb::CreateSandboxRequest>,
    ) -> Result<Response<pb::BusinessAccount>, Status> {
        let caller = User::of(&self.core, &request).await?;
        let body = request.into_inner();
        let input = NewAccount {
            business_name: body.business_name,
            category: body.category,
            website_url: body.website_url,
        };
        let view = service::create_sandbox(&self.core, &caller, input).await?;
        Ok(Response::new(account_pb(view)))
    }
}

pub struct TeamGrpc {
    pub core: Arc<Core>,
}

pub fn member_pb(m: super::store::Member) -> pb::TeamMember {
    pb::TeamMember {
        user_id: m.user_id.to_string(),
        phone_number: m.phone_number,
        role: m.role.to_string(),
        added_at: rfc3339(m.added_at),
    }
}

#[tonic::async_trait]
impl pb::team_service_server::TeamService for TeamGrpc {
    async fn list_team(
        &self,
        request: Request<pb::ListTeamRequest>,
    ) -> Result<Response<pb::TeamList>, Status> {
        let members =
            super::team::list(&self.core, &Member::of(&self.core, &request).await?).await?;
        Ok(Response::new(pb::TeamList {
            members: members.into_iter().map(member_pb).collect(),
        }))
    }

    async fn upsert_team_member(
        &self,
        request: Request<pb::UpsertTeamMemberRequest>,
    ) -> Result<Response<pb::TeamMember>, Status> {
        let body = request.get_ref();
        let member = super::team::upsert(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &body.phone_number,
            &body.role,
        )
        .await?;
        Ok(Response::new(member_pb(member)))
    }

    async fn remove_team_member(
        &self,
        request: Request<pb::RemoveTeamMemberRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        super::team::remove(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().user_id,
        )
        .await?;
        Ok(Response::new(pb::Empty {}))
    }
}
