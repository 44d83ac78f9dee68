//! Batched template reads for sends: concurrent sends naming templates share one query for the
//! template, the version they ask for and their recipient's language. Callers do
//! `core.template_reads.read(key).await`; the reader gathers what arrived while the previous
//! query ran and answers each caller with its own row.
//!
//! What the reads found is kept: every version's parsed definition (versions never change), and
//! on PostgreSQL each template row with its row version, for the next send of a kept app-token
//! context ([`TemplateReader::kept`]). Such a send is written only while the template row is
//! still at that version, checked by the writing statement itself with the context
//! (`messaging::store::ContextCheck`); anything else is decided again from a fresh read. So an
//! archive or a new version counts from the very next send, on every core.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use sea_orm::DatabaseConnection;
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use super::store::{self, ForSend, SendKey};
use crate::entities::templates;
use crate::error::{AppError, AppResult};

/// The most sends one query reads for.
const MAX_BATCH: usize = 64;

type Request = (SendKey, oneshot::Sender<AppResult<Option<ForSend>>>);

#[derive(Clone)]
pub struct TemplateReader {
    tx: mpsc::Sender<Request>,
    kept: Arc<Kept>,
}

/// A template row as last read on PostgreSQL, with its row version.
#[derive(Debug, Clone)]
pub struct KeptTemplate {
    pub template: templates::Model,
    pub row_version: String,
}

/// What the reads found: template rows by (business, name), PostgreSQL only (where they carry
/// versions to check), and versions' parsed definitions by (template, version).
#[derive(Default)]
struct Kept {
    rows: std::sync::Mutex<HashMap<(Uuid, String), KeptTemplate>>,
    definitions: std::sync::Mutex<HashMap<(Uuid, i32), Parsed>>,
}

/// A version's parsed definition, as the template rules parse it (this reader keeps it without
/// knowing its shape, so that it reaches nothing but stores).
pub type Parsed = Arc<dyn Any + Send + Sync>;

/// The most entries each store keeps; when full, it starts again empty.
const KEPT: usize = 10_000;

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn keep<K: std::hash::Hash + Eq, V>(map: &mut HashMap<K, V>, key: K, value: V) {
    if map.len() >= KEPT && !map.contains_key(&key) {
        map.clear();
    }
    map.insert(key, value);
}

impl TemplateReader {
    /// Starts `readers` tasks sharing one queue.
    pub fn spawn(db: DatabaseConnection, readers: usize) -> TemplateReader {
        let (tx, rx) = mpsc::channel::<Request>(MAX_BATCH * 16);
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..readers.max(1) {
            let db = db.clone();
            let rx = rx.clone();
            tokio::spawn(async move {
                let mut batch = Vec::with_capacity(MAX_BATCH);
                loop {
                    let mut queue = rx.lock().await;
                    if queue.recv_many(&mut batch, MAX_BATCH).await == 0 {
                        return;
                    }
                    crate::batch::fill(&mut queue, &mut batch, MAX_BATCH).await;
                    drop(queue);
                    let (keys, replies): (Vec<_>, Vec<_>) = batch.drain(..).unzip();
                    match store::for_sends(&db, &keys).await {
                        Ok(found) => {
                            for (reply, found) in replies.into_iter().zip(found) {
                                let _ = reply.send(Ok(found));
                            }
                        }
                        Err(err) => {
                            for reply in replies {
                                let _ = reply.send(Err(err.clone()));
                            }
                        }
                    }
                }
            });
        }
        TemplateReader {
            tx,
            kept: Arc::default(),
        }
    }

    /// What one send naming a template reads (see [`store::for_sends`]), read now.
    pub async fn read(&self, key: SendKey) -> AppResult<Option<ForSend>> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send((key, reply))
            .await
            .map_err(|_| AppError::shutting_down())?;
        answer.await.map_err(|_| AppError::shutting_down())?
    }

    /// The template row of `business_id` named `name` as last read, with its row version
    /// (PostgreSQL only): what a send decided from it must find unchanged when written.
    pub fn kept(&self, business_id: Uuid, name: &str) -> Option<KeptTemplate> {
        lock(&self.kept.rows)
            .get(&(business_id, name.to_string()))
            .cloned()
    }

    /// Keeps a template row read with its row version.
    pub fn keep(&self, template: &templates::Model, row_version: String) {
        let kept = KeptTemplate {
            template: template.clone(),
            row_version,
        };
        let key = (template.business_id, template.name.clone());
        keep(&mut lock(&self.kept.rows), key, kept);
    }

    /// The parsed definition of version `version` of template `id`, when kept.
    pub fn definition(&self, id: Uuid, version: i32) -> Option<Parsed> {
        lock(&self.kept.definitions).get(&(id, version)).cloned()
    }

    /// Keeps a version's parsed definition (versions never change).
    pub fn keep_definition(&self, id: Uuid, version: i32, definition: Parsed) {
        keep(&mut lock(&self.kept.definitions), (id, version), definition);
    }
}
