//! The template rules (DESIGN, "Templates"): owners and admins create templates and make new
//! versions, any role reads and renders them; a version never changes once made, a name and a
//! category never change; archiving is for ever. Sends name a template instead of their content
//! (`TemplateSend`), resolved after the idempotency replay ([`resolve`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use proto::ErrorCode;
use proto::vocabulary::{BroadcastCategory, Category, TemplateStatus};
use sea_orm::TransactionTrait;
use serde_json::{Map, Value};
use uuid::Uuid;

use super::definition::{Definition, Rendered, VariantInput, valid_name};
use super::send::{TemplateSend, explicit_locale};
use super::store;
use crate::caller::{Manager, Member};
use crate::entities::{template_versions, templates};
use crate::error::{AppError, AppResult, is_unique_violation};
use crate::state::Core;

/// A template at one of its versions.
#[derive(Debug, Clone)]
pub struct TemplateView {
    pub template: templates::Model,
    pub version: template_versions::Model,
    pub definition: Definition,
}

impl TemplateView {
    fn of((template, version): store::Versioned) -> AppResult<TemplateView> {
        let definition = Definition::from_stored(
            &version.variables,
            &version.variants,
            &version.default_locale,
        )?;
        Ok(TemplateView {
            template,
            version,
            definition,
        })
    }
}

/// A version's content as received (create and `PATCH`).
#[derive(Debug, Clone, Default)]
pub struct Content {
    /// Each variable's `max_length` (None: not given).
    pub variables: Option<BTreeMap<String, Option<i64>>>,
    pub variants: Option<BTreeMap<String, VariantInput>>,
    pub default_locale: Option<String>,
}

pub(crate) fn not_found() -> AppError {
    AppError::new(ErrorCode::TemplateNotFound, "no such template")
}

fn archived(name: &str) -> AppError {
    AppError::new(
        ErrorCode::TemplateArchived,
        format!("template {name} is archived"),
    )
}

fn template_id(id: &str) -> AppResult<Uuid> {
    Uuid::parse_str(id.trim()).map_err(|_| not_found())
}

/// A template's category: utility or marketing. Errors: `invalid_message_category`.
fn category_of(category: &str) -> AppResult<Category> {
    BroadcastCategory::from_wire(category)
        .map(Category::from)
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::InvalidMessageCategory,
                "category: a template is utility or marketing",
            )
        })
}

fn version_row(
    template_id: Uuid,
    number: i32,
    definition: &Definition,
    now: chrono::DateTime<chrono::Utc>,
) -> template_versions::Model {
    template_versions::Model {
        template_id,
        version: number,
        variables: definition.variables_json().to_string(),
        variants: definition.variants_json().to_string(),
        default_locale: definition.default_locale.clone(),
        created_at: now,
    }
}

/// Creates a template at version 1.
///
/// Errors: the caller's (owner or admin), `invalid_request` (name, variables, variants, default
/// locale: naming the variant and the variable), `invalid_message_category`,
/// `template_name_taken`.
pub async fn create(
    core: &Core,
    console: &Manager,
    name: &str,
    category: &str,
    content: Content,
) -> AppResult<TemplateView> {
    if !valid_name(name) {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            "name: 1 to 64 lowercase letters, digits or `_`",
        ));
    }
    let category = category_of(category)?;
    let definition = Definition::parse(
        category,
        &content.variables.unwrap_or_default(),
        &content.variants.unwrap_or_default(),
        content.default_locale.as_deref().unwrap_or_default(),
    )?;
    let now = core.clock.now();
    let template = templates::Model {
        id: Uuid::now_v7(),
        business_id: console.business.id,
        name: name.to_string(),
        category,
        status: TemplateStatus::Active,
        version: 1,
        created_at: now,
        updated_at: now,
    };
    let version = version_row(template.id, 1, &definition, now);
    let txn = core.db.begin().await?;
    if let Err(err) = store::insert(&txn, template.clone(), version.clone()).await {
        return Err(if is_unique_violation(&err) {
            name_taken(name)
        } else {
            err.into()
        });
    }
    txn.commit().await?;
    Ok(TemplateView {
        template,
        version,
        definition,
    })
}

fn name_taken(name: &str) -> AppError {
    AppError::new(
        ErrorCode::TemplateNameTaken,
        format!(
            "name: the business already has a template named {name} (archived ones keep their names)"
        ),
    )
}

/// A template of the business at `version` (default: the newest).
async fn find_version(
    core: &Core,
    template: templates::Model,
    version: Option<i64>,
) -> AppResult<TemplateView> {
    let number = match version {
        None => template.version,
        Some(n) if (1..=i64::from(template.version)).contains(&n) => n as i32,
        Some(n) => {
            return Err(AppError::new(
                ErrorCode::TemplateNotFound,
                format!("template {} has no version {n}", template.name),
            ));
        }
    };
    let row = store::version(&core.db, template.id, number)
        .await?
        .ok_or_else(not_found)?;
    TemplateView::of((template, row))
}

