//! Group commit for accepted sends (DESIGN.md, "Group commit"). Callers do
//! `core.sends.write(send).await` and get their own answer; the writer gathers the sends that
//! arrived while the previous batch was being written, stores them in one transaction (one
//! multi-row statement per table) and answers each caller after the commit. The rules live in
//! `service.rs`; this module knows nothing of consent or scopes.
//!
//! The write runs in the writer's task, never in the caller's: a client that goes away cannot
//! cancel a transaction half-way, and a send is acknowledged only after its commit.
//!
//! The hand-off: while this core's dispatcher has room in its queue, a batch writes the outbox
//! rows of its single sends due now already leased to that dispatcher, and hands the messages
//! to it in memory after the commit, so the dispatcher neither leases nor reads them back. The
//! lease is an ordinary outbox lease: if this core dies before handing them out, they are due
//! again when it lapses, like any leased row.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use sea_orm::DatabaseConnection;
use tokio::sync::{Mutex, mpsc, oneshot};
use uuid::Uuid;

use super::store::{self, Batch, NewSend, OutboxLease, Written};
use crate::clock::SharedClock;
use crate::entities::messages;
use crate::error::{AppError, AppResult};

/// The most sends one transaction holds.
const MAX_BATCH: usize = 256;

type Reply = oneshot::Sender<AppResult<Written>>;

/// A message handed to this core's dispatcher, its outbox row leased to it until
/// `lease_until_ms`.
#[derive(Debug)]
pub struct Handed {
    pub message: messages::Model,
    pub lease_until_ms: i64,
}

/// Where accepted messages are handed, once this core's dispatcher has opened it.
#[derive(Clone)]
struct Handoff {
    tx: mpsc::Sender<Handed>,
    owner: Arc<str>,
    lease: Duration,
}

type HandoffSlot = Arc<std::sync::Mutex<Option<Handoff>>>;

/// The handle callers use; cheap to clone.
#[derive(Clone)]
pub struct SendWriter {
    tx: mpsc::Sender<(NewSend, Reply)>,
    handoff: HandoffSlot,
}

impl SendWriter {
    /// Starts `writers` tasks sharing one queue: while one commits, the next gathers a batch.
    pub fn spawn(db: DatabaseConnection, clock: SharedClock, writers: usize) -> SendWriter {
        let (tx, rx) = mpsc::channel(MAX_BATCH * 8);
        let rx = Arc::new(Mutex::new(rx));
        let handoff = HandoffSlot::default();
        for _ in 0..writers.max(1) {
            let task = Task {
                db: db.clone(),
                clock: clock.clone(),
                rx: rx.clone(),
                carried: VecDeque::new(),
                handoff: handoff.clone(),
            };
            tokio::spawn(task.run());
        }
        SendWriter { tx, handoff }
    }

    /// Called by this core's dispatcher: from now on, up to `capacity` accepted single sends
    /// at a time are leased to `owner` for `lease` when written and handed over on the
    /// returned queue. Closing (or dropping) the queue ends the hand-off; messages written
    /// meanwhile are left due for any dispatcher.
    pub fn open_handoff(
        &self,
        owner: &str,
        lease: Duration,
        capacity: usize,
    ) -> mpsc::Receiver<Handed> {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        *self.handoff.lock().expect("hand-off slot") = Some(Handoff {
            tx,
            owner: owner.into(),
            lease,
        });
        rx
    }

    /// Stores one send (with its key claim and exact limit) and answers after the commit.
    pub async fn write(&self, send: NewSend) -> AppResult<Written> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send((send, reply))
            .await
            .map_err(|_| AppError::shutting_down())?;
        answer.await.map_err(|_| AppError::shutting_down())?
    }
}

struct Task {
    db: DatabaseConnection,
    clock: SharedClock,
    rx: Arc<Mutex<mpsc::Receiver<(NewSend, Reply)>>>,
    /// Sends whose key was already in the batch being written: they go in the next one, where
    /// they see the first one's committed key.
    carried: VecDeque<(NewSend, Reply)>,
    handoff: HandoffSlot,
}

