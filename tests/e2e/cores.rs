//! Several cores: the picker behind `CORE_URL` (a call reaching a live core while another
//! address refuses connections; a recovered core taking calls again), and a closed job
//! stream's two cases (a worker gone: its jobs due at once; a core shutting down: the worker's
//! report accepted by another core), and a worker back from a core that is gone getting at once
//! the jobs that core leased to it and never sent.

use std::time::Duration;

use core_service::clock::Clock as _;
use core_service::entities::webhook_deliveries;
use futures::StreamExt;
use proto::v1 as pb;
use proto::v1::webhook_job_service_client::WebhookJobServiceClient;
use sea_orm::EntityTrait;

use crate::e2e;
use crate::fixtures::jobs::*;
use crate::fixtures::proxy::Proxy;
use crate::fixtures::*;
use crate::harness::{TestApp, eventually, quiet_for};

const BIZ: &str = "+14155550170";
const FAN: &str = "+14155550171";

/// A port on loopback that refuses connections.
async fn refused_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

fn core_addr(app: &TestApp) -> std::net::SocketAddr {
    app.grpc_url
        .trim_start_matches("http://")
        .parse()
        .expect("a plain http core URL")
}

/// A business's owner reads their profile through `base`: a call that needs the core.
async fn me(app: &TestApp, base: &str, token: &str) -> u16 {
    app.request_at(base, reqwest::Method::GET, "/me", Some(token), None)
        .await
        .status
}

e2e!(
    a_call_reaches_the_live_core_when_another_listed_address_refuses_connections,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, token) = follower(&app, &biz, FAN, false).await;
        let (refused, refused_too) = (refused_url().await, refused_url().await);
        // Refusing addresses first and last: round robin sends calls to them in turn.
        let gateway = app
            .gateway_for(&format!("{refused},{},{refused_too}", app.grpc_url))
            .await;
        let gateway_fail = app.gateway_for(&refused).await;
        for _ in 0..9 {
            assert_eq!(me(&app, &gateway.base, &token).await, 200);
        }
        // A send, too (the body is sent again whole).
        for _ in 0..3 {
            app.request_at(
                &gateway.base,
                reqwest::Method::POST,
                &format!("/v1/{}/messages", biz.id),
                Some(&biz.app_token),
                Some(utility(FAN)),
            )
            .await
            .assert_ok(200);
        }
        let ready = app
            .request_at(&gateway.base, reqwest::Method::GET, "/readyz", None, None)
            .await;
        ready.assert_ok(200);
        // With no core reachable, 503 as before.
        app.request_at(
            &gateway_fail.base,
            reqwest::Method::GET,
            "/me",
            Some(&token),
            None,
        )
        .await
        .assert_error(503, "service_unavailable");
        app.request_at(
            &gateway_fail.base,
            reqwest::Method::GET,
            "/readyz",
            None,
            None,
        )
        .await
        .assert_error(503, "service_unavailable");
    }
);

e2e!(a_core_that_recovers_takes_calls_again, |app| async move {
    let (_, token) = app.user(FAN).await;
    let mut second = Proxy::start(core_addr(&app)).await;
    // Call by call (no turns), so that the calls below certainly reach the second address
    // while it is down and mark it so: with turns of a few milliseconds, hashed, a handful of
    // calls may all fall to the first, and then nothing probes the second.
    let gateway = app
        .gateway_with(&format!("{},{}", app.grpc_url, second.url()), |c| {
            c.core_turn_ms = 0
        })
        .await;
    eventually("the second address takes calls", async || {
        for _ in 0..4 {
            assert_eq!(me(&app, &gateway.base, &token).await, 200);
        }
        (second.connections() >= 1).then_some(())
    })
    .await;
    // It goes down: calls keep succeeding on the first (every other one tried on the second
    // first, which marks it down).
    second.down();
    quiet_for(Duration::from_millis(500)).await;
    for _ in 0..6 {
        assert_eq!(me(&app, &gateway.base, &token).await, 200);
    }
    let before = second.connections();
    // It comes back on the same address: the probe (every second) or a call finds it, and it
    // takes calls again.
    second.up().await;
    eventually("the recovered core takes calls again", async || {
        for _ in 0..4 {
            assert_eq!(me(&app, &gateway.base, &token).await, 200);
        }
        // One connection is the probe's; the next is the core's channel, taking calls.
        (second.connections() >= before + 2).then_some(())
    })
    .await;
    // Readiness holds throughout.
    app.request_at(&gateway.base, reqwest::Method::GET, "/readyz", None, None)
        .await
        .assert_ok(200);
});

