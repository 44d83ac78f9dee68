//! The benchmark's `erasure` phase: a user with `--erasure-messages` delivered messages (each
//! with its inbox copy) over `--erasure-businesses` businesses they follow is erased
//!
//! - alone: the time until the erasure completes, and the rows it changed per second;
//! - beside a closed loop of sends: `--erasure-pairs` pairs of closed loops, one without an
//!   erasure running and one with one running (a fresh user each; which runs first alternates),
//!   and the ratio of their accepted sends per second (the median of the pairs).
//!
//!     bench --db postgres --external --phases erasure

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{TimeDelta, Utc};
use core_service::clock::id_at;
use core_service::entities::{follows, inbox_messages, messages};
use proto::v1 as pb;
use proto::vocabulary::{Category, FollowStatus, MessageSource, MessageStatus};
use sea_orm::{EntityTrait, Set, TransactionTrait};
use uuid::Uuid;

use crate::harness::TestApp;
use crate::{Load, closed_loop};

/// What the erasure phase is told.
pub struct ErasureArgs {
    pub messages: u64,
    pub businesses: u32,
    pub pairs: usize,
    pub connections: usize,
    pub duration: Duration,
}

/// The seeded businesses: (id, app id).
type Businesses = Vec<(Uuid, Uuid)>;

pub async fn run(app: &TestApp, load: Arc<Load>, args: &ErasureArgs) {
    let businesses = businesses(app, args.businesses).await;
    println!(
        "\n== erasure: a user with {} messages over {} businesses ==",
        args.messages, args.businesses
    );
    let user = victim(app, &businesses, args.messages, 0).await;
    let started = Instant::now();
    let erasure = erase(app, user).await;
    let done = wait_completed(app, &erasure.erasure_id).await;
    let took = started.elapsed().as_secs_f64();
    println!(
        "erasure alone: {} rows in {took:.1} s = {:.0} rows/s ({} businesses told)",
        done.rows,
        done.rows as f64 / took,
        done.businesses
    );

    println!(
        "\n== erasure beside a closed loop, {} connections, {} s each, {} pairs ==",
        args.connections,
        args.duration.as_secs(),
        args.pairs
    );
    let mut ratios = Vec::with_capacity(args.pairs);
    for pair in 0..args.pairs {
        let user = victim(app, &businesses, args.messages, pair as u32 + 1).await;
        let closed = async |tag: &str| {
            rate(
                &closed_loop(
                    load.clone(),
                    args.connections,
                    args.duration,
                    &format!("erasure-{tag}-{pair}"),
                )
                .await,
            )
        };
        // Alternated: the run without first in even pairs, the run with first in odd ones (a
        // run with an erasure starts it and ends while it still runs; the next run waits for
        // it to complete).
        let (without, with, during) = if pair % 2 == 0 {
            let without = closed("without").await;
            let erasure = erase(app, user).await;
            let with = closed("with").await;
            let during = get(app, &erasure.erasure_id).await;
            wait_completed(app, &erasure.erasure_id).await;
            (without, with, during)
        } else {
            let erasure = erase(app, user).await;
            let with = closed("with").await;
            let during = get(app, &erasure.erasure_id).await;
            wait_completed(app, &erasure.erasure_id).await;
            (closed("without").await, with, during)
        };
        let ratio = with / without;
        println!(
            "pair {}: without {without:.0} sends/s, with {with:.0} sends/s = {ratio:.3} \
             (the erasure {} at the end of its run, {} rows)",
            pair + 1,
            during.status,
            during.rows
        );
        ratios.push(ratio);
    }
    ratios.sort_by(f64::total_cmp);
    if let Some(median) = ratios.get(ratios.len() / 2) {
        println!(
            "erasure beside sends: median ratio {median:.3} over {} pairs",
            ratios.len()
        );
    }
}

fn rate(result: &crate::PhaseResult) -> f64 {
    result.accepted.len() as f64 / (result.ended - result.started).as_secs_f64()
}

