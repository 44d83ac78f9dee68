//! The queue of user messages to the group-commit writer (`intake.rs`), which `Core` holds:
//! callers do `core.inbound.write(message).await` with a well-formed message of a verified
//! token (`service::write`), and get their own answer after the commit of the batch that
//! carried it.
//! The intake's tasks take from the queue while the core serves: they need the whole core (the
//! job streams that `message.received` deliveries are handed to), and the core holds this.

use std::sync::Arc;

use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use crate::entities::inbound_messages;
use crate::error::{AppError, AppResult};

/// The most user messages one transaction holds.
pub const MAX_BATCH: usize = 256;

/// A well-formed user message of a verified access token, to be decided and written.
#[derive(Debug, Clone)]
pub struct Pending {
    pub business_id: Uuid,
    pub user_id: Uuid,
    pub client_id: Option<Uuid>,
    pub text: String,
    pub reply_to: Option<Uuid>,
}

/// What writing one user message came to: the message (new, or the one its client message id
/// already names), or why it was refused.
pub type Written = AppResult<inbound_messages::Model>;

/// Where a message's answer goes.
pub type Reply = oneshot::Sender<Written>;

/// The queue's receiving end, shared by the intake's tasks.
pub type Queue = Arc<Mutex<mpsc::Receiver<(Pending, Reply)>>>;

/// The handle callers use; cheap to clone.
#[derive(Clone)]
pub struct InboundWriter {
    tx: mpsc::Sender<(Pending, Reply)>,
    rx: Queue,
}

impl Default for InboundWriter {
    fn default() -> Self {
        let (tx, rx) = mpsc::channel(MAX_BATCH * 8);
        InboundWriter {
            tx,
            rx: Arc::new(Mutex::new(rx)),
        }
    }
}

impl InboundWriter {
    /// Queues one user message and answers after the commit that stores it (or after its
    /// refusal).
    pub async fn write(&self, message: Pending) -> Written {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send((message, reply))
            .await
            .map_err(|_| AppError::shutting_down())?;
        answer.await.map_err(|_| AppError::shutting_down())?
    }

    /// The receiving end, for the intake's tasks.
    pub fn queue(&self) -> Queue {
        self.rx.clone()
    }
}

/// What a kept message with the same client id answers: the original (same business and
/// text), else a conflict.
pub fn replay(
    existing: inbound_messages::Model,
    business_id: Uuid,
    text: &str,
) -> AppResult<inbound_messages::Model> {
    if existing.business_id == business_id && existing.body == text {
        Ok(existing)
    } else {
        Err(AppError::key_conflict())
    }
}
