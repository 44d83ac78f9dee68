//! `/business/templates`: message templates (owners and admins write, any role reads).

use std::collections::{BTreeMap, HashMap};

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use proto::ErrorCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::messages::string_field;
use crate::envelope::{ApiError, ApiResult, Envelope, ok};
use crate::extract::{CallContext, JsonBody, PathParam, query_param, uuid_path};
use crate::state::AppState;

/// A variable: the longest value a send may give it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateVariable {
    /// 1 to 1,000 characters: required.
    #[schema(minimum = 1, maximum = 1000, example = 20)]
    pub max_length: Option<i64>,
}

/// One locale's content: `body` (utility and marketing), or `message_content` (marketing: the
/// send's structured content; variables in `text`, `title` and button URLs). Every variant of
/// a template is of one kind and uses every variable.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateVariant {
    /// Text with `{{variable}}` placeholders.
    #[schema(value_type = Option<String>, example = "Order {{order_id}} has shipped.")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    #[schema(value_type = Option<Object>)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_content: Option<Value>,
}

/// A template at one version.
#[derive(Debug, Serialize, ToSchema)]
pub struct Template {
    #[schema(format = Uuid)]
    pub id: String,
    pub name: String,
    pub version: i32,
    #[schema(value_type = crate::schema::BroadcastCategory)]
    pub category: String,
    #[schema(value_type = crate::schema::TemplateStatus)]
    pub status: String,
    #[schema(example = json!({"order_id": {"max_length": 20}}))]
    pub variables: BTreeMap<String, TemplateVariable>,
    /// By canonical BCP 47 locale.
    #[schema(example = json!({"en": {"body": "Order {{order_id}} has shipped."}, "pt-BR": {"body": "O pedido {{order_id}} foi enviado."}}))]
    pub variants: BTreeMap<String, TemplateVariant>,
    #[schema(example = "en")]
    pub default_locale: String,
    /// When this version was made.
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<pb::Template> for Template {
    fn from(t: pb::Template) -> Self {
        Template {
            id: t.id,
            name: t.name,
            version: t.version,
            category: t.category,
            status: t.status,
            variables: t
                .variables
                .into_iter()
                .map(|(name, v)| {
                    (
                        name,
                        TemplateVariable {
                            max_length: v.max_length,
                        },
                    )
                })
                .collect(),
            variants: t
                .variants
                .into_iter()
                .map(|(locale, v)| {
                    (
                        locale,
                        TemplateVariant {
                            body: v.body.map(Value::String),
                            message_content: v
                                .message_content_json
                                .and_then(|json| serde_json::from_str(&json).ok()),
                        },
                    )
                })
                .collect(),
            default_locale: t.default_locale,
            created_at: t.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TemplateList {
    pub templates: Vec<Template>,
    /// Whether more follow: ask again with `starting_after` = the last `id`.
    pub has_more: bool,
}

/// A new template.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTemplateBody {
    /// Lowercase letters, digits and `_`, 1 to 64; unique in the business for ever (archived
    /// templates keep theirs).
    #[schema(value_type = String, pattern = "^[a-z0-9_]{1,64}$", example = "order_shipped")]
    pub name: Option<Value>,
    /// `utility` or `marketing`; never changes.
    #[schema(value_type = crate::schema::BroadcastCategory)]
    pub category: Option<Value>,
    #[serde(default)]
    #[schema(example = json!({"order_id": {"max_length": 20}}))]
    pub variables: BTreeMap<String, TemplateVariable>,
    #[serde(default)]
    #[schema(example = json!({"en": {"body": "Order {{order_id}} has shipped."}, "pt-BR": {"body": "O pedido {{order_id}} foi enviado."}}))]
    pub variants: BTreeMap<String, TemplateVariant>,
    /// One of the variants' locales.
    #[schema(value_type = String, example = "en")]
    pub default_locale: Option<Value>,
}

/// A new version: what is given replaces the newest version's.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTemplateBody {
    pub variables: Option<BTreeMap<String, TemplateVariable>>,
    pub variants: Option<BTreeMap<String, TemplateVariant>>,
    #[schema(value_type = Option<String>)]
    pub default_locale: Option<Value>,
    /// Refused: a template's name never changes.
    #[schema(value_type = Option<String>)]
    pub name: Option<Value>,
    /// Refused: a template's category never changes.
    #[schema(value_type = Option<String>)]
    pub category: Option<Value>,
}

/// A preview: what a send with these variables would carry.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderTemplateBody {
    /// Every variable of the template, each a string.
    #[schema(value_type = BTreeMap<String, String>, example = json!({"order_id": "A-1042"}))]
    pub variables: Option<Value>,
    /// A BCP 47 tag (by lookup); default: the template's default locale.
    #[schema(value_type = Option<String>, example = "pt-BR")]
    pub locale: Option<Value>,
    /// Default: the newest.
    #[schema(minimum = 1)]
    pub version: Option<i64>,
}

/// A rendering.
#[derive(Debug, Serialize, ToSchema)]
pub struct RenderedTemplate {
    /// The variant rendered.
    pub locale: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub message_content: Option<Value>,
}

fn variables_pb(
    variables: BTreeMap<String, TemplateVariable>,
) -> HashMap<String, pb::TemplateVariable> {
    variables
        .into_iter()
        .map(|(name, v)| {
            (
                name,
                pb::TemplateVariable {
                    max_length: v.max_length,
                },
            )
        })
        .collect()
}

fn variants_pb(
    variants: BTreeMap<String, TemplateVariant>,
) -> Result<HashMap<String, pb::TemplateVariant>, ApiError> {
    variants
        .into_iter()
        .map(|(locale, v)| {
            let body = string_field(v.body, &format!("variants.{locale}.body"))?;
            let variant = pb::TemplateVariant {
                body,
                message_content_json: v
                    .message_content
                    .filter(|c| !c.is_null())
                    .map(|c| c.to_string()),
            };
            Ok((locale, variant))
        })
        .collect()
}

fn created(template: pb::Template) -> ApiResult {
    Ok(ok(StatusCode::CREATED, Template::from(template)))
}

fn answered(template: pb::Template) -> ApiResult {
    Ok(ok(StatusCode::OK, Template::from(template)))
}

/// Create a template at version 1 (owner, admin).
///
/// Every check names the variant and the variable: each variant uses exactly the declared
/// variables, placeholders are `{{name}}` exactly, the rendering with every variable at its
/// `max_length` fits (4,096 characters; button URLs stay https URLs).
#[utoipa::path(post, path = "/business/templates", operation_id = "create_template", tag = "templates",
    security(("bearer" = [])),
    request_body = CreateTemplateBody,
    responses((status = 201, description = "The template at version 1", body = Envelope<Template>)))]
