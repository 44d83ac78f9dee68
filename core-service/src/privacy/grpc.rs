//! `bm.v1.PrivacyService`: guarded by INTERNAL_TOKEN (or loopback when none is configured).

use std::pin::Pin;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use proto::v1 as pb;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::job::Phase;
use super::service::{self, Progress, Who};
use crate::clock::rfc3339;
use crate::state::Core;

pub struct PrivacyGrpc {
    pub core: Arc<Core>,
}

pub fn erasure_pb(progress: Progress) -> pb::Erasure {
    let e = progress.erasure;
    pb::Erasure {
        erasure_id: e.id.to_string(),
        user_id: e.user_id.to_string(),
        status: e.status.to_string(),
        phase: Phase::of(e.phase).name().to_string(),
        rows: u64::try_from(e.rows_changed).unwrap_or(0),
        erased_at: rfc3339(e.erased_at),
        completed_at: e.completed_at.map(rfc3339),
        businesses: u32::try_from(progress.businesses).unwrap_or(u32::MAX),
    }
}

type ExportStream = Pin<Box<dyn Stream<Item = Result<pb::ExportChunk, Status>> + Send>>;

#[tonic::async_trait]
impl pb::privacy_service_server::PrivacyService for PrivacyGrpc {
    async fn erase_user(
        &self,
        request: Request<pb::EraseUserRequest>,
    ) -> Result<Response<pb::Erasure>, Status> {
        let body = request.get_ref();
        let who = Who {
            user_id: body.user_id.as_deref(),
            phone_number: body.phone_number.as_deref(),
        };
        let progress = service::erase(&self.core, &who).await?;
        Ok(Response::new(erasure_pb(progress)))
    }

    async fn get_erasure(
        &self,
        request: Request<pb::GetErasureRequest>,
    ) -> Result<Response<pb::Erasure>, Status> {
        let progress = service::get(&self.core, &request.get_ref().id).await?;
        Ok(Response::new(erasure_pb(progress)))
    }

    type ExportUserStream = ExportStream;

    async fn export_user(
        &self,
        request: Request<pb::ExportUserRequest>,
    ) -> Result<Response<Self::ExportUserStream>, Status> {
        let body = request.get_ref();
        let who = Who {
            user_id: body.user_id.as_deref(),
            phone_number: body.phone_number.as_deref(),
        };
        // Refusals before the stream starts, so they answer as a status.
        let user = service::find(&self.core, &who).await?;
        let (pieces, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(4);
        let (failed, failure) = tokio::sync::oneshot::channel::<Status>();
        let core = self.core.clone();
        tokio::spawn(async move {
            if let Err(err) = super::export::write(&core, user, pieces).await {
                tracing::warn!(error = %err, "an export failed");
                let _ = failed.send(Status::from(err));
            }
        });
        // The pieces in order; a failure on the way ends the stream with its status (the
        // receiver never takes a cut document for a whole one).
        let chunks = ReceiverStream::new(rx).map(|data| Ok(pb::ExportChunk { data }));
        let tail =
            futures::stream::once(failure).filter_map(|failed| async move { failed.ok().map(Err) });
        Ok(Response::new(Box::pin(chunks.chain(tail))))
    }
}
