//! End-to-end tests: every test runs the real stack on SQLite and on PostgreSQL.

mod harness;

mod auth_otp;
mod auth_tokens;
mod business_account;
mod envelope;
mod openapi;
mod sms_http;
