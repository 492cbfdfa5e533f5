//! Native half of hybrid search: the static embedding model, loaded once per file per
//! process (every processor, and every worker thread, that loads the same path shares it).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, Weak};

use mastra_native_core::semantic::StaticModel;
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Loaded models by canonical path; weak, so a model no processor uses is freed.
fn registry() -> &'static Mutex<HashMap<PathBuf, Weak<StaticModel>>> {
    static MODELS: OnceLock<Mutex<HashMap<PathBuf, Weak<StaticModel>>>> = OnceLock::new();
    MODELS.get_or_init(Default::default)
}

/// The model in `path`, from the registry or read now.
pub fn load_shared(path: &str) -> std::result::Result<Arc<StaticModel>, String> {
    let canonical = std::fs::canonicalize(path).map_err(|e| format!("cannot read the model file {path}: {e}"))?;
    // A poisoned lock only means another load panicked; the map itself is still valid.
    let mut models = registry().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(model) = models.get(&canonical).and_then(Weak::upgrade) {
        return Ok(model);
    }
    let bytes = std::fs::read(&canonical).map_err(|e| format!("cannot read the model file {path}: {e}"))?;
    let model = Arc::new(StaticModel::from_bytes(&bytes).map_err(|e| format!("{path} is not a usable model: {e}"))?);
    models.retain(|_, m| m.strong_count() > 0);
    models.insert(canonical, Arc::downgrade(&model));
    Ok(model)
}

/// A loaded static embedding model (`model.bin`).
#[napi]
pub struct NativeSemanticModel {
    pub(crate) inner: Arc<StaticModel>,
}

#[napi]
impl NativeSemanticModel {
    /// Loads `path` (a `model.bin` file), or returns the copy already loaded in this process.
    #[napi(factory)]
    pub fn load(path: String) -> Result<Self> {
        load_shared(&path).map(|inner| Self { inner }).map_err(|e| Error::new(Status::InvalidArg, e))
    }

    #[napi(getter)]
    pub fn dim(&self) -> u32 {
        self.inner.dim() as u32
    }

    #[napi(getter)]
    pub fn vocab_size(&self) -> u32 {
        self.inner.vocab_size() as u32
    }

    /// Approximate bytes the model holds in memory.
    #[napi(getter)]
    pub fn heap_bytes(&self) -> f64 {
        self.inner.heap_bytes() as f64
    }

    /// Token ids of `text` (diagnostics and tests).
    #[napi]
    pub fn tokenize(&self, text: String) -> Vec<u32> {
        self.inner.tokenize(&text)
    }

    /// The unit sentence vector of `text` (diagnostics and tests).
    #[napi]
    pub fn embed(&self, text: String) -> Float32Array {
        Float32Array::new(self.inner.embed(&text))
    }

    /// Whether two handles share one loaded model.
    #[napi]
    pub fn same_model(&self, other: &NativeSemanticModel) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
