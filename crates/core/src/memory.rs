//! Giving freed heap memory back to the operating system after a big build.

/// Catalogs at least this large free megabytes right after the build (the crossed text's
/// copy, per-thread documents, growing buffers). Below it, what is freed is reused by the
/// next allocations, and a trim (~1.5 ms at 10,000 tools) would cost more than it gives back.
pub const LARGE_BUILD_TOOLS: usize = 20_000;

/// Returns the free pages of every allocator arena to the OS. glibc keeps freed memory in
/// its arenas (a pool thread's arena included), so after a 100k-tool build the process
/// would keep ~2× the index in RSS for good; `malloc_trim(0)` releases it (a few ms). Other
/// allocators (musl, macOS, Windows) manage this themselves: a no-op there.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only releases memory the allocator holds as free; it is
        // thread-safe and takes no pointers.
        unsafe {
            malloc_trim(0);
        }
    }
}
