//! The async runtime every serving binary runs on, sized by `RUNTIME_THREADS`.
//!
//! tokio's default is a worker thread per CPU. That suits a process that has its host's CPUs
//! to itself. Processes that share them (several binaries on one host, or PostgreSQL beside
//! them) spend much of a busy CPU waking each other's idle threads: on a 2-CPU machine a
//! closed loop of sends cost a fifth less CPU per send with one thread per process
//! (core-service/README.md, Several cores). The setting lets an operator give each process its share.
//!
//! One thread is tokio's current-thread scheduler: the thread that starts the process runs
//! every task. A multi-threaded runtime of one worker keeps that thread apart from the
//! worker, and every task the binary's main future wakes or spawns crossed between the two
//! (a futex wake each time); on the same machine that cost the split a further eighth of
//! its CPU per send in its processes.

use std::num::NonZeroUsize;
use std::process::ExitCode;
use std::str::FromStr;

/// The most threads `RUNTIME_THREADS` takes.
pub const MAX_THREADS: usize = 1024;

/// A `RUNTIME_THREADS` value: 1 to [`MAX_THREADS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Threads(NonZeroUsize);

impl FromStr for Threads {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        value
            .trim()
            .parse::<NonZeroUsize>()
            .ok()
            .filter(|n| n.get() <= MAX_THREADS)
            .map(Threads)
            .ok_or_else(|| {
                format!(
                    "RUNTIME_THREADS must be a whole number from 1 to {MAX_THREADS}, not {value:?}"
                )
            })
    }
}

/// The runtime's settings, shared by every serving binary.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RuntimeArgs {
    /// Worker threads of the process's async runtime, 1 to 1024 (default: one per CPU the
    /// process may use). Where processes share a host's CPUs with each other or with
    /// PostgreSQL, giving each fewer saves the CPU they spend waking each other.
    #[arg(long, env = "RUNTIME_THREADS")]
    pub runtime_threads: Option<Threads>,
}

impl RuntimeArgs {
    /// The worker threads the runtime gets: the setting, or one per CPU this process may use
    /// (its affinity and cgroup quota counted).
    pub fn threads(&self) -> usize {
        match self.runtime_threads {
            Some(Threads(n)) => n.get(),
            None => std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        }
    }

    /// Builds the runtime with [`Self::threads`] threads running tasks (tokio's own
    /// `TOKIO_WORKER_THREADS` is not read: this setting is the one) and logs its size: for
    /// one, the current-thread scheduler on the calling thread; for more, the multi-threaded
    /// one with that many workers.
    pub fn build(&self) -> std::io::Result<tokio::runtime::Runtime> {
        let runtime = match self.threads() {
            1 => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
            threads => tokio::runtime::Builder::new_multi_thread()
                .worker_threads(threads)
                .enable_all()
                .build()?,
        };
        let scheduler = match runtime.handle().runtime_flavor() {
            tokio::runtime::RuntimeFlavor::CurrentThread => "current-thread",
            _ => "multi-thread",
        };
        tracing::info!(
            runtime_threads = runtime.metrics().num_workers(),
            scheduler,
            "async runtime started"
        );
        Ok(runtime)
    }

    /// Runs a binary's `main` to its end on the runtime [`Self::build`] makes; a runtime that
    /// cannot start is reported like any other start-up error.
    pub fn block_on(&self, main: impl Future<Output = ExitCode>) -> ExitCode {
        run_on(self.build(), main)
    }
}

/// Runs a one-shot command (an operator command, a migration) to its end on a runtime of one
/// thread: it waits on the network or the database, and starts no server.
pub fn one_shot(main: impl Future<Output = ExitCode>) -> ExitCode {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    run_on(runtime, main)
}

/// Runs `main` on `runtime`, or reports why the runtime did not start.
fn run_on(
    runtime: std::io::Result<tokio::runtime::Runtime>,
    main: impl Future<Output = ExitCode>,
) -> ExitCode {
    match runtime {
        Ok(runtime) => runtime.block_on(main),
        Err(err) => {
            eprintln!("error: starting the async runtime: {err}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_threads_takes_one_to_the_most_and_nothing_else() {
        assert_eq!("1".parse::<Threads>().unwrap().0.get(), 1);
        assert_eq!(" 8 ".parse::<Threads>().unwrap().0.get(), 8);
        assert_eq!("1024".parse::<Threads>().unwrap().0.get(), 1024);
        for bad in ["0", "1025", "-1", "two", "", "1.5"] {
            let err = bad.parse::<Threads>().unwrap_err();
            assert!(err.contains("RUNTIME_THREADS"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_runtime_has_the_threads_it_was_given() {
        let args = RuntimeArgs {
            runtime_threads: Some("3".parse().unwrap()),
        };
        assert_eq!(args.threads(), 3);
        let runtime = args.build().unwrap();
        assert_eq!(runtime.metrics().num_workers(), 3);
        assert_eq!(
            runtime.handle().runtime_flavor(),
            tokio::runtime::RuntimeFlavor::MultiThread
        );
        // Unset: one per CPU.
        let default = RuntimeArgs::default();
        assert_eq!(
            default.threads(),
            std::thread::available_parallelism().unwrap().get()
        );
    }

    #[test]
    fn one_thread_is_the_current_thread_scheduler_on_the_calling_thread() {
        let args = RuntimeArgs {
            runtime_threads: Some("1".parse().unwrap()),
        };
        let runtime = args.build().unwrap();
        assert_eq!(
            runtime.handle().runtime_flavor(),
            tokio::runtime::RuntimeFlavor::CurrentThread
        );
        assert_eq!(runtime.metrics().num_workers(), 1);
        // Spawned tasks run on the thread that drives the runtime, not on a worker of their own.
        let caller = std::thread::current().id();
        let ran_on = runtime.block_on(async {
            tokio::spawn(async { std::thread::current().id() })
                .await
                .unwrap()
        });
        assert_eq!(ran_on, caller);
    }
}