/// How long `probe` takes to make its calls, at most, for them to fall in one turn of 1 s.
const WITHIN_ONE_TURN: Duration = Duration::from_millis(800);

e2e!(setting_core_turn_ms, |app| async move {
    let (_, token) = app.user(FAN).await;
    let (a, b) = (
        Proxy::start(core_addr(&app)).await,
        Proxy::start(core_addr(&app)).await,
    );
    let urls = format!("{},{}", a.url(), b.url());
    // Turns of a second: every call of a turn goes to one core, picked by the wall clock (turn
    // n to the address `core_of_turn(n)`, a fixed hash of n), so gateways turn together.
    let gateway = app.gateway_with(&urls, |c| c.core_turn_ms = 1000).await;
    let mut seen = [false; 2];
    eventually(
        "turns of 1 s send each turn's calls to one core, each core taking some turns",
        async || {
            // Start just after a turn begins, so that the calls fall in it.
            let now = unix_ms();
            tokio::time::sleep(Duration::from_millis(1000 - now % 1000 + 20)).await;
            let turn = unix_ms() / 1000;
            let before = (a.bytes_sent(), b.bytes_sent());
            let started = std::time::Instant::now();
            for _ in 0..4 {
                assert_eq!(me(&app, &gateway.base, &token).await, 200);
            }
            if started.elapsed() > WITHIN_ONE_TURN || unix_ms() / 1000 != turn {
                return None; // a slow machine: the calls ran into the next turn; again
            }
            let took = (a.bytes_sent() > before.0, b.bytes_sent() > before.1);
            let core = proto::cores::core_of_turn(turn, 2);
            let expected = (core == 0, core == 1);
            assert_eq!(took, expected, "turn {turn}: (first, second) took calls");
            seen[core] = true;
            (seen == [true, true]).then_some(())
        },
    )
    .await;
    // 0: call by call, each address taking every other call.
    let gateway = app.gateway_with(&urls, |c| c.core_turn_ms = 0).await;
    let before = (a.bytes_sent(), b.bytes_sent());
    for _ in 0..2 {
        assert_eq!(me(&app, &gateway.base, &token).await, 200);
    }
    assert!(
        a.bytes_sent() > before.0 && b.bytes_sent() > before.1,
        "two calls in a row, one to each core"
    );
});

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// One utility send whose `message.sent` delivery waits for a worker (none runs); returns its
/// delivery id.
async fn one_pending_delivery(app: &TestApp, receiver: &Receiver) -> uuid::Uuid {
    pending_deliveries(app, receiver, (BIZ, FAN), 1).await.1[0]
}

/// A worker's job stream on the core at `url`, and its first job.
async fn take_one_job(
    url: &str,
) -> (
    WebhookJobServiceClient<tonic::transport::Channel>,
    tonic::Streaming<pb::Job>,
    pb::Job,
) {
    let (client, mut stream) = open_stream(url, "test-worker", false, &[])
        .await
        .expect("a job stream");
    let job = next_job(&mut stream).await;
    (client, stream, job)
}

/// Waits (up to 20 s) for `stream` to end, as it does when its core stops.
async fn wait_end(stream: &mut tonic::Streaming<pb::Job>) {
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(Ok(_)) = stream.next().await {}
    })
    .await;
    assert!(ended.is_ok(), "the stream ends when its core stops");
}