pub async fn create_template(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<CreateTemplateBody>,
) -> ApiResult {
    let request = pb::CreateTemplateRequest {
        name: string_field(body.name, "name")?.unwrap_or_default(),
        category: super::messages::text(body.category).unwrap_or_default(),
        variables: variables_pb(body.variables),
        variants: variants_pb(body.variants)?,
        default_locale: string_field(body.default_locale, "default_locale")?.unwrap_or_default(),
    };
    let reply = state
        .templates
        .clone()
        .create_template(ctx.request(request))
        .await?;
    created(reply.into_inner())
}

/// The business's templates, newest first, each at its newest version (any role): active ones
/// unless `status=archived`.
#[utoipa::path(get, path = "/business/templates", operation_id = "list_templates", tag = "templates",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last template of the previous page"),
        ("category" = Option<crate::schema::BroadcastCategory>, Query),
        ("status" = Option<crate::schema::TemplateStatus>, Query, description = "Default `active`"),
    ),
    responses((status = 200, description = "The templates", body = Envelope<TemplateList>)))]
pub async fn list_templates(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let query = query.as_deref();
    let request = pb::ListTemplatesRequest {
        limit: crate::extract::limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
        category: query_param(query, "category"),
        status: query_param(query, "status"),
    };
    let list = state
        .templates
        .clone()
        .list_templates(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        TemplateList {
            templates: list.templates.into_iter().map(Template::from).collect(),
            has_more: list.has_more,
        },
    ))
}

