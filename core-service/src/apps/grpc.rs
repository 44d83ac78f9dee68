//! `bm.v1.AppService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::service::{self, AppView};
use crate::caller::Owner;
use crate::clock::rfc3339;
use crate::state::Core;

pub struct AppGrpc {
    pub core: Arc<Core>,
}

pub fn app_pb(view: AppView) -> pb::App {
    pb::App {
        id: view.app.id.to_string(),
        name: view.app.name,
        scopes: view
            .scopes
            .names()
            .into_iter()
            .map(str::to_string)
            .collect(),
        created_at: rfc3339(view.app.created_at),
        updated_at: rfc3339(view.app.updated_at),
    }
}

fn with_token((view, token): (AppView, String)) -> pb::AppWithToken {
    pb::AppWithToken {
        app: Some(app_pb(view)),
        token,
    }
}

#[tonic::async_trait]
impl pb::app_service_server::AppService for AppGrpc {
    async fn list_apps(
        &self,
        request: Request<pb::ListAppsRequest>,
    ) -> Result<Response<pb::AppList>, Status> {
        let apps = service::list(&self.core, &Owner::of(&self.core, &request).await?).await?;
        Ok(Response::new(pb::AppList {
            apps: apps.into_iter().map(app_pb).collect(),
        }))
    }

    async fn create_app(
        &self,
        request: Request<pb::CreateAppRequest>,
    ) -> Result<Response<pb::AppWithToken>, Status> {
        let body = request.get_ref();
        let created = service::create(
            &self.core,
            &Owner::of(&self.core, &request).await?,
            &body.name,
            &body.scopes,
        )
        .await?;
        Ok(Response::new(with_token(created)))
    }

    async fn rotate_app(
        &self,
        request: Request<pb::AppRequest>,
    ) -> Result<Response<pb::AppWithToken>, Status> {
        let rotated = service::rotate(
            &self.core,
            &Owner::of(&self.core, &request).await?,
            &request.get_ref().app_id,
        )
        .await?;
        Ok(Response::new(with_token(rotated)))
    }

    async fn delete_app(
        &self,
        request: Request<pb::AppRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        service::delete(
            &self.core,
            &Owner::of(&self.core, &request).await?,
            &request.get_ref().app_id,
        )
        .await?;
        Ok(Response::new(pb::Empty {}))
    }
}
