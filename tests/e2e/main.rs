//! End-to-end tests: every test runs the real stack on SQLite and on PostgreSQL.

mod fixtures;
mod fuzz;
mod grpc_tls;
mod harness;
mod health;

mod apps;
mod audience;
mod auth_otp;
mod auth_tokens;
mod business_account;
mod consent;
mod console;
mod delivery_http;
mod envelope;
mod error_codes;
mod history;
mod http_edges;
mod key_rotation;
mod me;
mod metrics;
mod openapi;
mod operator;
mod qr;
mod recipes;
mod retention;
mod scheduled;
mod sends;
mod sends_durability;
mod settings;
mod sms_http;
mod team;
mod usage;
mod webhook_delivery;
mod webhook_endpoints;
mod webhook_log;
