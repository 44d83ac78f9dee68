//! Batched template reads for sends: concurrent sends naming templates share one query for the
//! template, the version they ask for and their recipient's language. Callers do
//! `core.template_reads.read(key).await`; the reader gathers what arrived while the previous
//! query ran and answers each caller with its own row. Nothing is kept between reads, so an
//! archive or a new version counts from the very next send, on every core.

use std::sync::Arc;

use sea_orm::DatabaseConnection;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::store::{self, ForSend, SendKey};
use crate::error::{AppError, AppResult};

/// The most sends one query reads for.
const MAX_BATCH: usize = 64;

type Request = (SendKey, oneshot::Sender<AppResult<Option<ForSend>>>);

#[derive(Clone)]
pub struct TemplateReader {
    tx: mpsc::Sender<Request>,
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
        TemplateReader { tx }
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
}