e2e!(
    a_closed_job_stream_gives_its_unreported_jobs_back_at_once,
    |app| async move {
        let receiver = Receiver::start().await;
        let id = one_pending_delivery(&app, &receiver).await;
        let (client, stream, job) = take_one_job(&app.grpc_url).await;
        assert_eq!(job.delivery_id, id.to_string());
        let leased = delivery(&app, id).await;
        assert_eq!(
            leased.lease_token.as_deref(),
            Some(job.lease_token.as_str())
        );
        // The worker goes away without reporting (the clock never moves: nothing lapses).
        drop(stream);
        drop(client);
        let now_ms = app.clock.now().timestamp_millis();
        let released = eventually("the job is given back", async || {
            let row = delivery(&app, id).await;
            row.lease_token.is_none().then_some(row)
        })
        .await;
        assert!(
            released.next_attempt_at_ms <= now_ms,
            "due at once, not when the lease lapses"
        );
        assert_eq!(released.attempts, 0, "no attempt counted");
        assert_eq!(released.status.as_str(), "pending");
        // A worker gets it straight away: the same delivery, attempted once.
        app.start_worker();
        let got = receiver.wait_for(1).await;
        assert_eq!(got[0].header("x-service-delivery"), id.to_string());
        let done = eventually("the attempt is reported", async || {
            let row = delivery(&app, id).await;
            (row.status.as_str() == "succeeded").then_some(row)
        })
        .await;
        assert_eq!(done.attempts, 1);
    }
);

e2e!(
    a_core_shutting_down_keeps_the_leases_and_another_core_takes_the_report,
    |app| async move {
        let receiver = Receiver::start().await;
        let id = one_pending_delivery(&app, &receiver).await;
        let second = app.second_stack(|_| {}).await;
        let (_client, mut stream, job) = take_one_job(&second.grpc_url).await;
        assert_eq!(job.delivery_id, id.to_string());
        // The second core stops: the stream ends and the lease stays with the worker.
        drop(second);
        wait_end(&mut stream).await;
        quiet_for(Duration::from_millis(300)).await;
        let held = delivery(&app, id).await;
        assert_eq!(
            held.lease_token.as_deref(),
            Some(job.lease_token.as_str()),
            "a core shutting down gives nothing back"
        );
        // The worker reports through the other core, which accepts it: the lease is current.
        report_through(&app.grpc_url, vec![answered(&job, 204)]).await;
        let row = delivery(&app, id).await;
        assert_eq!(row.status.as_str(), "succeeded");
        assert_eq!(row.attempts, 1);
        assert!(row.lease_token.is_none());
        // Nobody attempts it again.
        app.start_worker();
        quiet_for(Duration::from_millis(500)).await;
        assert!(receiver.received().is_empty());
    }
);

e2e!(
    a_worker_back_from_a_core_that_is_gone_gets_the_jobs_it_never_received_at_once,
    |app| async move {
        let receiver = Receiver::start().await;
        let (_, ids) = pending_deliveries(&app, &receiver, (BIZ, FAN), 2).await;
        let (first, second_id) = (ids[0], ids[1]);
        // The worker's stream on a second core takes both jobs; then that core stops (as one
        // killed does, it gives nothing back). Say the worker got only the first.
        let second = app.second_stack(|_| {}).await;
        let (_client, mut stream) = open_stream(&second.grpc_url, "returning-worker", false, &[])
            .await
            .unwrap();
        let mut jobs = vec![next_job(&mut stream).await, next_job(&mut stream).await];
        jobs.sort_by_key(|j| j.delivery_id != first.to_string());
        let (held, unsent) = (jobs[0].clone(), jobs[1].clone());
        assert_eq!(unsent.delivery_id, second_id.to_string());
        drop(second);
        wait_end(&mut stream).await;
        for job in &jobs {
            let row = delivery(&app, job.delivery_id.parse().unwrap()).await;
            assert_eq!(row.lease_token.as_deref(), Some(job.lease_token.as_str()));
        }
        // A resumed stream of another worker gives back nothing of this one's.
        let (_other, _other_stream) = open_stream(&app.grpc_url, "another-worker", true, &[])
            .await
            .unwrap();
        quiet_for(Duration::from_millis(300)).await;
        for job in &jobs {
            let row = delivery(&app, job.delivery_id.parse().unwrap()).await;
            assert_eq!(
                row.lease_token.as_deref(),
                Some(job.lease_token.as_str()),
                "another worker's leases stay"
            );
        }
        drop((_other, _other_stream));
        // A held id that is not a delivery id is refused.
        let Err(refused) = open_stream(&app.grpc_url, "returning-worker", true, &["nope"]).await
        else {
            panic!("a held id that is not a UUID is refused");
        };
        assert_eq!(refused.code(), tonic::Code::InvalidArgument);
        // The worker comes back on the first core, naming the job it holds: the one it never
        // received is due at once (the clock never moves: no lease lapsed), not attempted, and
        // comes on the new stream under a new lease; the held one keeps its lease.
        let (_client, mut resumed) = open_stream(
            &app.grpc_url,
            "returning-worker",
            true,
            &[held.delivery_id.as_str()],
        )
        .await
        .unwrap();
        let again = next_job(&mut resumed).await;
        assert_eq!(again.delivery_id, unsent.delivery_id, "the same delivery");
        assert_ne!(again.lease_token, unsent.lease_token, "a new lease");
        let row = delivery(&app, second_id).await;
        assert_eq!(row.attempts, 0, "no attempt counted");
        assert_eq!(row.status.as_str(), "pending");
        let row = delivery(&app, first).await;
        assert_eq!(
            row.lease_token.as_deref(),
            Some(held.lease_token.as_str()),
            "what the worker holds keeps its lease"
        );
        // Both reports are accepted: the held job's under its first lease.
        report_through(
            &app.grpc_url,
            vec![answered(&held, 200), answered(&again, 200)],
        )
        .await;
        for id in [first, second_id] {
            let row = delivery(&app, id).await;
            assert_eq!((row.status.as_str(), row.attempts), ("succeeded", 1));
        }
    }
);

