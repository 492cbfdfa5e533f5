//! Native half of hybrid search: the static embedding model, parsed once per file per
//! process (every processor, and every worker thread, that loads the same file shares it).
//!
//! The JS layer reads the file and hands its bytes over (`fromBytes`), keyed by the file's
//! canonical path: the addon itself never opens a file. Under WebAssembly a file access would
//! go through `node:wasi`, whose path calls crash Node 20 and 22 (SIGSEGV in V8's fast API
//! calls on shared wasm memory) once large external buffers are alive.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use mastra_native_core::semantic::StaticModel;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Parsed models by key (the file's canonical path); weak, so a model no processor uses is freed.
fn registry() -> &'static Mutex<HashMap<String, Weak<StaticModel>>> {
    static MODELS: OnceLock<Mutex<HashMap<String, Weak<StaticModel>>>> = OnceLock::new();
    MODELS.get_or_init(Default::default)
}

/// The model registered under `key`, if one is alive in this process.
pub fn registered(key: &str) -> Option<Arc<StaticModel>> {
    // A poisoned lock only means another load panicked; the map itself is still valid.
    registry().lock().unwrap_or_else(|p| p.into_inner()).get(key).and_then(Weak::upgrade)
}

/// The model under `key`: the registered one, or `bytes` parsed and registered now.
pub fn register_bytes(key: &str, bytes: &[u8]) -> std::result::Result<Arc<StaticModel>, String> {
    let mut models = registry().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(model) = models.get(key).and_then(Weak::upgrade) {
        return Ok(model);
    }
    let model = Arc::new(StaticModel::from_bytes(bytes).map_err(|e| format!("{key} is not a usable model: {e}"))?);
    models.retain(|_, m| m.strong_count() > 0);
    models.insert(key.to_owned(), Arc::downgrade(&model));
    Ok(model)
}

/// A loaded static embedding model (`model.bin`).
#[napi]
pub struct NativeSemanticModel {
    pub(crate) inner: Arc<StaticModel>,
}

#[napi]
impl NativeSemanticModel {
    /// The model already parsed under `key` in this process (any thread), if any.
    #[napi(catch_unwind)]
    pub fn loaded(key: String) -> Option<NativeSemanticModel> {
        registered(&key).map(|inner| Self { inner })
    }

    /// The model under `key` (the file's canonical path): the one already parsed in this
    /// process, or `bytes` (the file's contents) parsed now.
    #[napi(factory, catch_unwind)]
    pub fn from_bytes(key: String, bytes: &[u8]) -> Result<Self> {
        register_bytes(&key, bytes).map(|inner| Self { inner }).map_err(|e| Error::new(Status::InvalidArg, e))
    }

    #[napi(getter, catch_unwind)]
    pub fn dim(&self) -> u32 {
        self.inner.dim() as u32
    }

    #[napi(getter, catch_unwind)]
    pub fn vocab_size(&self) -> u32 {
        self.inner.vocab_size() as u32
    }

    /// Approximate bytes the model holds in memory.
    #[napi(getter, catch_unwind)]
    pub fn heap_bytes(&self) -> f64 {
        self.inner.heap_bytes() as f64
    }

    /// Token ids of `text` (diagnostics and tests).
    #[napi(catch_unwind)]
    pub fn tokenize(&self, text: String) -> Vec<u32> {
        self.inner.tokenize(&text)
    }

    /// The unit sentence vector of `text` (diagnostics and tests).
    #[napi(catch_unwind)]
    pub fn embed(&self, text: String) -> Float32Array {
        Float32Array::new(self.inner.embed(&text))
    }

    /// Whether two handles share one loaded model.
    #[napi(catch_unwind)]
    pub fn same_model(&self, other: &NativeSemanticModel) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_no_model_are_an_error_and_register_nothing() {
        let err = register_bytes("/no/such/model.bin", b"not a model").unwrap_err();
        assert!(err.starts_with("/no/such/model.bin is not a usable model: "), "{err}");
        assert!(registered("/no/such/model.bin").is_none());
    }
}