/// One template of the caller's business at `version` (default: the newest), any role.
///
/// Errors: the caller's, `template_not_found` (no such template or version).
pub async fn get(
    core: &Core,
    console: &Member,
    id: &str,
    version: Option<i64>,
) -> AppResult<TemplateView> {
    let template = store::find(&core.db, console.business.id, template_id(id)?, false)
        .await?
        .ok_or_else(not_found)?;
    find_version(core, template, version).await
}

/// What a list asks for.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub category: Option<String>,
    pub status: Option<String>,
}

/// The business's templates at their newest versions, newest first: active ones unless
/// `status=archived`.
///
/// Errors: the caller's, `invalid_limit`, `invalid_request` (a filter or the cursor).
pub async fn list(
    core: &Core,
    console: &Member,
    query: ListQuery,
) -> AppResult<(Vec<TemplateView>, bool)> {
    let limit = crate::domain::page_limit(query.limit)?;
    let status = crate::domain::filter("status", query.status.as_deref(), TemplateStatus::parse)?
        .unwrap_or(TemplateStatus::Active);
    let category = crate::domain::filter(
        "category",
        query.category.as_deref(),
        BroadcastCategory::parse,
    )?
    .map(Category::from);
    let after = crate::domain::cursor_id(query.starting_after.as_deref(), "a template")?;
    if let Some(after) = after
        && store::find(&core.db, console.business.id, after, false)
            .await?
            .is_none()
    {
        return Err(crate::domain::bad_cursor("a template"));
    }
    let rows = store::list(
        &core.db,
        console.business.id,
        status,
        category,
        after,
        limit + 1,
    )
    .await?;
    let (rows, has_more) = crate::domain::split_page(rows, limit);
    let mut versions: BTreeMap<Uuid, template_versions::Model> =
        store::newest_versions(&core.db, &rows)
            .await?
            .into_iter()
            .map(|v| (v.template_id, v))
            .collect();
    let views = rows
        .into_iter()
        .map(|t| {
            let version = versions
                .remove(&t.id)
                .ok_or_else(|| AppError::internal("a template without its newest version"))?;
            TemplateView::of((t, version))
        })
        .collect::<AppResult<_>>()?;
    Ok((views, has_more))
}

/// Makes version n+1 from the newest, with what `content` names replaced (always a new
/// version, even when nothing changed). Name and category never change.
///
/// Errors: the caller's (owner or admin), `invalid_request` (as create; `name` or `category`
/// given), `template_not_found`, `template_archived`.
pub async fn update(
    core: &Core,
    console: &Manager,
    id: &str,
    content: Content,
    fixed: (Option<String>, Option<String>),
) -> AppResult<TemplateView> {
    let id = template_id(id)?;
    let txn = core.db.begin().await?;
    let template = store::find(&txn, console.business.id, id, true)
        .await?
        .ok_or_else(not_found)?;
    if let Some(field) = [("name", &fixed.0), ("category", &fixed.1)]
        .into_iter()
        .find_map(|(field, value)| value.is_some().then_some(field))
    {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            format!("{field}: a template's {field} never changes (create another template)"),
        ));
    }
    if template.status == TemplateStatus::Archived {
        return Err(archived(&template.name));
    }
    let newest = store::version(&txn, template.id, template.version)
        .await?
        .ok_or_else(not_found)?;
    let current =
        Definition::from_stored(&newest.variables, &newest.variants, &newest.default_locale)?;
    let variables = content.variables.unwrap_or_else(|| {
        current
            .variables
            .iter()
            .map(|(n, m)| (n.clone(), Some(*m)))
            .collect()
    });
    let variants = match content.variants {
        Some(v) => v,
        None => current
            .variants
            .iter()
            .map(|(locale, variant)| (locale.clone(), variant_input(variant)))
            .collect(),
    };
    let default_locale = content
        .default_locale
        .unwrap_or_else(|| current.default_locale.clone());
    let definition = Definition::parse(template.category, &variables, &variants, &default_locale)?;
    let now = core.clock.now();
    let version = version_row(template.id, template.version + 1, &definition, now);
    let template = store::add_version(&txn, &template, version.clone()).await?;
    txn.commit().await?;
    Ok(TemplateView {
        template,
        version,
        definition,
    })
}

fn variant_input(variant: &super::definition::Variant) -> VariantInput {
    match variant {
        super::definition::Variant::Body(body) => VariantInput {
            body: Some(body.clone()),
            message_content_json: None,
        },
        super::definition::Variant::Content(map) => VariantInput {
            body: None,
            message_content_json: Some(Value::Object(map.clone()).to_string()),
        },
    }
}

