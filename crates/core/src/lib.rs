//! napi-free core of mastra-native-processors.
//!
//! Everything here is plain Rust, tested with `cargo test -p mastra-native-core`:
//! tokenizers, the BM25 index, tool catalogs, loaded-tool state stores, and the
//! tool-call filter's decisions. The napi binding (`src/`) only converts types.

pub mod bm25;
pub mod catalog;
pub mod jsmath;
pub mod learn;
pub mod memory;
pub mod store;
pub mod tokenizer;
pub mod tool_call_filter;
pub mod enhanced;
pub mod skill_search;
pub mod semantic;

/// Test helpers shared by the modules' tests.
#[cfg(test)]
pub(crate) mod test_support {
    /// A seeded xorshift generator: each call gives a number below its argument (the same
    /// sequence for the same seed, so a failing case can be replayed).
    pub fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }
}