e2e!(
    a_worker_moves_to_another_core_when_its_stream_ends,
    |app| async move {
        let receiver = Receiver::start().await;
        app.stop_workers();
        // Two addresses of the one core: the test can cut the one that carries the stream.
        let mut first = Proxy::start(core_addr(&app)).await;
        let mut second = Proxy::start(core_addr(&app)).await;
        app.start_worker_for(&format!("{},{}", first.url(), second.url()));
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        send_utility(&app, &biz, FAN).await;
        receiver.wait_for(1).await;
        // Each address cut in turn: whichever carried the stream first, a stream ends at least
        // once, and the worker opens one through the other address and delivers.
        first.down();
        send_utility(&app, &biz, FAN).await;
        receiver.wait_for(2).await;
        first.up().await;
        let before = first.connections();
        second.down();
        send_utility(&app, &biz, FAN).await;
        receiver.wait_for(3).await;
        assert!(first.connections() > before, "the worker moved");
    }
);

/// A business with one endpoint at a fresh receiver sends one utility message through each
/// gateway of `bases`; returns the receiver.
async fn send_through_each(app: &TestApp, bases: &[&str]) -> std::sync::Arc<Receiver> {
    let receiver = Receiver::start().await;
    let biz = live_business(app, BIZ, ALL_SCOPES).await;
    follower(app, &biz, FAN, false).await;
    register_webhook(app, &biz, &receiver.url(), &["message.sent"]).await;
    for base in bases {
        let reply = app
            .request_at(
                base,
                reqwest::Method::POST,
                &format!("/v1/{}/messages", biz.id),
                Some(&biz.app_token),
                Some(serde_json::json!({ "to": FAN, "category": "utility", "body": "hi" })),
            )
            .await;
        reply.assert_ok(200);
    }
    receiver
}

/// How many job streams the core at `url` holds open.
async fn streams(url: &str) -> u32 {
    WebhookJobServiceClient::connect(url.to_string())
        .await
        .unwrap()
        .job_streams(pb::Empty {})
        .await
        .unwrap()
        .into_inner()
        .open
}