async fn businesses(app: &TestApp, n: u32) -> Businesses {
    let mut admin = app.admin().await;
    let mut made = Vec::new();
    for _ in 0..n {
        let demo = admin
            .create_demo(app.admin_request(pb::CreateDemoRequest {
                confirm: true,
                followers: Some(1),
            }))
            .await
            .expect("admin demo")
            .into_inner();
        made.push((
            demo.business_account_id.parse().unwrap(),
            demo.app_id.parse().unwrap(),
        ));
    }
    made
}

/// A new user following every business, with `total` delivered messages spread over them (a
/// thousand per transaction, each with its inbox copy). Returns the user's id.
async fn victim(app: &TestApp, businesses: &Businesses, total: u64, round: u32) -> Uuid {
    let started = Instant::now();
    let phone = format!("+1415777{round:04}");
    let id: Uuid = app
        .admin()
        .await
        .create_user(app.admin_request(pb::CreateUserRequest {
            phone_number: phone.clone(),
        }))
        .await
        .expect("create user")
        .into_inner()
        .id
        .parse()
        .unwrap();
    let db = &app.core.db;
    let now = Utc::now();
    follows::Entity::insert_many(businesses.iter().map(|(business, _)| follows::ActiveModel {
        business_id: Set(*business),
        user_id: Set(id),
        status: Set(FollowStatus::Active),
        marketing_opt_in: Set(false),
        followed_at: Set(Some(now)),
        updated_at: Set(Some(now)),
    }))
    .exec_without_returning(db)
    .await
    .unwrap();
    let mut written = 0;
    while written < total {
        let batch = 1000.min(total - written);
        let mut rows = Vec::with_capacity(batch as usize);
        let mut inbox = Vec::with_capacity(batch as usize);
        for i in written..written + batch {
            let created_at = now - TimeDelta::seconds((total - i) as i64);
            let message = id_at(created_at);
            let (business, app_id) = businesses[i as usize % businesses.len()];
            let body = format!("Your order {i} shipped");
            rows.push(messages::ActiveModel {
                id: Set(message),
                business_id: Set(business),
                source: Set(MessageSource::App),
                app_id: Set(Some(app_id)),
                sender_user_id: Set(None),
                recipient_user_id: Set(id),
                to_phone: Set(phone.clone()),
                category: Set(Category::Utility),
                body: Set(Some(body.clone())),
                message_content: Set(None),
                status: Set(MessageStatus::Delivered),
                failure_reason: Set(None),
                emits_event: Set(true),
                created_at: Set(created_at),
                completed_at: Set(Some(created_at)),
                send_at: Set(None),
                expires_at: Set(None),
                broadcast_id: Set(None),
                conversation_id: Set(None),
                reply_to: Set(None),
                template: Set(None),
            });
            inbox.push(inbox_messages::ActiveModel {
                message_id: Set(message),
                user_id: Set(id),
                business_id: Set(business),
                category: Set(Category::Utility),
                body: Set(Some(body)),
                message_content: Set(None),
                delivered_at: Set(created_at),
            });
        }
        let txn = db.begin().await.unwrap();
        messages::Entity::insert_many(rows)
            .exec_without_returning(&txn)
            .await
            .unwrap();
        inbox_messages::Entity::insert_many(inbox)
            .exec_without_returning(&txn)
            .await
            .unwrap();
        txn.commit().await.unwrap();
        written += batch;
    }
    println!(
        "a user with {total} messages and their inbox copies seeded in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    id
}

async fn erase(app: &TestApp, user: Uuid) -> pb::Erasure {
    app.privacy()
        .await
        .erase_user(app.admin_request(pb::EraseUserRequest {
            user_id: Some(user.to_string()),
            phone_number: None,
        }))
        .await
        .expect("erase user")
        .into_inner()
}

async fn get(app: &TestApp, id: &str) -> pb::Erasure {
    app.privacy()
        .await
        .get_erasure(app.admin_request(pb::GetErasureRequest { id: id.to_string() }))
        .await
        .expect("get erasure")
        .into_inner()
}

async fn wait_completed(app: &TestApp, id: &str) -> pb::Erasure {
    loop {
        let erasure = get(app, id).await;
        if erasure.status == "completed" {
            return erasure;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
