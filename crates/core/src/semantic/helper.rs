//! A second core for a long scan, without ever waiting for it to start.
//!
//! A search scans every document vector (10,000 × 384 bytes: bound by memory, ~130–180 µs on
//! the 2-core dev VM). [`for_each_chunk`] splits such a scan into chunks that the calling
//! thread and one long-lived helper thread claim from a shared counter. The caller never
//! waits for the helper to wake: if it is late (the other core is busy, or asleep), the
//! caller claims every chunk itself and only waits for a chunk the helper has already begun.
//! Starting a thread per search instead costs ~15 µs when a core is free and milliseconds
//! when none is (measured here), which would make a loaded server slower.
//!
//! The helper sleeps on a condition variable between scans (no CPU, and it never keeps Node
//! alive: a native thread is not a handle on the event loop). One scan at a time uses it; a
//! scan that finds it busy (another JS worker's search) runs on its own thread alone.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// A scan lent to the helper. `work` points at the caller's closure, which lives on the
/// caller's stack: the helper calls it only for a chunk it has claimed (`next` below
/// `chunks`), and the caller returns only once `done` counts every chunk, so it is alive
/// whenever it is called.
struct Job {
    work: *const (dyn Fn(usize) + Sync + 'static),
    chunks: usize,
    next: AtomicUsize,
    done: AtomicUsize,
    /// Whether a chunk panicked, on either thread (the caller re-raises it).
    panicked: AtomicBool,
}

// SAFETY: `work` is Sync (shared calls from two threads are what it is for) and is only
// dereferenced while the caller waits for it (see `Job`).
unsafe impl Send for Job {}
unsafe impl Sync for Job {}

impl Job {
    /// Claims and runs chunks until none is left (a panicking chunk is recorded in `panicked`).
    fn run(&self) {
        loop {
            let chunk = self.next.fetch_add(1, Ordering::AcqRel);
            if chunk >= self.chunks {
                return;
            }
            // SAFETY: a claimed chunk's closure is alive until `done` reaches `chunks`.
            let work = unsafe { &*self.work };
            if catch_unwind(AssertUnwindSafe(|| work(chunk))).is_err() {
                self.panicked.store(true, Ordering::Release);
            }
            self.done.fetch_add(1, Ordering::AcqRel);
        }
    }
}

struct Helper {
    /// The job offered to the helper thread (None when it has nothing to do).
    offered: Mutex<Option<Arc<Job>>>,
    wake: Condvar,
    /// Held by the one scan that may offer a job at a time.
    busy: Mutex<()>,
}

/// The helper, started on first use; None where no thread can be started (or on
/// WebAssembly, whose threads cost more than they save here).
fn helper() -> Option<&'static Helper> {
    static HELPER: OnceLock<Option<&'static Helper>> = OnceLock::new();
    *HELPER.get_or_init(|| {
        if cfg!(target_family = "wasm") || std::thread::available_parallelism().map_or(true, |n| n.get() < 2) {
            return None;
        }
        let helper: &'static Helper =
            Box::leak(Box::new(Helper { offered: Mutex::new(None), wake: Condvar::new(), busy: Mutex::new(()) }));
        let started = std::thread::Builder::new().name("mastra-native-scan".into()).spawn(move || loop {
            let job = {
                let mut offered = helper.offered.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    if let Some(job) = offered.take() {
                        break job;
                    }
                    offered = helper.wake.wait(offered).unwrap_or_else(|e| e.into_inner());
                }
            };
            job.run();
        });
        started.ok().map(|_| helper)
    })
}

/// Calls `work(chunk)` once for every chunk in `0..chunks`, on this thread and (when it is
/// free and wakes in time) the helper thread, and returns when every call has returned. The
/// calls may run in any order and two at once: each must touch its own part of the output.
pub fn for_each_chunk(chunks: usize, work: &(dyn Fn(usize) + Sync)) {
    let alone = || (0..chunks).for_each(work);
    let Some(helper) = helper().filter(|_| chunks > 1) else { return alone() };
    let Ok(_busy) = helper.busy.try_lock() else { return alone() };
    // SAFETY: only the lifetime is erased; see `Job` for why the closure outlives every call.
    let work: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(work as *const (dyn Fn(usize) + Sync)) };
    let job = Arc::new(Job { work, chunks, next: AtomicUsize::new(0), done: AtomicUsize::new(0), panicked: AtomicBool::new(false) });
    *helper.offered.lock().unwrap_or_else(|e| e.into_inner()) = Some(job.clone());
    helper.wake.notify_one();
    job.run();
    // Withdraw the offer if the helper has not taken it (it would find nothing to claim).
    helper.offered.lock().unwrap_or_else(|e| e.into_inner()).take();
    let mut spins = 0u32;
    while job.done.load(Ordering::Acquire) < chunks {
        // The helper is finishing one chunk it claimed: a few µs.
        spins += 1;
        if spins < 1 << 12 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    if job.panicked.load(Ordering::Acquire) {
        resume_unwind(Box::new("a scan chunk panicked"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn every_chunk_runs_once_whoever_runs_it() {
        for chunks in [0usize, 1, 2, 7, 64, 1000] {
            let counts: Vec<AtomicU32> = (0..chunks).map(|_| AtomicU32::new(0)).collect();
            for_each_chunk(chunks, &|c| {
                counts[c].fetch_add(1, Ordering::Relaxed);
            });
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1), "chunks {chunks}");
        }
    }

    #[test]
    fn scans_from_many_threads_at_once_each_complete() {
        std::thread::scope(|scope| {
            for t in 0..4u64 {
                scope.spawn(move || {
                    for round in 0..200u64 {
                        let chunks = 3 + ((t * 31 + round) % 40) as usize;
                        let out: Vec<AtomicU32> = (0..chunks).map(|_| AtomicU32::new(0)).collect();
                        for_each_chunk(chunks, &|c| {
                            out[c].store(c as u32 * 2 + 1, Ordering::Relaxed);
                        });
                        for (c, v) in out.iter().enumerate() {
                            assert_eq!(v.load(Ordering::Relaxed), c as u32 * 2 + 1);
                        }
                    }
                });
            }
        });
    }

    /// A panic reaches the caller (the binding turns it into a JS error) only once no chunk
    /// runs any more, and leaves the helper able to serve. (Other tests may hold the helper,
    /// so the chunks may all run on this thread.)
    #[test]
    fn a_panicking_chunk_panics_the_caller_and_the_helper_serves_on() {
        let running = AtomicU32::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            for_each_chunk(50, &|c| {
                running.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_micros(50));
                running.fetch_sub(1, Ordering::SeqCst);
                if c == 3 {
                    panic!("chunk 3");
                }
            })
        }));
        assert!(result.is_err());
        assert_eq!(running.load(Ordering::SeqCst), 0, "a chunk still ran after the caller returned");
        // and the helper still serves the next scan
        let after = AtomicU32::new(0);
        for_each_chunk(20, &|_| {
            after.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(after.load(Ordering::Relaxed), 20);
    }
}