fn version_query(query: Option<&str>) -> Result<Option<i64>, ApiError> {
    query_param(query, "version")
        .map(|v| {
            v.trim().parse::<i64>().map_err(|_| {
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    "version: a version number from 1",
                )
            })
        })
        .transpose()
}

/// One template at a version (default: the newest; any role). Versions never change.
#[utoipa::path(get, path = "/business/templates/{id}", operation_id = "get_template", tag = "templates",
    security(("bearer" = [])),
    params(
        ("id" = String, Path, format = Uuid),
        ("version" = Option<i64>, Query, minimum = 1, description = "Default: the newest"),
    ),
    responses((status = 200, description = "The template", body = Envelope<Template>)))]
pub async fn get_template(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let request = pb::GetTemplateRequest {
        template_id: uuid_path(&id)?,
        version: version_query(query.as_deref())?,
    };
    let reply = state
        .templates
        .clone()
        .get_template(ctx.request(request))
        .await?;
    answered(reply.into_inner())
}

/// Make version n+1 (owner, admin): what is given replaces the newest version's; always a new
/// version. Name and category never change; earlier versions stay readable.
#[utoipa::path(patch, path = "/business/templates/{id}", operation_id = "update_template", tag = "templates",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = UpdateTemplateBody,
    responses((status = 200, description = "The template at its new version", body = Envelope<Template>)))]
pub async fn update_template(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<UpdateTemplateBody>,
) -> ApiResult {
    let request = pb::UpdateTemplateRequest {
        template_id: uuid_path(&id)?,
        variables: body.variables.map(|v| pb::TemplateVariables {
            variables: variables_pb(v),
        }),
        variants: body
            .variants
            .map(variants_pb)
            .transpose()?
            .map(|variants| pb::TemplateVariants { variants }),
        default_locale: string_field(body.default_locale, "default_locale")?,
        name: super::messages::text(body.name),
        category: super::messages::text(body.category),
    };
    let reply = state
        .templates
        .clone()
        .update_template(ctx.request(request))
        .await?;
    answered(reply.into_inner())
}

/// Archive a template for ever (owner, admin; again: the same answer). Sends naming it are
/// refused (409 `template_archived`); a replay of a send made before answers the original.
#[utoipa::path(post, path = "/business/templates/{id}/archive", operation_id = "archive_template", tag = "templates",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses((status = 200, description = "The archived template", body = Envelope<Template>)))]
pub async fn archive_template(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::TemplateRequest {
        template_id: uuid_path(&id)?,
    };
    let reply = state
        .templates
        .clone()
        .archive_template(ctx.request(request))
        .await?;
    answered(reply.into_inner())
}

/// Render a template as a send would (any role), for previews.
#[utoipa::path(post, path = "/business/templates/{id}/render", operation_id = "render_template", tag = "templates",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = RenderTemplateBody,
    responses((status = 200, description = "The rendering", body = Envelope<RenderedTemplate>)))]
pub async fn render_template(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<RenderTemplateBody>,
) -> ApiResult {
    let request = pb::RenderTemplateRequest {
        template_id: uuid_path(&id)?,
        variables_json: body
            .variables
            .filter(|v| !v.is_null())
            .map(|v| v.to_string()),
        locale: string_field(body.locale, "locale")?,
        version: body.version,
    };
    let rendered = state
        .templates
        .clone()
        .render_template(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        RenderedTemplate {
            locale: rendered.locale,
            body: rendered.body,
            message_content: rendered
                .message_content_json
                .and_then(|json| serde_json::from_str(&json).ok()),
        },
    ))
}
