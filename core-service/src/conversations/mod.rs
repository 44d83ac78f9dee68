//! Conversations (DESIGN, "Conversations"): a follower writes to a business, the business
//! answers inside the service window (or with a category message under that category's consent
//! rules), and both sides mark what they read.
//!
//! A thread is a query over a (business, user) pair ordered by position, never a membership:
//! the user's messages (`inbound_messages`) and the business's messages to the user
//! (`messages`, by the thread index), merged by (`at`, `id`). Nothing is written per send or
//! broadcast message to keep threads; a conversation row holds what the lists filter and sort
//! on (activity, the user's message count, the business's read mark) and moves only with user
//! messages and messages sent through conversation routes.

pub mod grpc;
pub mod intake;
pub mod service;
pub mod store;
pub mod writer;
