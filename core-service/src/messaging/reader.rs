//! Batched reads for app-token sends: concurrent sends share one query for the checks' reads
//! (app by token, business, owner, recipient, follow). Callers do
//! `core.send_reads.read(hash, to).await`; the reader gathers what arrived while the previous
//! query ran and answers each caller with its own row.
//!
//! On PostgreSQL each context read is also kept, with its rows' versions, for the next send of
//! the same token to the same number ([`ContextReader::cached`]). A send decided from a kept
//! context is written only if those rows are still at those versions, checked by the writing
//! statement itself (`store::ContextCheck`); anything else (a changed row, any refusal) is
//! decided again from a fresh read. So a rotated or deleted token, a suspended business or a
//! withdrawn follow still counts from the very next request, on every core.

use std::collections::HashMap;
use std::sync::Arc;

use sea_orm::DatabaseConnection;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::store::{self, AppSendContext};
use crate::error::{AppError, AppResult};

/// The most sends one query reads for.
const MAX_BATCH: usize = 64;

type Request = (
    (String, Option<String>),
    oneshot::Sender<AppResult<Option<AppSendContext>>>,
);

#[derive(Clone)]
pub struct ContextReader {
    tx: mpsc::Sender<Request>,
    kept: Arc<Kept>,
}

/// The contexts last read, by (token hash, recipient number), PostgreSQL only (where they
/// carry versions to check).
#[derive(Default)]
struct Kept(std::sync::Mutex<HashMap<(String, String), AppSendContext>>);

/// The most contexts kept; when full, the store starts again empty.
const KEPT: usize = 10_000;

impl Kept {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), AppSendContext>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ContextReader {
    /// Starts `readers` tasks sharing one queue.
    pub fn spawn(db: DatabaseConnection, readers: usize) -> ContextReader {
        let (tx, rx) = mpsc::channel::<Request>(MAX_BATCH * 16);
        let rx = Arc::new(Mutex::new(rx));
        let kept = Arc::new(Kept::default());
        for _ in 0..readers.max(1) {
            let db = db.clone();
            let rx = rx.clone();
            let kept = kept.clone();
            tokio::spawn(async move {
                let mut batch = Vec::with_capacity(MAX_BATCH);
                loop {
                    let mut queue = rx.lock().await;
                    if queue.recv_many(&mut batch, MAX_BATCH).await == 0 {
                        return;
                    }
                    crate::batch::fill(&mut queue, &mut batch, MAX_BATCH).await;
                    drop(queue);
                    let (requests, replies): (Vec<_>, Vec<_>) = batch.drain(..).unzip();
                    match store::app_send_contexts(&db, &requests).await {
                        Ok(contexts) => {
                            kept.keep(&requests, &contexts);
                            for (reply, context) in replies.into_iter().zip(contexts) {
                                let _ = reply.send(Ok(context));
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
        ContextReader { tx, kept }
    }

    /// The context last read for this token and number, if kept: to be used only for a send
    /// whose write checks it (its `version`), and forgotten when anything decided from it
    /// differs from a fresh read.
    pub fn cached(&self, token_hash: &str, to: &str) -> Option<AppSendContext> {
        self.kept
            .map()
            .get(&(token_hash.to_string(), to.to_string()))
            .cloned()
    }

    /// Drops the kept context of this token and number.
    pub fn forget(&self, token_hash: &str, to: &str) {
        self.kept
            .map()
            .remove(&(token_hash.to_string(), to.to_string()));
    }

    /// The context of one app-token send (None for an unknown token), read now.
    pub async fn read(
        &self,
        token_hash: String,
        to: Option<String>,
    ) -> AppResult<Option<AppSendContext>> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(((token_hash, to), reply))
            .await
            .map_err(|_| AppError::shutting_down())?;
        answer.await.map_err(|_| AppError::shutting_down())?
    }
}

impl Kept {
    /// Keeps the contexts read with versions (PostgreSQL) for a named recipient.
    fn keep(&self, requests: &[(String, Option<String>)], contexts: &[Option<AppSendContext>]) {
        let mut map = None;
        for ((hash, to), context) in requests.iter().zip(contexts) {
            let (Some(to), Some(context)) = (to, context) else {
                continue;
            };
            if context.version.is_none() {
                continue;
            }
            let map = map.get_or_insert_with(|| self.map());
            if map.len() >= KEPT {
                map.clear();
            }
            map.insert((hash.clone(), to.clone()), context.clone());
        }
    }
}