impl Task {
    async fn run(mut self) {
        let mut incoming = Vec::with_capacity(MAX_BATCH);
        loop {
            let (carried, forever) = (self.carried.len(), std::future::pending());
            if !crate::batch::gather(&self.rx, carried, &mut incoming, MAX_BATCH, forever).await {
                return;
            }
            let mut batch: Vec<(NewSend, Reply)> = Vec::with_capacity(MAX_BATCH);
            let mut keys: HashSet<(Uuid, String)> = HashSet::new();
            let carried = std::mem::take(&mut self.carried);
            for (send, reply) in carried.into_iter().chain(incoming.drain(..)) {
                if reply.is_closed() && send.key.is_none() {
                    // Nobody waits for it and nothing could replay it: not accepting is safe.
                    continue;
                }
                let fresh = match &send.key {
                    Some(claim) => keys.insert((send.message.business_id, claim.key.clone())),
                    None => true,
                };
                if fresh {
                    batch.push((send, reply));
                } else {
                    self.carried.push_back((send, reply));
                }
            }
            if batch.is_empty() {
                continue;
            }
            self.write(batch).await;
        }
    }

    async fn write(&self, batch: Vec<(NewSend, Reply)>) {
        let (sends, replies): (Vec<NewSend>, Vec<Reply>) = batch.into_iter().unzip();
        let Batch {
            written,
            handed: _,
            error,
        } = self.commit(&sends).await;
        // What was stored is answered; what a failure left unstored is tried again or refused.
        let mut unstored = Vec::new();
        for ((send, reply), w) in sends.into_iter().zip(replies).zip(written) {
            match w {
                Some(w) => {
                    let _ = reply.send(Ok(w));
                }
                None => unstored.push((send, reply)),
            }
        }
        let Some(err) = error else {
            return;
        };
        if unstored.len() > 1 && err.code != proto::ErrorCode::ServiceUnavailable {
            // The shared transaction failed: none of those sends is stored. Try each on its
            // own so one bad send (or a deadlock victim) does not fail the others.
            tracing::warn!(error = %err, sends = unstored.len(), "batch write failed; writing one by one");
            for (send, reply) in unstored {
                let one = self.commit(std::slice::from_ref(&send)).await;
                let answer = match (one.written.into_iter().next().flatten(), one.error) {
                    (Some(w), _) => Ok(w),
                    (None, Some(err)) => Err(err),
                    (None, None) => Err(AppError::internal("a send left unanswered")),
                };
                let _ = reply.send(answer);
            }
        } else {
            // The database is away (or this was one send): each waiting request gets the
            // answer now, not after one more wait for the pool per send.
            for (_, reply) in unstored {
                let _ = reply.send(Err(err.clone()));
            }
        }
    }

    async fn commit(&self, sends: &[NewSend]) -> Batch {
        let now_ms = self.clock.now_ms();
        // Room in the dispatcher's queue is reserved before the transaction, so every message
        // written leased has its place; what the batch does not use is given back.
        let handoff = self.handoff.lock().expect("hand-off slot").clone();
        let reserved = handoff.as_ref().and_then(|h| {
            let room = h.tx.capacity().min(sends.len());
            (room > 0)
                .then(|| h.tx.try_reserve_many(room).ok())
                .flatten()
                .map(|permits| (h, permits))
        });
        let lease = reserved.as_ref().map(|(h, permits)| OutboxLease {
            owner: &h.owner,
            until_ms: now_ms + h.lease.as_millis() as i64,
            room: permits.len(),
        });
        let batch = store::write_batch(&self.db, sends, now_ms, lease).await;
        if let (Some((_, permits)), Some(lease)) = (reserved, lease) {
            for (permit, &i) in permits.zip(&batch.handed) {
                permit.send(Handed {
                    message: sends[i].message.clone(),
                    lease_until_ms: lease.until_ms,
                });
            }
        }
        batch
    }
}
