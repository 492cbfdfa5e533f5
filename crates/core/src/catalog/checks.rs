//! Name validation (the catalogs newer upstream Mastra rejects) and the build errors.

use rustc_hash::FxHashMap as HashMap;

use super::entries::{Entries, JoinedError};
use super::ToolCatalog;

/// Why a static catalog cannot resolve names unambiguously. The messages use the wording
/// of newer upstream Mastra, which rejects the same catalogs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogError {
    ReservedName { key: String, name: String },
    DuplicateName { name: String },
    KeyConflict { key: String, owner: String },
}

impl std::fmt::Display for CatalogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ReservedName { key, name } => write!(
                f,
                "ToolSearchProcessor tool key and callable name must not use reserved meta-tool names: key=\"{key}\", name=\"{name}\"."
            ),
            Self::DuplicateName { name } => write!(
                f,
                "ToolSearchProcessor requires unique tool ids/callable names; duplicate name \"{name}\" was provided."
            ),
            Self::KeyConflict { key, owner } => write!(
                f,
                "ToolSearchProcessor tool key \"{key}\" conflicts with the callable name of tool key \"{owner}\". Tool keys and callable names must resolve unambiguously."
            ),
        }
    }
}

impl std::error::Error for CatalogError {}

/// Why [`ToolCatalog::build`] (or [`super::CatalogSource::check`]) failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The joined text does not split into the given number of tools.
    Joined(JoinedError),
    /// The tools' names are ambiguous.
    Catalog(CatalogError),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Joined(e) => e.fmt(f),
            Self::Catalog(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<JoinedError> for BuildError {
    fn from(error: JoinedError) -> Self {
        Self::Joined(error)
    }
}

impl From<CatalogError> for BuildError {
    fn from(error: CatalogError) -> Self {
        Self::Catalog(error)
    }
}

/// Whether a key equal to a different tool's callable name is an error. Every released
/// host (1.58–1.71) accepts it and resolves such a name key-first (id-first with a filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyConflicts {
    Accept,
    Reject,
}

/// A catalog source split into tools, copied, and checked as its build options ask: see
/// [`super::CatalogSource::check`]. Build it with [`super::CatalogSource::Checked`].
#[derive(Debug)]
pub struct CheckedCatalog {
    pub(super) entries: Entries<'static>,
    /// The names were validated, so they are unique and every entry is indexed.
    pub(super) unique_names: bool,
}

impl CheckedCatalog {
    /// Number of tools.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }
}

/// See [`ToolCatalog::check_unambiguous`].
pub(super) fn check_entries(entries: &Entries<'_>, reserved: &[&str], key_conflicts: KeyConflicts) -> Result<(), CatalogError> {
    let mut owner_of_name: HashMap<&str, &str> = HashMap::with_capacity_and_hasher(entries.len(), Default::default());
    for pos in 0..entries.len() {
        let (key, name) = (entries.key(pos), entries.name(pos));
        if reserved.contains(&key) || reserved.contains(&name) {
            return Err(CatalogError::ReservedName { key: key.to_owned(), name: name.to_owned() });
        }
        if owner_of_name.insert(name, key).is_some() {
            return Err(CatalogError::DuplicateName { name: name.to_owned() });
        }
    }
    if key_conflicts == KeyConflicts::Accept {
        return Ok(());
    }
    for pos in 0..entries.len() {
        let key = entries.key(pos);
        if let Some(&owner) = owner_of_name.get(key) {
            if owner != key {
                return Err(CatalogError::KeyConflict { key: key.to_owned(), owner: owner.to_owned() });
            }
        }
    }
    Ok(())
}

impl ToolCatalog {
    /// Rejects catalogs whose names are ambiguous: a key or name in `reserved`, two tools
    /// with one callable name (`id || key`), or a key that is another tool's callable name.
    pub fn check_unambiguous(&self, reserved: &[&str]) -> Result<(), CatalogError> {
        check_entries(&self.entries, reserved, KeyConflicts::Reject)
    }
}