e2e!(
    workers_take_their_streams_from_the_core_with_the_fewest,
    |app| async move {
        app.stop_workers();
        let second = app.second_stack(|_| {}).await;
        let (one, two) = (app.grpc_url.clone(), second.grpc_url.clone());
        eventually("no stream open", async || {
            (streams(&one).await + streams(&two).await == 0).then_some(())
        })
        .await;
        let both = format!("{one},{two}");
        app.start_worker_for(&both);
        eventually("the first worker's stream", async || {
            (streams(&one).await + streams(&two).await == 1).then_some(())
        })
        .await;
        // The second goes to the core the first left without one, whichever that was.
        app.start_worker_for(&both);
        eventually("a stream on each core", async || {
            (streams(&one).await == 1 && streams(&two).await == 1).then_some(())
        })
        .await;
        // And each core delivers what it writes (through its own stream, in memory).
        let receiver = send_through_each(&app, &[&app.base, &second.base]).await;
        receiver.wait_for(2).await;
    }
);

/// A second core behind a proxy that is down while two workers listing both cores start: both
/// take their streams from the first. The proxy's `up` brings the second core back.
async fn both_streams_on_the_first_core(app: &TestApp) -> (crate::harness::Stack, Proxy) {
    app.stop_workers();
    let second = app.second_stack(|_| {}).await;
    let second_addr = second
        .grpc_url
        .trim_start_matches("http://")
        .parse()
        .expect("a plain http core URL");
    let mut proxy = Proxy::start(second_addr).await;
    proxy.down();
    let both = format!("{},{}", app.grpc_url, proxy.url());
    app.start_worker_for(&both);
    app.start_worker_for(&both);
    eventually("both streams on the first core", async || {
        (streams(&app.grpc_url).await == 2).then_some(())
    })
    .await;
    (second, proxy)
}

e2e!(
    a_worker_moves_its_stream_to_a_core_that_came_back_with_none,
    |app| async move {
        let (second, mut proxy) = both_streams_on_the_first_core(&app).await;
        assert_eq!(streams(&second.grpc_url).await, 0);
        // It comes back: one worker moves there, and the workers then stay put.
        proxy.up().await;
        eventually("a stream on each core", async || {
            (streams(&app.grpc_url).await == 1 && streams(&second.grpc_url).await == 1)
                .then_some(())
        })
        .await;
        // Deliveries go on: a send through each core is delivered once.
        let receiver = send_through_each(&app, &[&app.base, &second.base]).await;
        receiver.wait_for(2).await;
        quiet_for(Duration::from_millis(600)).await;
        assert_eq!(receiver.received().len(), 2, "each delivered once");
        assert_eq!(streams(&app.grpc_url).await, 1);
        assert_eq!(streams(&second.grpc_url).await, 1);
    }
);

e2e!(
    a_moving_stream_reports_its_deliveries_under_way_before_it_closes,
    |app| async move {
        use sea_orm::{ColumnTrait, QueryFilter};
        let (second, mut proxy) = both_streams_on_the_first_core(&app).await;
        // Deliveries under way at a receiver that holds them: then the second core comes
        // back, and one worker moves while its deliveries are still unanswered.
        let receiver = Receiver::start().await;
        receiver.hold(true);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        const SENDS: usize = 6;
        for _ in 0..SENDS {
            send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        }
        eventually("every delivery under way", async || {
            (receiver.held() == SENDS).then_some(())
        })
        .await;
        proxy.up().await;
        // The mover waits for its deliveries' reports: nothing of its is given back and sent
        // again meanwhile (at most one rebalancing round passes many times over).
        quiet_for(Duration::from_millis(1500)).await;
        assert_eq!(receiver.received().len(), SENDS, "nothing sent twice");
        receiver.hold(false);
        eventually("a stream on each core", async || {
            (streams(&app.grpc_url).await == 1 && streams(&second.grpc_url).await == 1)
                .then_some(())
        })
        .await;
        let business = biz.id.parse::<uuid::Uuid>().unwrap();
        let deliveries = eventually("every delivery reported", async || {
            let rows = webhook_deliveries::Entity::find()
                .filter(webhook_deliveries::Column::BusinessId.eq(business))
                .all(&app.core.db)
                .await
                .unwrap();
            rows.iter()
                .all(|d| d.status.as_str() == "succeeded")
                .then_some(rows)
        })
        .await;
        assert_eq!(deliveries.len(), SENDS);
        for delivery in &deliveries {
            assert_eq!(delivery.attempts, 1, "one attempt each: {delivery:?}");
        }
        assert_eq!(receiver.received().len(), SENDS, "each delivered once");
    }
);
