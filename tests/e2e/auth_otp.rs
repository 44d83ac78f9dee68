//! POST /auth/business/otp/request and /verify.

use std::time::Duration;

use core_service::clock::Clock;
use serde_json::json;

use crate::e2e;
use crate::fixtures::{claims, verify_code, wrong_code};
use crate::harness::TestApp;

const PHONE: &str = "+14155550123";

async fn request(app: &TestApp, phone: &str) -> crate::harness::Reply {
    app.post(
        "/auth/business/otp/request",
        None,
        json!({ "phone_number": phone }),
    )
    .await
}

e2e!(
    otp_request_sends_a_six_digit_code_to_an_existing_account,
    |app| async move {
        app.create_user(PHONE).await;
        let reply = request(&app, PHONE).await;
        reply.assert_ok(200);
        assert_eq!(reply.message(), "ok");
        assert!(reply.data().is_null());
        let code = app.sms.last_code(PHONE);
        assert_eq!(code.len(), 6);
    }
);

e2e!(
    otp_request_answers_200_for_an_unknown_phone_and_sends_nothing,
    |app| async move {
        request(&app, "+14155550999").await.assert_ok(200);
        assert_eq!(app.sms.count(), 0);
    }
);

e2e!(
    otp_request_refuses_a_malformed_phone_number,
    |app| async move {
        for bad in ["4155550123", "+1", "not a phone", ""] {
            request(&app, bad)
                .await
                .assert_error(400, "invalid_phone_number");
        }
        app.post("/auth/business/otp/request", None, json!({}))
            .await
            .assert_error(400, "invalid_request");
        app.post(
            "/auth/business/otp/request",
            None,
            json!({ "phone_number": 5 }),
        )
        .await
        .assert_error(400, "invalid_request");
    }
);

e2e!(
    otp_request_cooldown_answers_429_with_retry_after_for_known_and_unknown_phones,
    |app| async move {
        app.create_user(PHONE).await;
        for phone in [PHONE, "+14155550998"] {
            request(&app, phone).await.assert_ok(200);
            let refused = request(&app, phone).await;
            refused.assert_error(429, "rate_limited");
            let wait = refused.retry_after().expect("Retry-After");
            assert!((1..=60).contains(&wait), "{wait}");
            app.clock.advance(Duration::from_secs(wait - 1));
            request(&app, phone).await.assert_error(429, "rate_limited");
            app.clock.advance(Duration::from_secs(1));
            request(&app, phone).await.assert_ok(200);
        }
        assert_eq!(app.sms.sent_to(PHONE).len(), 2);
    }
);

e2e!(
    otp_request_hourly_cap_per_phone_answers_429_until_a_slot_frees,
    |app| async move {
        app.create_user(PHONE).await;
        for _ in 0..5 {
            request(&app, PHONE).await.assert_ok(200);
            app.clock.advance(Duration::from_secs(60));
        }
        let refused = request(&app, PHONE).await;
        refused.assert_error(429, "rate_limited");
        let wait = refused.retry_after().unwrap();
        assert!(wait > 60, "the hourly cap, not the cooldown: {wait}");
        app.clock.advance(Duration::from_secs(wait));
        request(&app, PHONE).await.assert_ok(200);
    }
);

e2e!(otp_request_per_ip_cap_answers_429, |app| async move {
    for i in 0..30 {
        request(&app, &format!("+1415555{:04}", 1000 + i))
            .await
            .assert_ok(200);
    }
    let refused = request(&app, "+14155552000").await;
    refused.assert_error(429, "rate_limited");
    let wait = refused.retry_after().unwrap();
    app.clock.advance(Duration::from_secs(wait));
    request(&app, "+14155552000").await.assert_ok(200);
});

e2e!(
    otp_request_answers_503_when_sms_fails_and_leaves_no_code_and_no_cooldown,
    |app| async move {
        app.create_user(PHONE).await;
        let old = app.request_code(PHONE).await;
        app.clock.advance(Duration::from_secs(60));
        app.sms.fail(true);
        request(&app, PHONE)
            .await
            .assert_error(503, "sms_delivery_unavailable");
        // The failed request replaced nothing usable: neither the old code nor a new one works...
        verify_code(&app, PHONE, &old)
            .await
            .assert_error(400, "invalid_otp_code");
        // ...and it started no cooldown.
        app.sms.fail(false);
        let code = app.request_code(PHONE).await;
        verify_code(&app, PHONE, &code).await.assert_ok(200);
    }
);

