//! napi binding for mastra-native-processors: thin #[napi] wrappers over `mastra-native-core`.
//! Each module exposes one processor's native half; the JS layer in `js/` builds the Mastra objects.
#![deny(clippy::all)]
// Under `cargo test` napi-derive does not register exports, so the glue looks unused.
#![cfg_attr(test, allow(dead_code))]

mod tool_call_filter;
mod tool_search;
mod skill_search;
mod semantic;
mod learn;
