//! `bm.v1.ConsentService` (a user's follows) and `bm.v1.AudienceService` (a business's view of
//! them): proto <-> domain, one call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::{followers, service, wording};
use crate::caller::{Manager, Member, User};
use crate::clock::rfc3339;
use crate::entities::{consent_texts, follow_changes, follows};
use crate::state::Core;

pub struct ConsentGrpc {
    pub core: Arc<Core>,
}

pub fn follow_pb(f: follows::Model) -> pb::Follow {
    pb::Follow {
        business_account_id: f.business_id.to_string(),
        user_id: f.user_id.to_string(),
        status: f.status.to_string(),
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
        let follow = service::get(&self.core, &User::of(&self.core, &request).await?, id).await?;
        Ok(Response::new(follow_pb(follow)))
    }

    async fn put_follow(
        &self,
        request: Request<pb::PutFollowRequest>,
    ) -> Result<Response<pb::Follow>, Status> {
        let body = request.get_ref();
        let follow = service::put(
            &self.core,
            &User::of(&self.core, &request).await?,
            &body.business_account_id,
            body.marketing_opt_in,
            body.consent_text_version,
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
            &User::of(&self.core, &request).await?,
            &body.business_account_id,
            body.marketing_opt_in,
            body.consent_text_version,
        )
        .await?;
        Ok(Response::new(follow_pb(follow)))
    }

    async fn delete_follow(
        &self,
        request: Request<pb::FollowRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        let id = &request.get_ref().business_account_id;
        service::delete(&self.core, &User::of(&self.core, &request).await?, id).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn get_consent_text(
        &self,
        request: Request<pb::FollowRequest>,
    ) -> Result<Response<pb::ConsentTextAnswer>, Status> {
        let id = &request.get_ref().business_account_id;
        let text =
            wording::for_user(&self.core, &User::of(&self.core, &request).await?, id).await?;
        Ok(Response::new(pb::ConsentTextAnswer {
            consent_text: text.map(consent_text_pb),
        }))
    }
}

fn consent_text_pb(t: consent_texts::Model) -> pb::ConsentText {
    pb::ConsentText {
        version: t.version,
        text: t.text,
        created_at: rfc3339(t.created_at),
    }
}

pub struct AudienceGrpc {
    pub core: Arc<Core>,
}

fn follower_pb(f: follows::Model) -> pb::Follower {
    pb::Follower {
        user_id: f.user_id.to_string(),
        status: f.status.to_string(),
        marketing_opt_in: f.marketing_opt_in,
        followed_at: f.followed_at.map(rfc3339),
        updated_at: f.updated_at.map(rfc3339),
    }
}

fn change_pb(c: follow_changes::Model) -> pb::FollowerChange {
    pb::FollowerChange {
        at: rfc3339(c.at),
        status: c.status.to_string(),
        marketing_opt_in: c.marketing_opt_in,
        source: c.source.to_string(),
    }
}

#[tonic::async_trait]
impl pb::audience_service_server::AudienceService for AudienceGrpc {
    async fn list_followers(
        &self,
        request: Request<pb::ListFollowersRequest>,
    ) -> Result<Response<pb::FollowerList>, Status> {
        let body = request.get_ref();
        let query = followers::FollowerQuery {
            limit: body.limit,
            starting_after: body.starting_after.clone(),
            status: body.status.clone(),
            marketing_opt_in: body.marketing_opt_in.clone(),
        };
        let (page, has_more) =
            followers::list(&self.core, &Member::of(&self.core, &request).await?, query).await?;
        Ok(Response::new(pb::FollowerList {
            followers: page.into_iter().map(follower_pb).collect(),
            has_more,
        }))
    }

    async fn lookup_followers(
        &self,
        request: Request<pb::LookupFollowersRequest>,
    ) -> Result<Response<pb::LookupResults>, Status> {
        let results = followers::lookup(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().phone_numbers,
        )
        .await?;
        Ok(Response::new(pb::LookupResults {
            results: results
                .into_iter()
                .map(|r| pb::LookupResult {
                    phone_number: r.phone_number,
                    follows: r.follows,
                    marketing_opt_in: r.marketing_opt_in,
                    user_id: r.user_id.map(|id| id.to_string()),
                })
                .collect(),
        }))
    }

    async fn follower_history(
        &self,
        request: Request<pb::FollowerHistoryRequest>,
    ) -> Result<Response<pb::FollowerChanges>, Status> {
        let changes = followers::history(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().user_id,
        )
        .await?;
        Ok(Response::new(pb::FollowerChanges {
            changes: changes.into_iter().map(change_pb).collect(),
        }))
    }

    async fn put_consent_text(
        &self,
        request: Request<pb::PutConsentTextRequest>,
    ) -> Result<Response<pb::ConsentText>, Status> {
        let manager = Manager::of(&self.core, &request).await?;
        let text = wording::set(&self.core, &manager, &request.get_ref().text).await?;
        Ok(Response::new(consent_text_pb(text)))
    }

    async fn get_consent_text(
        &self,
        request: Request<pb::Empty>,
    ) -> Result<Response<pb::ConsentTextAnswer>, Status> {
        let text = wording::current(&self.core, &Member::of(&self.core, &request).await?).await?;
        Ok(Response::new(pb::ConsentTextAnswer {
            consent_text: text.map(consent_text_pb),
        }))
    }

    async fn follower_evidence(
        &self,
        request: Request<pb::FollowerHistoryRequest>,
    ) -> Result<Response<pb::FollowerEvidenceAnswer>, Status> {
        let evidence = wording::evidence(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().user_id,
        )
        .await?;
        Ok(Response::new(pb::FollowerEvidenceAnswer {
            user_id: evidence.user_id.to_string(),
            changes: evidence
                .changes
                .into_iter()
                .map(|e| pb::EvidenceChange {
                    at: rfc3339(e.change.at),
                    status: e.change.status.to_string(),
                    marketing_opt_in: e.change.marketing_opt_in,
                    source: e.change.source.to_string(),
                    opt_in: e.opt_in,
                    consent_text: e.consent_text.map(consent_text_pb),
                    user_named_version: e.change.user_named_version,
                })
                .collect(),
            marketing_messages: evidence
                .marketing_messages
                .into_iter()
                .map(|m| pb::EvidenceMessage {
                    id: m.id.to_string(),
                    created_at: rfc3339(m.created_at),
                    status: m.status.to_string(),
                    completed_at: m.completed_at.map(rfc3339),
                    failure_reason: m.failure_reason.map(|r| r.to_string()),
                    broadcast_id: m.broadcast_id.map(|b| b.to_string()),
                })
                .collect(),
        }))
    }
}
