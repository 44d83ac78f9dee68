//! The export of one user: everything kept about them, from every table that holds it, as one
//! JSON document written piece by piece (the messages sent to them a page at a time, never
//! all in memory).
//!
//! ```text
//! {"format": "user-export/1", "exported_at", "account", "erasure_entry", "team_membership",
//!  "follows", "consent_changes", "grants", "otp_codes", "refresh_families", "qr_sessions",
//!  "conversations", "read_marks", "messages_written", "messages_received", "events",
//!  "webhook_deliveries", "broadcast_audiences"}
//! ```
//!
//! Secrets are never exported (code and token hashes); what they guard is (when, how often).

use std::collections::{BTreeSet, HashMap};

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::clock::rfc3339;
use crate::entities::{
    broadcast_recipients, consent_texts, conversations, developer_apps, erasures, events,
    follow_changes, follows, grants, inbound_messages, inbox_messages, messages, otp_codes,
    qr_sessions, read_marks, refresh_families, team_members, users, webhook_deliveries,
};
use crate::error::AppResult;
use crate::state::Core;

/// How many bytes one piece carries at most (a row may make a piece longer).
pub const PIECE: usize = 64 * 1024;
/// Messages read per page.
const PAGE: u64 = 1_000;

/// Writes the export of `user` to `out`, in pieces of about [`PIECE`] bytes. Stops early
/// (without error) when the receiver is gone.
pub async fn write(core: &Core, user: users::Model, out: mpsc::Sender<Vec<u8>>) -> AppResult<()> {
    let mut doc = Pieces {
        out,
        buffer: Vec::with_capacity(PIECE),
        open: true,
    };
    let db = &core.db;
    let id = user.id;
    doc.raw(b"{");
    doc.field("format", &json!("user-export/1"), true).await;
    doc.field("exported_at", &json!(rfc3339(core.clock.now())), false)
        .await;
    doc.field(
        "account",
        &json!({
            "id": user.id,
            "phone_number": user.phone_number,
            "status": user.status,
            "display_name": user.display_name,
            "language": user.language,
            "read_receipts": user.read_receipts,
            "webhook_alerts": user.webhook_alerts,
            "created_at": rfc3339(user.created_at),
            "updated_at": rfc3339(user.updated_at),
        }),
        false,
    )
    .await;
    let erasure = erasures::Entity::find()
        .filter(erasures::Column::UserId.eq(id))
        .one(db)
        .await?
        .map(|e| {
            json!({
                "erasure_id": e.id,
                "status": e.status,
                "erased_at": rfc3339(e.erased_at),
                "completed_at": e.completed_at.map(rfc3339),
            })
        });
    doc.field("erasure_entry", &json!(erasure), false).await;
    let membership = team_members::Entity::find_by_id(id).one(db).await?.map(|m| {
        json!({ "business_id": m.business_id, "role": m.role, "added_at": rfc3339(m.added_at) })
    });
    doc.field("team_membership", &json!(membership), false)
        .await;

    let follows = follows::Entity::find()
        .filter(follows::Column::UserId.eq(id))
        .order_by_asc(follows::Column::BusinessId)
        .all(db)
        .await?;
    doc.field(
        "follows",
        &Value::Array(
            follows
                .iter()
                .map(|f| {
                    json!({
                        "business_id": f.business_id,
                        "status": f.status,
                        "marketing_opt_in": f.marketing_opt_in,
                        "followed_at": f.followed_at.map(rfc3339),
                        "updated_at": f.updated_at.map(rfc3339),
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;
    let changes = follow_changes::Entity::find()
        .filter(follow_changes::Column::UserId.eq(id))
        .order_by_asc(follow_changes::Column::Id)
        .all(db)
        .await?;
    let mut wording: HashMap<(Uuid, i32), String> = HashMap::new();
    for change in &changes {
        if let Some(version) = change.consent_text_version
            && !wording.contains_key(&(change.business_id, version))
            && let Some(text) = consent_texts::Entity::find_by_id((change.business_id, version))
                .one(db)
                .await?
        {
            wording.insert((change.business_id, version), text.text);
        }
    }
    doc.field(
        "consent_changes",
        &Value::Array(
            changes
                .iter()
                .map(|c| {
                    let text = c
                        .consent_text_version
                        .map(|v| json!({ "version": v, "text": wording.get(&(c.business_id, v)) }));
                    json!({
                        "business_id": c.business_id,
                        "at": rfc3339(c.at),
                        "status": c.status,
                        "marketing_opt_in": c.marketing_opt_in,
                        "source": c.source,
                        "consent_text": text,
                        "user_named_version": c.user_named_version,
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;
    let grants = grants::Entity::find()
        .filter(grants::Column::UserId.eq(id))
        .all(db)
        .await?;
    doc.field(
        "grants",
        &Value::Array(
            grants
                .iter()
                .map(|g| {
                    json!({
                        "client_id": g.client_id,
                        "created_at": rfc3339(g.created_at),
                        "revoked_at": g.revoked_at.map(rfc3339),
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;
    let codes = otp_codes::Entity::find()
        .filter(otp_codes::Column::UserId.eq(id))
        .all(db)
        .await?;
    doc.field(
        "otp_codes",
        &Value::Array(
            codes
                .iter()
                .map(|c| {
                    json!({
                        "purpose": c.purpose,
                        "created_at": rfc3339(c.created_at),
                        "expires_at_ms": c.expires_at_ms,
                        "attempts": c.attempts,
                        "consumed_at": c.consumed_at.map(rfc3339),
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;
    let families = refresh_families::Entity::find()
        .filter(refresh_families::Column::UserId.eq(id))
        .all(db)
        .await?;
    doc.field(
        "refresh_families",
        &Value::Array(
            families
                .iter()
                .map(|f| {
                    json!({
                        "id": f.id,
                        "created_at": rfc3339(f.created_at),
                        "revoked_at": f.revoked_at.map(rfc3339),
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;
    let sessions = qr_sessions::Entity::find()
        .filter(qr_sessions::Column::ApprovedBy.eq(id))
        .all(db)
        .await?;
    doc.field(
        "qr_sessions",
        &Value::Array(
            sessions
                .iter()
                .map(|s| {
                    json!({
                        "id": s.id,
                        "client_name": s.client_name,
                        "origin_hint": s.origin_hint,
                        "status": s.status,
                        "approved_at": s.approved_at.map(rfc3339),
                        "exchanged_at": s.exchanged_at.map(rfc3339),
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;
    let conversations = conversations::Entity::find()
        .filter(conversations::Column::UserId.eq(id))
        .order_by_asc(conversations::Column::BusinessId)
        .all(db)
        .await?;
    doc.field(
        "conversations",
        &Value::Array(
            conversations
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "business_id": c.business_id,
                        "status": c.status,
                        "blocked": c.blocked,
                        "label": c.label,
                        "created_at": rfc3339(c.created_at),
                        "last_message_at": rfc3339(c.last_message_at),
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;
    let marks = read_marks::Entity::find()
        .filter(read_marks::Column::UserId.eq(id))
        .all(db)
        .await?;
    doc.field(
        "read_marks",
        &Value::Array(
            marks
                .iter()
                .map(|m| {
                    json!({
                        "business_id": m.business_id,
                        "side": m.side,
                        "up_to_id": m.up_to_id,
                        "read_at": rfc3339(m.read_at),
                        "receipts": m.receipts,
                    })
                })
                .collect(),
        ),
        false,
    )
    .await;

    // The user's own messages, conversation by conversation.
    doc.key("messages_written", false).await;
    doc.raw(b"[");
    let mut first = true;
    for conversation in &conversations {
        let mut after = -1;
        loop {
            let page = inbound_messages::Entity::find()
                .filter(inbound_messages::Column::ConversationId.eq(conversation.id))
                .filter(inbound_messages::Column::Sequence.gt(after))
                .order_by_asc(inbound_messages::Column::Sequence)
                .limit(PAGE)
                .all(db)
                .await?;
            for m in &page {
                let row = json!({
                    "id": m.id,
                    "conversation_id": m.conversation_id,
                    "business_id": m.business_id,
                    "sequence": m.sequence,
                    "body": m.body,
                    "reply_to": m.reply_to,
                    "client_message_id": m.client_message_id,
                    "received_at": rfc3339(m.received_at),
                });
                doc.item(&row, &mut first).await;
            }
            match page.last() {
                Some(last) if page.len() as u64 == PAGE => after = last.sequence,
                _ => break,
            }
        }
    }
    doc.raw(b"]");

    // The businesses that knew the user, and those whose apps they granted sign-in.
    let mut knew = BTreeSet::new();
    let mut cursor = Uuid::nil();
    loop {
        let page = super::job::knew_page(db, id, cursor).await?;
        let Some(&(last, _)) = page.last() else { break };
        cursor = last;
        knew.extend(page.into_iter().filter(|(_, k)| *k).map(|(b, _)| b));
    }
    for grant in &grants {
        if let Some(app) = developer_apps::Entity::find_by_id(grant.client_id)
            .one(db)
            .await?
        {
            knew.insert(app.business_id);
        }
    }
    let id_text = id.to_string();

    // The messages sent to the user, business by business, with their inbox copies.
    doc.key("messages_received", false).await;
    doc.raw(b"[");
    let mut first = true;
    for &business_id in &knew {
        let mut after = Uuid::nil();
        loop {
            let sent = messages::Entity::find()
                .filter(messages::Column::BusinessId.eq(business_id))
                .filter(messages::Column::RecipientUserId.eq(id))
                .filter(messages::Column::Id.gt(after))
                .order_by_asc(messages::Column::Id)
                .limit(PAGE)
                .all(db)
                .await?;
            let inbox: HashMap<Uuid, chrono::DateTime<chrono::Utc>> =
                inbox_messages::Entity::find()
                    .select_only()
                    .column(inbox_messages::Column::MessageId)
                    .column(inbox_messages::Column::DeliveredAt)
                    .filter(crate::db::bulk::uuid_in(
                        db.get_database_backend(),
                        inbox_messages::Column::MessageId,
                        sent.iter().map(|m| m.id),
                    ))
                    .into_tuple()
                    .all(db)
                    .await?
                    .into_iter()
                    .collect();
            for m in &sent {
                doc.item(&message_json(m, inbox.get(&m.id).copied()), &mut first)
                    .await;
            }
            match sent.last() {
                Some(last) if sent.len() as u64 == PAGE => after = last.id,
                _ => break,
            }
        }
    }
    doc.raw(b"]");

    // The events that name the user (their data is what the business's webhooks were sent),
    // and their deliveries, business by business.
    doc.key("events", false).await;
    doc.raw(b"[");
    let mut first = true;
    for &business_id in &knew {
        let mut after = Uuid::nil();
        loop {
            let page = events::Entity::find()
                .filter(events::Column::BusinessId.eq(business_id))
                .filter(events::Column::Data.contains(&id_text))
                .filter(events::Column::Id.gt(after))
                .order_by_asc(events::Column::Id)
                .limit(PAGE)
                .all(db)
                .await?;
            for e in &page {
                let row = json!({
                    "id": e.id,
                    "business_id": e.business_id,
                    "type": e.event_type,
                    "created_at": rfc3339(e.created_at),
                    "data": serde_json::from_str::<Value>(&e.data).unwrap_or(Value::Null),
                });
                doc.item(&row, &mut first).await;
            }
            match page.last() {
                Some(last) if page.len() as u64 == PAGE => after = last.id,
                _ => break,
            }
        }
    }
    doc.raw(b"]");
    doc.key("webhook_deliveries", false).await;
    doc.raw(b"[");
    let mut first = true;
    for &business_id in &knew {
        let mut after = Uuid::nil();
        loop {
            let page = webhook_deliveries::Entity::find()
                .filter(webhook_deliveries::Column::BusinessId.eq(business_id))
                .filter(webhook_deliveries::Column::Data.contains(&id_text))
                .filter(webhook_deliveries::Column::Id.gt(after))
                .order_by_asc(webhook_deliveries::Column::Id)
                .limit(PAGE)
                .all(db)
                .await?;
            for d in &page {
                let row = json!({
                    "id": d.id,
                    "webhook_id": d.webhook_id,
                    "event_id": d.event_id,
                    "type": d.event_type,
                    "status": d.status,
                    "attempts": d.attempts,
                    "created_at": rfc3339(d.created_at),
                });
                doc.item(&row, &mut first).await;
            }
            match page.last() {
                Some(last) if page.len() as u64 == PAGE => after = last.id,
                _ => break,
            }
        }
    }
    doc.raw(b"]");
    let audiences: Vec<Uuid> = broadcast_recipients::Entity::find()
        .select_only()
        .column(broadcast_recipients::Column::BroadcastId)
        .filter(broadcast_recipients::Column::UserId.eq(id))
        .into_tuple()
        .all(db)
        .await?;
    doc.field("broadcast_audiences", &json!(audiences), false)
        .await;
    doc.raw(b"}");
    doc.flush().await;
    Ok(())
}

fn message_json(m: &messages::Model, delivered_at: Option<chrono::DateTime<chrono::Utc>>) -> Value {
    json!({
        "id": m.id,
        "business_id": m.business_id,
        "source": m.source,
        "category": m.category,
        "to": m.to_phone,
        "body": m.body,
        "message_content": m.message_content.as_deref().and_then(|c| serde_json::from_str::<Value>(c).ok()),
        "template": m.template.as_deref().and_then(|t| serde_json::from_str::<Value>(t).ok()),
        "status": m.status,
        "failure_reason": m.failure_reason,
        "created_at": rfc3339(m.created_at),
        "send_at": m.send_at.map(rfc3339),
        "expires_at": m.expires_at.map(rfc3339),
        "completed_at": m.completed_at.map(rfc3339),
        "broadcast_id": m.broadcast_id,
        "conversation_id": m.conversation_id,
        "reply_to": m.reply_to,
        "in_inbox_since": delivered_at.map(rfc3339),
    })
}

/// The document's bytes, sent on in pieces.
struct Pieces {
    out: mpsc::Sender<Vec<u8>>,
    buffer: Vec<u8>,
    /// False once the receiver is gone: the rest is dropped.
    open: bool,
}

impl Pieces {
    fn raw(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    async fn key(&mut self, name: &str, first: bool) {
        if !first {
            self.raw(b",");
        }
        let key = Value::String(name.to_string()).to_string();
        self.raw(key.as_bytes());
        self.raw(b":");
        self.maybe_flush().await;
    }

    async fn field(&mut self, name: &str, value: &Value, first: bool) {
        self.key(name, first).await;
        let text = value.to_string();
        self.raw(text.as_bytes());
        self.maybe_flush().await;
    }

    async fn item(&mut self, value: &Value, first: &mut bool) {
        if !*first {
            self.raw(b",");
        }
        *first = false;
        let text = value.to_string();
        self.raw(text.as_bytes());
        self.maybe_flush().await;
    }

    async fn maybe_flush(&mut self) {
        if self.buffer.len() >= PIECE {
            self.flush().await;
        }
    }

    async fn flush(&mut self) {
        let piece = std::mem::replace(&mut self.buffer, Vec::with_capacity(PIECE));
        if self.open && !piece.is_empty() && self.out.send(piece).await.is_err() {
            self.open = false;
        }
    }
}
