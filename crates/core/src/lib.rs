//! napi-free core of mastra-native-processors.
//!
//! Everything here is plain Rust, tested with `cargo test -p mastra-native-core`:
//! tokenizers, the BM25 index, tool catalogs, loaded-tool state stores, and the
//! tool-call filter's decisions. The napi binding (`src/`) only converts types.

pub mod bm25;
pub mod catalog;
pub mod jsmath;
pub mod memory;
pub mod store;
pub mod tokenizer;
pub mod tool_call_filter;
pub mod enhanced;
pub mod skill_search;
pub mod semantic;
