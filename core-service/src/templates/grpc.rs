//! `bm.v1.TemplateService`: proto <-> domain, one service call per RPC.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::definition::{Rendered, Variant, VariantInput};
use super::service::{self, Content, TemplateView};
use crate::caller::{Manager, Member};
use crate::clock::rfc3339;
use crate::state::Core;

pub struct TemplateGrpc {
    pub core: Arc<Core>,
}

pub fn template_pb(view: TemplateView) -> pb::Template {
    let TemplateView {
        template,
        version,
        definition,
    } = view;
    pb::Template {
        id: template.id.to_string(),
        name: template.name,
        version: version.version,
        category: template.category.to_string(),
        status: template.status.to_string(),
        variables: definition
            .variables
            .iter()
            .map(|(name, max)| {
                (
                    name.clone(),
                    pb::TemplateVariable {
                        max_length: Some(*max),
                    },
                )
            })
            .collect(),
        variants: definition
            .variants
            .into_iter()
            .map(|(locale, variant)| {
                let variant = match variant {
                    Variant::Body(body) => pb::TemplateVariant {
                        body: Some(body),
                        message_content_json: None,
                    },
                    Variant::Content(map) => pb::TemplateVariant {
                        body: None,
                        message_content_json: Some(serde_json::Value::Object(map).to_string()),
                    },
                };
                (locale, variant)
            })
            .collect(),
        default_locale: definition.default_locale,
        created_at: rfc3339(version.created_at),
    }
}

fn variables(map: &HashMap<String, pb::TemplateVariable>) -> BTreeMap<String, Option<i64>> {
    map.iter()
        .map(|(name, v)| (name.clone(), v.max_length))
        .collect()
}

fn variants(map: &HashMap<String, pb::TemplateVariant>) -> BTreeMap<String, VariantInput> {
    map.iter()
        .map(|(locale, v)| {
            (
                locale.clone(),
                VariantInput {
                    body: v.body.clone(),
                    message_content_json: v.message_content_json.clone(),
                },
            )
        })
        .collect()
}

#[tonic::async_trait]
impl pb::template_service_server::TemplateService for TemplateGrpc {
    async fn create_template(
        &self,
        request: Request<pb::CreateTemplateRequest>,
    ) -> Result<Response<pb::Template>, Status> {
        let console = Manager::of(&self.core, &request).await?;
        let body = request.get_ref();
        let content = Content {
            variables: Some(variables(&body.variables)),
            variants: Some(variants(&body.variants)),
            default_locale: Some(body.default_locale.clone()),
        };
        let view =
            service::create(&self.core, &console, &body.name, &body.category, content).await?;
        Ok(Response::new(template_pb(view)))
    }

    async fn list_templates(
        &self,
        request: Request<pb::ListTemplatesRequest>,
    ) -> Result<Response<pb::TemplateList>, Status> {
        let console = Member::of(&self.core, &request).await?;
        let body = request.into_inner();
        let (views, has_more) = service::list(
            &self.core,
            &console,
            service::ListQuery {
                limit: body.limit,
                starting_after: body.starting_after,
                category: body.category,
                status: body.status,
            },
        )
        .await?;
        Ok(Response::new(pb::TemplateList {
            templates: views.into_iter().map(template_pb).collect(),
            has_more,
        }))
    }

    async fn get_template(
        &self,
        request: Request<pb::GetTemplateRequest>,
    ) -> Result<Response<pb::Template>, Status> {
        let console = Member::of(&self.core, &request).await?;
        let body = request.get_ref();
        let view = service::get(&self.core, &console, &body.template_id, body.version).await?;
        Ok(Response::new(template_pb(view)))
    }

    async fn update_template(
        &self,
        request: Request<pb::UpdateTemplateRequest>,
    ) -> Result<Response<pb::Template>, Status> {
        let console = Manager::of(&self.core, &request).await?;
        let body = request.get_ref();
        let content = Content {
            variables: body.variables.as_ref().map(|v| variables(&v.variables)),
            variants: body.variants.as_ref().map(|v| variants(&v.variants)),
            default_locale: body.default_locale.clone(),
        };
        let view = service::update(
            &self.core,
            &console,
            &body.template_id,
            content,
            (body.name.clone(), body.category.clone()),
        )
        .await?;
        Ok(Response::new(template_pb(view)))
    }

    async fn archive_template(
        &self,
        request: Request<pb::TemplateRequest>,
    ) -> Result<Response<pb::Template>, Status> {
        let console = Manager::of(&self.core, &request).await?;
        let view = service::archive(&self.core, &console, &request.get_ref().template_id).await?;
        Ok(Response::new(template_pb(view)))
    }

    async fn render_template(
        &self,
        request: Request<pb::RenderTemplateRequest>,
    ) -> Result<Response<pb::RenderedTemplate>, Status> {
        let console = Member::of(&self.core, &request).await?;
        let body = request.get_ref();
        let preview = service::render(
            &self.core,
            &console,
            &body.template_id,
            body.variables_json.as_deref(),
            body.locale.as_deref(),
            body.version,
        )
        .await?;
        let (body, message_content_json) = match preview.rendered {
            Rendered::Body(body) => (Some(body), None),
            Rendered::Content(content) => (None, Some(content.to_string())),
        };
        Ok(Response::new(pb::RenderedTemplate {
            locale: preview.locale,
            body,
            message_content_json,
        }))
    }
}
