//! Filling a batch: the group-commit writer and the context reader (`messaging/`) each take
//! what waits in their queue, then let this runtime's other ready tasks run a few turns before
//! the batch goes, and take what they queued meanwhile.
//!
//! Under load the sends that will join the next batch are often already in this process, a
//! step from the queue (a request decoded, its checks under way): a few `yield_now` turns let
//! them reach it, so one transaction or query carries them instead of the next. When nothing
//! else is ready the turns come straight back: an idle core adds no wait. Measured on
//! PostgreSQL (the all-in-one, closed loop of 32 connections): statements per message 1.43 to
//! 0.74, CPU per accepted send a quarter less. Sends that come from other processes (several
//! cores behind the gateways) are not a turn away, and gain little.

use tokio::sync::Mutex;
use tokio::sync::mpsc::Receiver;

/// Turns given to the other ready tasks before a batch goes.
const TURNS: usize = 4;

/// Adds to `batch` (after the caller's first receive) what arrives while this task yields
/// [`TURNS`] times, up to `max` items in all; returns at once when the batch is full.
pub async fn fill<T>(rx: &mut Receiver<T>, batch: &mut Vec<T>, max: usize) {
    if batch.len() >= max {
        return;
    }
    for _ in 0..TURNS {
        tokio::task::yield_now().await;
    }
    take_waiting(rx, batch, max);
}

/// Takes a writer's next arrivals into `incoming`, up to `max` beside the `carried` ones (left
/// over from the previous batch). With none carried it waits for the queue, then [`fill`]s;
/// false when the queue is closed, or when `stop` came first and nothing waits. With some
/// carried it takes only what waits now, and nothing while another task holds the queue (it
/// is gathering the next batch).
pub async fn gather<T>(
    queue: &Mutex<Receiver<T>>,
    carried: usize,
    incoming: &mut Vec<T>,
    max: usize,
    stop: impl Future<Output = ()>,
) -> bool {
    if carried > 0 {
        let room = max.saturating_sub(carried);
        if room > 0
            && let Ok(mut rx) = queue.try_lock()
        {
            take_waiting(&mut rx, incoming, room);
        }
        return true;
    }
    let mut rx = queue.lock().await;
    tokio::select! {
        received = rx.recv_many(incoming, max) => {
            if received == 0 {
                return false;
            }
        }
        () = stop => {
            take_waiting(&mut rx, incoming, max);
            if incoming.is_empty() {
                return false;
            }
        }
    }
    fill(&mut rx, incoming, max).await;
    true
}

/// Adds to `batch` what waits in `rx` now, up to `max` items in all, without waiting.
pub fn take_waiting<T>(rx: &mut Receiver<T>, batch: &mut Vec<T>, max: usize) {
    while batch.len() < max {
        match rx.try_recv() {
            Ok(item) => batch.push(item),
            Err(_) => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn a_batch_takes_what_ready_tasks_queue_while_it_yields() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(16);
        tx.send(0).await.unwrap();
        // Ready to run, not run yet: on this one thread it runs only when the batch yields.
        tokio::spawn(async move {
            for i in 1..=3 {
                tx.send(i).await.unwrap();
            }
        });
        let mut batch = Vec::new();
        rx.recv_many(&mut batch, 8).await;
        assert_eq!(batch, vec![0]);
        fill(&mut rx, &mut batch, 8).await;
        assert_eq!(batch, vec![0, 1, 2, 3]);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_batch_never_grows_past_its_limit() {
        let (tx, mut rx) = tokio::sync::mpsc::channel(16);
        for i in 0..6 {
            tx.send(i).await.unwrap();
        }
        let mut batch = Vec::new();
        rx.recv_many(&mut batch, 1).await;
        fill(&mut rx, &mut batch, 4).await;
        assert_eq!(batch, vec![0, 1, 2, 3]);
        let mut full = vec![9; 4];
        fill(&mut rx, &mut full, 4).await;
        assert_eq!(full, vec![9; 4], "a full batch goes as it is");
        assert_eq!(rx.try_recv().unwrap(), 4, "what did not fit stays queued");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_stopped_gather_takes_what_waits_then_ends() {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let queue = Mutex::new(rx);
        tx.send(1).await.unwrap();
        let mut incoming = Vec::new();
        assert!(gather(&queue, 0, &mut incoming, 8, std::future::ready(())).await);
        assert_eq!(
            incoming,
            vec![1],
            "what waited when the stop came is written"
        );
        incoming.clear();
        assert!(
            !gather(&queue, 0, &mut incoming, 8, std::future::ready(())).await,
            "nothing waits: the writer ends though its queue stays open"
        );
        drop(tx);
        assert!(!gather(&queue, 0, &mut incoming, 8, std::future::pending()).await);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn with_some_carried_a_gather_takes_only_what_fits_beside_them() {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        for i in 0..5 {
            tx.send(i).await.unwrap();
        }
        let queue = Mutex::new(rx);
        let mut incoming = Vec::new();
        assert!(gather(&queue, 3, &mut incoming, 4, std::future::pending()).await);
        assert_eq!(incoming, vec![0]);
    }
}
