//! Group commit for user messages, as `messaging/writer.rs` has it for sends: the tasks take
//! what arrived in the queue (`writer.rs`) while the previous batch was being written and
//! store it in one transaction, the statements of which carry the whole batch (the
//! conversations locked and moved, the limit rows, the messages, their `message.received`
//! events and deliveries, the usage counters). Deliveries go to this core's job streams as
//! the send outcomes' do (`webhooks::fanout`): written leased, handed over after the commit.
//!
//! A batch holds one message per (business, user) pair and per client message id of a user: a
//! pair's next message (a retry of the same `client_message_id` among them) waits for the next
//! batch, where it sees the first one committed. Every rule but the shape and `reply_to` is
//! decided here, message by message, so one message's refusal never fails another's: the
//! token's user and the business (read for the whole batch in one statement), the replay of a
//! client message id, who may write, and under the conversation's lock the block, the per-user
//! limit and the `sequence`.
//!
//! The write runs in the intake's task, never in the caller's: a client that goes away cannot
//! cancel a transaction half-way, and a message is acknowledged only after its commit.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use proto::ErrorCode;
use proto::vocabulary::{ConversationStatus, EventType};
use sea_orm::TransactionTrait;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::store;
use super::writer::{MAX_BATCH, Pending, Queue, Reply, Written, replay};
use crate::clock::rfc3339;
use crate::entities::{conversations, inbound_messages};
use crate::error::{AppError, AppResult};
use crate::events::NewEvent;
use crate::limits::Rate;
use crate::state::Core;
use crate::usage::Tally;
use crate::webhooks::fanout;