/// Archives a template (again: the same answer). Sends naming it are refused from then on.
///
/// Errors: the caller's (owner or admin), `template_not_found`.
pub async fn archive(core: &Core, console: &Manager, id: &str) -> AppResult<TemplateView> {
    let id = template_id(id)?;
    store::archive(&core.db, console.business.id, id, core.clock.now()).await?;
    let template = store::find(&core.db, console.business.id, id, false)
        .await?
        .ok_or_else(not_found)?;
    find_version(core, template, None).await
}

/// What `render` answers: the locale chosen and the content, as a send would carry them.
#[derive(Debug, Clone)]
pub struct Preview {
    pub locale: String,
    pub rendered: Rendered,
}

/// Renders a template as a send would (a preview): the explicit locale by lookup, else the
/// default.
///
/// Errors: the caller's, `template_not_found`, the variable codes, `invalid_request`
/// (locale).
pub async fn render(
    core: &Core,
    console: &Member,
    id: &str,
    variables_json: Option<&str>,
    locale: Option<&str>,
    version: Option<i64>,
) -> AppResult<Preview> {
    let view = get(core, console, id, version).await?;
    let values = variables_of(variables_json, "variables")?;
    let locale = explicit_locale(locale, "locale")?;
    let chosen = view.definition.choose_locale(locale.as_deref(), None)?;
    let rendered = view.definition.render(chosen, &values)?;
    Ok(Preview {
        locale: chosen.to_string(),
        rendered,
    })
}

fn variables_of(json: Option<&str>, field: &str) -> AppResult<Map<String, Value>> {
    match json.map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Object(map))) => Ok(map),
        _ => Err(AppError::new(
            ErrorCode::InvalidRequest,
            format!("{field}: an object of the template's variables ({{}} when it has none)"),
        )),
    }
}

/// What a templated message is: its rendered content and what it was rendered from.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub body: Option<String>,
    pub content: Option<Value>,
    /// `{"id", "name", "version", "locale"}`, kept with the message.
    pub reference: Value,
}

/// A template of the business at one version, ready to render for recipients.
#[derive(Debug, Clone)]
pub struct Found {
    id: Uuid,
    name: String,
    version: i32,
    definition: Arc<Definition>,
}

/// What a send decided from a kept context must find unchanged of the template it named: the
/// template's id and its row version (see `messaging::store::ContextCheck`).
pub type RowCheck = (Uuid, String);

/// Finds the template a send names and checks what does not depend on the recipient, in
/// DESIGN's order: it exists (at that version), it is not archived, its category is the
/// send's. With `reader`, the same statement reads that user's own language.
///
/// Errors: `template_not_found`, `template_archived`, `template_category_mismatch`.
pub async fn find_for_send(
    core: &Core,
    business_id: Uuid,
    send: &TemplateSend,
    category: Category,
    reader: Option<Uuid>,
) -> AppResult<(Found, Option<String>)> {
    let key = store::SendKey {
        business_id,
        name: send.name.clone(),
        version: send.version,
        reader,
    };
    let Some(read) = core.template_reads.read(key).await? else {
        return Err(AppError::new(
            ErrorCode::TemplateNotFound,
            format!(
                "template.name: the business has no template named {}",
                send.name
            ),
        ));
    };
    let template = read.template;
    if let Some(row_version) = read.row_version {
        core.template_reads.keep(&template, row_version);
    }
    if template.status == TemplateStatus::Archived {
        return Err(archived(&template.name));
    }
    if template.category != category {
        return Err(AppError::new(
            ErrorCode::TemplateCategoryMismatch,
            format!(
                "category: template {} is {}, not {}",
                template.name, template.category, category
            ),
        ));
    }
    let Some(version) = read.version else {
        return Err(AppError::new(
            ErrorCode::TemplateNotFound,
            format!(
                "template.version: template {} has no version {}",
                template.name,
                send.version.unwrap_or_default()
            ),
        ));
    };
    let definition = match kept_definition(core, template.id, version.version) {
        Some(definition) => definition,
        None => {
            let definition = Arc::new(Definition::from_stored(
                &version.variables,
                &version.variants,
                &version.default_locale,
            )?);
            core.template_reads
                .keep_definition(template.id, version.version, definition.clone());
            definition
        }
    };
    let found = Found {
        id: template.id,
        name: template.name,
        version: version.version,
        definition,
    };
    Ok((found, read.language))
}

/// The parsed definition of a version, as this core kept it.
fn kept_definition(core: &Core, id: Uuid, version: i32) -> Option<Arc<Definition>> {
    core.template_reads
        .definition(id, version)?
        .downcast::<Definition>()
        .ok()
}