e2e!(
    otp_request_for_an_unknown_number_waits_as_long_as_a_send_currently_takes,
    |app| async move {
        app.create_user(PHONE).await;
        app.sms.take(&app.clock, Duration::from_millis(250));
        let elapsed =
            |before: chrono::DateTime<chrono::Utc>| (app.clock.now() - before).num_milliseconds();
        let before = app.clock.now();
        request(&app, PHONE).await.assert_ok(200);
        let known = elapsed(before);
        assert_eq!(known, 250, "the provider takes 250 ms of the test clock");
        let before = app.clock.now();
        let unknown = request(&app, "+14155550199").await;
        unknown.assert_ok(200);
        assert_eq!(
            elapsed(before),
            250,
            "an unknown number waits as long as a send"
        );
        // The estimate moves with the provider: slower sends, longer waits.
        app.sms.take(&app.clock, Duration::from_millis(1250));
        app.clock.advance(Duration::from_secs(60));
        request(&app, PHONE).await.assert_ok(200);
        let before = app.clock.now();
        request(&app, "+14155550198").await.assert_ok(200);
        let moved = elapsed(before);
        assert!(
            (250..1250).contains(&moved) && moved > 400,
            "a moving estimate between the old and the new speed: {moved} ms"
        );
        // Same status and body (but the timestamp) for both.
        app.clock.advance(Duration::from_secs(60));
        let without_time = |mut body: serde_json::Value| {
            body.as_object_mut().unwrap().remove("timestamp");
            body
        };
        let a = request(&app, PHONE).await;
        let b = request(&app, "+14155550197").await;
        assert_eq!(a.status, b.status);
        assert_eq!(without_time(a.body), without_time(b.body));
    }
);

e2e!(
    otp_request_for_an_unknown_number_answers_503_while_the_provider_fails,
    |app| async move {
        app.create_user(PHONE).await;
        app.sms.fail(true);
        request(&app, PHONE)
            .await
            .assert_error(503, "sms_delivery_unavailable");
        let unknown = "+14155550199";
        request(&app, unknown)
            .await
            .assert_error(503, "sms_delivery_unavailable");
        // Neither 503 started a cooldown: once the provider is back, both are answered at once.
        app.sms.fail(false);
        request(&app, PHONE).await.assert_ok(200);
        request(&app, unknown).await.assert_ok(200);
        // A failure is remembered for a while only: with no attempt since, an unknown number
        // is answered as a known one would be once its next send is tried.
        app.clock.advance(Duration::from_secs(60));
        app.sms.fail(true);
        request(&app, PHONE)
            .await
            .assert_error(503, "sms_delivery_unavailable");
        app.clock
            .advance(core_service::sms::SmsGauge::FAILURE_MEMORY);
        request(&app, "+14155550198").await.assert_ok(200);
    }
);

e2e!(
    otp_verify_issues_an_access_and_a_refresh_token,
    |app| async move {
        let user_id = app.create_user(PHONE).await;
        let code = app.request_code(PHONE).await;
        let reply = verify_code(&app, PHONE, &code).await;
        reply.assert_ok(200);
        let data = reply.data();
        assert_eq!(data["token_type"], "Bearer");
        assert_eq!(data["expires_in"], 900);
        assert!(data["refresh_token"].as_str().unwrap().len() >= 32);
        let token = data["access_token"].as_str().unwrap();
        // The token identifies the user: it reaches the console (which needs a business).
        app.get("/business/me", Some(token))
            .await
            .assert_error(403, "not_a_business_account");
        let claims = claims(token);
        assert_eq!(claims["sub"], user_id.as_str());
    }
);

e2e!(otp_verify_refuses_a_wrong_code, |app| async move {
    app.create_user(PHONE).await;
    let code = app.request_code(PHONE).await;
    verify_code(&app, PHONE, &wrong_code(&code))
        .await
        .assert_error(400, "invalid_otp_code");
    verify_code(&app, PHONE, &code).await.assert_ok(200);
});

e2e!(
    otp_verify_refuses_a_code_that_is_not_six_digits,
    |app| async move {
        app.create_user(PHONE).await;
        for bad in ["12345", "1234567", "12a456", ""] {
            verify_code(&app, PHONE, bad)
                .await
                .assert_error(400, "invalid_otp_code");
        }
        verify_code(&app, "0000", "123456")
            .await
            .assert_error(400, "invalid_phone_number");
    }
);

e2e!(
    otp_verify_refuses_a_code_after_five_wrong_tries,
    |app| async move {
        app.create_user(PHONE).await;
        let code = app.request_code(PHONE).await;
        for _ in 0..5 {
            verify_code(&app, PHONE, &wrong_code(&code))
                .await
                .assert_error(400, "invalid_otp_code");
        }
        verify_code(&app, PHONE, &code)
            .await
            .assert_error(400, "invalid_otp_code");
    }
);

e2e!(
    otp_verify_accepts_a_code_after_four_wrong_tries,
    |app| async move {
        app.create_user(PHONE).await;
        let code = app.request_code(PHONE).await;
        for _ in 0..4 {
            verify_code(&app, PHONE, &wrong_code(&code))
                .await
                .assert_error(400, "invalid_otp_code");
        }
        verify_code(&app, PHONE, &code).await.assert_ok(200);
    }
);

e2e!(otp_verify_refuses_an_expired_code, |app| async move {
    app.create_user(PHONE).await;
    let code = app.request_code(PHONE).await;
    app.clock.advance(Duration::from_secs(300));
    verify_code(&app, PHONE, &code)
        .await
        .assert_error(400, "invalid_otp_code");
});