/// Runs the intake's tasks (`Tuning::send_writers` of them, sharing the queue: while one
/// commits, the next gathers a batch) until `stop` fires, then writes what is still queued.
/// Fire `stop` once nothing can queue more (the gRPC server has stopped).
pub async fn run(core: Arc<Core>, stop: CancellationToken) {
    let tasks: Vec<_> = (0..core.tuning.send_writers.max(1))
        .map(|_| {
            let task = Task {
                core: core.clone(),
                rx: core.inbound.queue(),
                carried: VecDeque::new(),
            };
            tokio::spawn(task.run(stop.clone()))
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

struct Task {
    core: Arc<Core>,
    rx: Queue,
    /// Messages whose pair was already in the batch being written: they go in the next one.
    carried: VecDeque<(Pending, Reply)>,
}

impl Task {
    async fn run(mut self, stop: CancellationToken) {
        let mut incoming = Vec::with_capacity(MAX_BATCH);
        loop {
            let carried = self.carried.len();
            if !crate::batch::gather(
                &self.rx,
                carried,
                &mut incoming,
                MAX_BATCH,
                stop.cancelled(),
            )
            .await
            {
                return;
            }
            let mut batch = Vec::with_capacity(MAX_BATCH);
            let mut pairs: HashSet<(Uuid, Uuid)> = HashSet::new();
            let mut client_ids: HashSet<(Uuid, Uuid)> = HashSet::new();
            let carried = std::mem::take(&mut self.carried);
            for (message, reply) in carried.into_iter().chain(incoming.drain(..)) {
                if reply.is_closed() && message.client_id.is_none() {
                    // Nobody waits for it and nothing could replay it: not accepting is safe.
                    continue;
                }
                // One message per pair, and per client message id of a user (the same id to
                // two businesses at once: the second sees the first and answers the conflict).
                let pair = (message.business_id, message.user_id);
                let key = message.client_id.map(|id| (message.user_id, id));
                if batch.len() < MAX_BATCH
                    && !pairs.contains(&pair)
                    && key.is_none_or(|key| !client_ids.contains(&key))
                {
                    pairs.insert(pair);
                    client_ids.extend(key);
                    batch.push((message, reply));
                } else {
                    self.carried.push_back((message, reply));
                }
            }
            if batch.is_empty() {
                continue;
            }
            self.write(batch).await;
        }
    }

    async fn write(&self, batch: Vec<(Pending, Reply)>) {
        let (messages, replies): (Vec<Pending>, Vec<Reply>) = batch.into_iter().unzip();
        match self.commit(&messages).await {
            Ok(answers) => {
                for (reply, answer) in replies.into_iter().zip(answers) {
                    let _ = reply.send(answer);
                }
            }
            Err(err) if messages.len() > 1 && err.code != ErrorCode::ServiceUnavailable => {
                // The shared transaction failed: none of them is stored. Try each on its own so
                // one bad message (or a deadlock victim) does not fail the others.
                tracing::warn!(error = %err, messages = messages.len(), "user message batch failed; writing one by one");
                for (message, reply) in messages.into_iter().zip(replies) {
                    let answer = match self.commit(std::slice::from_ref(&message)).await {
                        Ok(mut answers) => answers.pop().unwrap_or_else(|| {
                            Err(AppError::internal("a user message left unanswered"))
                        }),
                        Err(err) => Err(err),
                    };
                    let _ = reply.send(answer);
                }
            }
            Err(err) => {
                // The database is away (or this was one message): each waiting request gets
                // the answer now.
                for reply in replies {
                    let _ = reply.send(Err(err.clone()));
                }
            }
        }
    }

    /// Writes `messages` (one per pair) in one transaction: each one's answer, or the failure
    /// that stored none of them.
    async fn commit(&self, messages: &[Pending]) -> AppResult<Vec<Written>> {
        let core = &self.core;
        // Room on this core's job streams for the deliveries the batch may queue (each message
        // one `message.received`), planned before the transaction like the send outcomes'.
        let outcomes: Vec<fanout::Outcome> = messages
            .iter()
            .map(|m| fanout::Outcome {
                business_id: m.business_id,
                event_type: EventType::MessageReceived,
                emits_event: true,
                broadcast: false,
            })
            .collect();
        let plan = fanout::plan(core, &outcomes).await?;
        match self.commit_planned(messages, &plan).await {
            Ok((answers, written)) => {
                fanout::committed(core, plan, Some(written), false).await;
                Ok(answers)
            }
            Err(err) => {
                fanout::committed(core, plan, None, false).await;
                Err(err)
            }
        }
    }

    async fn commit_planned(
        &self,
        messages: &[Pending],
        plan: &fanout::Plan,
    ) -> AppResult<(Vec<Written>, fanout::Written)> {
        let core = &self.core;
        let now = core.clock.now();
        let txn = core.db.begin().await?;
        let mut answers: Vec<Option<Written>> = vec![None; messages.len()];

        // The writers and their businesses, for the whole batch in one statement: the token's
        // user admitted, the business found.
        let pair = |i: usize| (messages[i].business_id, messages[i].user_id);
        let pairs: Vec<(Uuid, Uuid)> = (0..messages.len()).map(pair).collect();
        let contexts = store::writer_contexts(&txn, &pairs).await?;
        let mut businesses: Vec<Option<&store::BusinessSide>> = vec![None; messages.len()];
        for (i, key) in pairs.iter().enumerate() {
            match super::service::admitted(contexts.get(key)) {
                Ok(business) => businesses[i] = Some(business),
                Err(err) => answers[i] = Some(Err(err)),
            }
        }

        // The replay of a client message id, under its lock (another core may be writing it):
        // the batch's locks taken, then its ids read, one statement each.
        let keyed: Vec<(usize, (Uuid, Uuid))> = messages
            .iter()
            .enumerate()
            .filter(|(i, _)| answers[*i].is_none())
            .filter_map(|(i, m)| m.client_id.map(|id| (i, (m.user_id, id))))
            .collect();
        let keys: Vec<(Uuid, Uuid)> = keyed.iter().map(|(_, key)| *key).collect();
        let in_progress = store::try_lock_client_ids(&txn, &keys).await?;
        let mut kept = store::by_client_ids(&txn, &keys).await?;
        for (i, key) in keyed {
            if in_progress.contains(&key) {
                answers[i] = Some(Err(AppError::key_in_progress()));
            } else if let Some(existing) = kept.remove(&key) {
                answers[i] = Some(replay(existing, messages[i].business_id, &messages[i].text));
            }
        }

        // Who may write.
        for (i, business) in businesses.iter().enumerate() {
            if answers[i].is_none()
                && let Some(business) = business
                && let Err(err) = super::service::may_write(business)
            {
                answers[i] = Some(Err(err));
            }
        }

        // The conversations, locked in a fixed order; a pair's first one created.
        let open: Vec<usize> = (0..messages.len())
            .filter(|&i| answers[i].is_none())
            .collect();
        let mut held = store::pairs_for_update(&txn, open.iter().map(|&i| pair(i))).await?;
        let mut fresh: Vec<conversations::Model> = open
            .iter()
            .map(|&i| pair(i))
            .filter(|p| !held.contains_key(p))
            .map(|(business_id, user_id)| conversations::Model {
                id: Uuid::now_v7(),
                business_id,
                user_id,
                status: ConversationStatus::Open,
                blocked: false,
                label: None,
                assigned_to: None,
                inbound_count: 0,
                business_read_seq: 0,
                created_at: now,
                last_message_at: now,
                last_inbound_at: now,
            })
            .collect();
        if !fresh.is_empty() {
            fresh.sort_by_key(|c| (c.business_id, c.user_id));
            store::insert_new_many(&txn, &fresh).await?;
            // Those a concurrent first message created meanwhile are read as it committed them.
            held.extend(
                store::pairs_for_update(&txn, fresh.iter().map(|c| (c.business_id, c.user_id)))
                    .await?,
            );
        }

        // The block, then the per-user limit.
        let mut limited = Vec::with_capacity(open.len());
        for &i in &open {
            match held.get(&pair(i)) {
                None => {
                    answers[i] = Some(Err(AppError::internal(
                        "a conversation neither found nor created",
                    )))
                }
                Some(conversation) if conversation.blocked => answers[i] = Some(Err(blocked())),
                Some(_) => limited.push(i),
            }
        }
        let keys: Vec<String> = limited
            .iter()
            .map(|&i| limit_key(messages[i].business_id, messages[i].user_id))
            .collect();
        let rate = Rate::per(core.limits.inbound_per_minute, Duration::from_secs(60));
        let taken = crate::limits::take_each_in(&txn, &keys, rate, now.timestamp_micros()).await?;

        // The messages, their conversations' moves, their events and counts.
        let mut tally = Tally::new();
        let now_ms = now.timestamp_millis();
        let mut accepted: Vec<(usize, inbound_messages::Model)> = Vec::new();
        let mut moved: Vec<store::Received> = Vec::new();
        let mut events: Vec<NewEvent> = Vec::new();
        for (&i, taken) in limited.iter().zip(taken) {
            let message = &messages[i];
            if let Err(wait) = taken {
                crate::limits::count_refusal("inbound_per_user");
                answers[i] = Some(Err(AppError::retry_after(
                    ErrorCode::RateLimited,
                    wait,
                    "INBOUND_PER_MINUTE: too many messages to this business",
                )));
                continue;
            }
            let conversation = &held[&pair(i)];
            let last = (conversation.inbound_count > 0).then_some(conversation.last_inbound_at);
            let at: DateTime<Utc> = store::receipt_time(now, last);
            let kept = inbound_messages::Model {
                // Aged by `received_at`: see `clock::id_at`.
                id: crate::clock::id_at(at),
                conversation_id: conversation.id,
                business_id: message.business_id,
                user_id: message.user_id,
                sequence: conversation.inbound_count + 1,
                body: message.text.clone(),
                reply_to: message.reply_to,
                client_message_id: message.client_id,
                received_at: at,
            };
            tally.received(message.business_id, now_ms);
            if conversation.inbound_count == conversation.business_read_seq {
                tally.unread_conversations(message.business_id, 1);
            }
            moved.push(store::Received {
                id: conversation.id,
                inbound_count: kept.sequence,
                last_inbound_at: at,
                last_message_at: Ord::max(conversation.last_message_at, at),
            });
            events.push(NewEvent {
                business_id: message.business_id,
                event_type: EventType::MessageReceived,
                data: received_data(core, &kept),
                broadcast: false,
            });
            accepted.push((i, kept));
        }
        let mut written = fanout::Written::default();
        if !accepted.is_empty() {
            store::received_many(&txn, &moved).await?;
            store::insert_inbound_many(&txn, accepted.iter().map(|(_, m)| m)).await?;
            // Endpoints the plan took from the cache are checked by no statement here: the
            // recording reads them itself then.
            let endpoints = plan.endpoints().filter(|_| plan.check().is_none());
            let (queued, leased) = crate::events::record_many_leased(
                &txn,
                events,
                now,
                &mut tally,
                plan.lease(),
                endpoints,
            )
            .await?;
            written = fanout::Written { leased, queued };
        }
        tally.apply(&txn).await?;
        txn.commit().await?;
        metrics::counter!("messages_received_total").increment(accepted.len() as u64);
        for (i, kept) in accepted {
            answers[i] = Some(Ok(kept));
        }
        let answers = answers
            .into_iter()
            .map(|a| a.unwrap_or_else(|| Err(AppError::internal("a user message left unanswered"))))
            .collect();
        Ok((answers, written))
    }
}

/// The `message.received` event of a user message.
fn received_data(core: &Core, message: &inbound_messages::Model) -> serde_json::Value {
    serde_json::json!({
        "message_id": message.id,
        "conversation_id": message.conversation_id,
        "user_id": message.user_id,
        "sequence": message.sequence,
        "body": message.body,
        "reply_to": message.reply_to,
        "received_at": rfc3339(message.received_at),
        "window_expires_at": rfc3339(super::service::window_expires_at(core, message.received_at)),
    })
}

fn blocked() -> AppError {
    AppError::new(
        ErrorCode::ConversationBlocked,
        "this business does not accept your messages",
    )
}

/// The per-user limit's key of a (business, user) pair.
fn limit_key(business_id: Uuid, user_id: Uuid) -> String {
    format!("inbound:{business_id}:{user_id}")
}
