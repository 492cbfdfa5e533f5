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
    let bytes = read_model_file(&canonical).map_err(|e| format!("cannot read the model file {path}: {e}"))?;
    let model = Arc::new(StaticModel::from_bytes(&bytes).map_err(|e| format!("{path} is not a usable model: {e}"))?);
    models.retain(|_, m| m.strong_count() > 0);
    models.insert(canonical, Arc::downgrade(&model));
    Ok(model)
}

/// Largest model file read (the shipped one is tens of MB): a device such as `/dev/zero`,
/// a FIFO or a runaway file must give an error, not read until memory runs out.
const MAX_MODEL_BYTES: u64 = 1 << 30;

fn read_model_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > MAX_MODEL_BYTES {
        return Err(Error::new(ErrorKind::InvalidInput, format!("larger than {MAX_MODEL_BYTES} bytes")));
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(meta.len() as usize).map_err(|e| Error::new(ErrorKind::OutOfMemory, e.to_string()))?;
    // `take`: a file that grows while it is read still stops at the limit.
    (&mut file).take(MAX_MODEL_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_MODEL_BYTES {
        return Err(Error::new(ErrorKind::InvalidInput, format!("larger than {MAX_MODEL_BYTES} bytes")));
    }
    Ok(bytes)
}

/// A loaded static embedding model (`model.bin`).
#[napi]
pub struct NativeSemanticModel {
    pub(crate) inner: Arc<StaticModel>,
}

#[napi]
impl NativeSemanticModel {
    /// Loads `path` (a `model.bin` file), or returns the copy already loaded in this process.
    #[napi(factory, catch_unwind)]
    pub fn load(path: String) -> Result<Self> {
        load_shared(&path).map(|inner| Self { inner }).map_err(|e| Error::new(Status::InvalidArg, e))
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
    fn only_regular_files_of_bounded_size_are_read() {
        assert!(read_model_file(std::path::Path::new("/dev/zero")).is_err());
        assert!(read_model_file(&std::env::temp_dir()).is_err());
        let err = load_shared("/dev/zero").unwrap_err();
        assert!(err.starts_with("cannot read the model file /dev/zero: not a regular file"), "{err}");
    }
}