e2e!(
    otp_verify_accepts_a_code_just_before_it_expires,
    |app| async move {
        app.create_user(PHONE).await;
        let code = app.request_code(PHONE).await;
        app.clock.advance(Duration::from_secs(299));
        verify_code(&app, PHONE, &code).await.assert_ok(200);
    }
);

e2e!(otp_verify_accepts_a_code_only_once, |app| async move {
    app.create_user(PHONE).await;
    let code = app.request_code(PHONE).await;
    verify_code(&app, PHONE, &code).await.assert_ok(200);
    verify_code(&app, PHONE, &code)
        .await
        .assert_error(400, "invalid_otp_code");
});

e2e!(otp_a_new_code_replaces_the_previous_one, |app| async move {
    app.create_user(PHONE).await;
    let first = app.request_code(PHONE).await;
    app.clock.advance(Duration::from_secs(60));
    let second = app.request_code(PHONE).await;
    if first != second {
        verify_code(&app, PHONE, &first)
            .await
            .assert_error(400, "invalid_otp_code");
    }
    verify_code(&app, PHONE, &second).await.assert_ok(200);
});

e2e!(
    otp_verify_for_an_unknown_phone_is_an_invalid_code,
    |app| async move {
        verify_code(&app, "+14155550777", "123456")
            .await
            .assert_error(400, "invalid_otp_code");
    }
);

e2e!(
    otp_verify_refuses_suspended_and_banned_accounts_after_checking_the_code,
    |app| async move {
        app.create_user(PHONE).await;
        for status in ["suspended", "banned"] {
            app.set_user_status(PHONE, "active").await;
            let code = app.request_code(PHONE).await;
            app.set_user_status(PHONE, status).await;
            // A wrong code learns nothing about the account's status.
            verify_code(&app, PHONE, &wrong_code(&code))
                .await
                .assert_error(400, "invalid_otp_code");
            verify_code(&app, PHONE, &code)
                .await
                .assert_error(403, "account_suspended");
            app.clock.advance(Duration::from_secs(60));
        }
    }
);

e2e!(
    otp_verify_locks_a_phone_for_the_day_after_twenty_failures,
    |app| async move {
        app.create_user(PHONE).await;
        for _ in 0..20 {
            verify_code(&app, PHONE, "000000")
                .await
                .assert_error(400, "invalid_otp_code");
        }
        let code = app.request_code(PHONE).await;
        let locked = verify_code(&app, PHONE, &code).await;
        locked.assert_error(429, "rate_limited");
        let wait = locked.retry_after().unwrap();
        assert!((1..=86_400).contains(&wait), "{wait}");
        app.clock.advance(Duration::from_secs(wait - 1));
        verify_code(&app, PHONE, &code)
            .await
            .assert_error(429, "rate_limited");
        // At the start of the next day (and past the request cooldown) the lock is gone.
        app.clock
            .advance(Duration::from_secs(1.max(60_u64.saturating_sub(wait - 1))));
        let code = app.request_code(PHONE).await;
        verify_code(&app, PHONE, &code).await.assert_ok(200);
    }
);

e2e!(otp_verify_is_capped_per_ip, |app| async move {
    for i in 0..60 {
        verify_code(&app, &format!("+1415555{:04}", 3000 + i), "123456")
            .await
            .assert_error(400, "invalid_otp_code");
    }
    let refused = verify_code(&app, "+14155554000", "123456").await;
    refused.assert_error(429, "rate_limited");
    let wait = refused.retry_after().unwrap();
    assert_eq!(wait, 60, "an hour / 60");
    app.clock.advance(Duration::from_secs(wait - 1));
    verify_code(&app, "+14155554000", "123456")
        .await
        .assert_error(429, "rate_limited");
    app.clock.advance(Duration::from_secs(1));
    verify_code(&app, "+14155554000", "123456")
        .await
        .assert_error(400, "invalid_otp_code");
});

e2e!(
    a_burst_of_concurrent_wrong_codes_is_held_to_the_daily_failure_cap,
    |app| async move {
        app.create_user(PHONE).await;
        let replies =
            futures::future::join_all((0..30).map(|_| verify_code(&app, PHONE, "000000"))).await;
        let wrong = replies.iter().filter(|r| r.status == 400).count();
        let locked = replies.iter().filter(|r| r.status == 429).count();
        assert_eq!((wrong, locked), (20, 10), "cap of 20 failures a day");
        for reply in &replies {
            if reply.status == 429 {
                reply.assert_error(429, "rate_limited");
            } else {
                reply.assert_error(400, "invalid_otp_code");
            }
        }
        // A right code does not use up the budget: after 19 failures and a success, one more
        // failure is still allowed.
        let other = "+14155550199";
        app.create_user(other).await;
        for _ in 0..19 {
            verify_code(&app, other, "000000")
                .await
                .assert_error(400, "invalid_otp_code");
        }
        let code = app.request_code(other).await;
        verify_code(&app, other, &code).await.assert_ok(200);
        verify_code(&app, other, "000000")
            .await
            .assert_error(400, "invalid_otp_code");
        verify_code(&app, other, "000000")
            .await
            .assert_error(429, "rate_limited");
    }
);