/// Renders a single message's template for its recipient: the template found and checked
/// ([`find_for_send`]), then the variant by the explicit locale, else the recipient's own
/// language when `follower` (the user id of a recipient who actively follows the business),
/// else the default.
///
/// Errors: as [`find_for_send`], then as [`Found::render`].
pub async fn resolve(
    core: &Core,
    business_id: Uuid,
    send: &TemplateSend,
    category: Category,
    follower: Option<Uuid>,
) -> AppResult<Resolved> {
    let reader = follower.filter(|_| send.locale.is_none());
    let (found, language) = find_for_send(core, business_id, send, category, reader).await?;
    found.render(send, language.as_deref())
}

/// [`resolve`] for a send decided from a kept context, from what this core kept of the
/// template (PostgreSQL): the rendering with the template row's version, which the send's write
/// must find unchanged. `language` is the recipient's own, given only when they actively
/// follow the business (read with the kept context, whose check covers it).
///
/// None when nothing usable is kept: not the template row, not the version's definition, or
/// the kept row would refuse the send (the fresh read decides and answers).
pub fn resolve_kept(
    core: &Core,
    business_id: Uuid,
    send: &TemplateSend,
    category: Category,
    language: Option<&str>,
) -> Option<AppResult<(Resolved, RowCheck)>> {
    let kept = core.template_reads.kept(business_id, &send.name)?;
    let template = &kept.template;
    if template.status != TemplateStatus::Active || template.category != category {
        return None;
    }
    let version = match send.version {
        None => template.version,
        Some(n) if (1..=i64::from(template.version)).contains(&n) => n as i32,
        Some(_) => return None,
    };
    let found = Found {
        id: template.id,
        name: template.name.clone(),
        version,
        definition: kept_definition(core, template.id, version)?,
    };
    Some(
        found
            .render(send, language)
            .map(|resolved| (resolved, (template.id, kept.row_version))),
    )
}

impl Found {
    /// Renders for one recipient: the explicit locale, else `language` (the recipient's own,
    /// given only when they actively follow the business), else the default.
    ///
    /// Errors: the variable codes, `invalid_request` (`template.locale` without a variant).
    pub fn render(&self, send: &TemplateSend, language: Option<&str>) -> AppResult<Resolved> {
        let definition = &self.definition;
        let locale = definition.choose_locale(send.locale.as_deref(), language)?;
        let rendered = definition.render(locale, &send.variables)?;
        let (body, content) = match rendered {
            Rendered::Body(body) => (Some(body), None),
            Rendered::Content(content) => (None, Some(content)),
        };
        Ok(Resolved {
            body,
            content,
            reference: serde_json::json!({
                "id": self.id,
                "name": self.name,
                "version": self.version,
                "locale": locale,
            }),
        })
    }
}

impl Found {
    /// Renders every variant with the send's variables: a broadcast renders each recipient's
    /// variant with one set of variables, so each must render.
    ///
    /// Errors: as [`Found::render`].
    pub fn check_every_variant(&self, send: &TemplateSend) -> AppResult<()> {
        let definition = &self.definition;
        for locale in definition.variants.keys() {
            definition.render(locale, &send.variables)?;
        }
        if let Some(locale) = &send.locale {
            definition.choose_locale(Some(locale), None)?;
        }
        Ok(())
    }

    /// What a broadcast keeps to render its recipients' messages: the template's id and the
    /// version found now, so a new version made meanwhile changes nothing of it.
    pub fn for_broadcast(&self, send: &TemplateSend) -> String {
        serde_json::json!({
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "variables": Value::Object(send.variables.clone()),
            "locale": send.locale,
        })
        .to_string()
    }
}

/// A broadcast's template as [`Found::for_broadcast`] kept it: the version it was created
/// with, whatever happened to the template since (as a scheduled message keeps what was
/// rendered at accept).
pub async fn of_broadcast(core: &Core, stored: &str) -> AppResult<(Found, TemplateSend)> {
    let corrupt = || AppError::internal("a broadcast's template does not parse");
    let value: Value = serde_json::from_str(stored).map_err(|_| corrupt())?;
    let id = value["id"]
        .as_str()
        .and_then(|id| Uuid::parse_str(id).ok())
        .ok_or_else(corrupt)?;
    let version = value["version"].as_i64().ok_or_else(corrupt)?;
    let send = TemplateSend {
        name: value["name"].as_str().unwrap_or_default().to_string(),
        version: Some(version),
        variables: value["variables"].as_object().cloned().unwrap_or_default(),
        locale: value["locale"].as_str().map(str::to_string),
    };
    let template = store::by_id(&core.db, id).await?.ok_or_else(not_found)?;
    let view = find_version(core, template, Some(version)).await?;
    let found = Found {
        id: view.template.id,
        name: view.template.name,
        version: view.version.version,
        definition: Arc::new(view.definition),
    };
    Ok((found, send))
}
