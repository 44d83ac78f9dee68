//! Batched reads for app-token sends: concurrent sends share one query for the checks' reads
//! (app by token, business, owner, recipient, follow). Callers do
//! `core.send_reads.read(hash, to).await`; the reader gathers what arrived while the previous
//! query ran and answers each caller with its own row. Nothing is cached: every send reads the
//! database, so a rotated or deleted token fails on its very next request, on every core.

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
}

impl ContextReader {
    /// Starts `readers` tasks sharing one queue.
    pub fn spawn(db: DatabaseConnection, readers: usize) -> ContextReader {
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
                    let (requests, replies): (Vec<_>, Vec<_>) = batch.drain(..).unzip();
                    match store::app_send_contexts(&db, &requests).await {
                        Ok(contexts) => {
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
        ContextReader { tx }
    }

    /// The context of one app-token send (None for an unknown token).
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
