//! Term interning: [`Vocab`] maps words to dense term ids.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

/// Interned terms. An overlay vocabulary (per-request catalogs) extends a shared parent
/// without copying it.
///
/// Most terms are short words, so terms of up to 15 bytes are packed into a `u128` key
/// (bytes plus length): lookups then hash and compare one integer with no pointer chasing,
/// and interning them allocates nothing. Longer terms use an ordinary string map.
#[derive(Debug, Default)]
pub struct Vocab {
    parent: Option<Arc<Vocab>>,
    short: HashMap<u128, u32>,
    long: HashMap<Box<str>, u32>,
    next: u32,
}

/// `term` packed into a `u128` (its bytes, then its length in the top byte), if it fits.
#[inline]
fn pack_short(term: &str) -> Option<u128> {
    let bytes = term.as_bytes();
    if bytes.len() > 15 {
        return None;
    }
    let mut buf = [0u8; 16];
    buf[..bytes.len()].copy_from_slice(bytes);
    buf[15] = bytes.len() as u8;
    Some(u128::from_le_bytes(buf))
}

impl Vocab {
    pub fn new() -> Self {
        Self::default()
    }

    /// A vocabulary that sees every term of `parent` and numbers new terms after them.
    pub fn extending(parent: Arc<Vocab>) -> Self {
        let next = parent.next;
        Self { parent: Some(parent), short: HashMap::default(), long: HashMap::default(), next }
    }

    /// An empty vocabulary with room for `capacity` terms (avoids rehashing while indexing).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            parent: None,
            short: HashMap::with_capacity_and_hasher(capacity, Default::default()),
            long: HashMap::default(),
            next: 0,
        }
    }

    pub fn get(&self, term: &str) -> Option<u32> {
        self.get_packed(term, pack_short(term))
    }

    fn get_packed(&self, term: &str, packed: Option<u128>) -> Option<u32> {
        if let Some(p) = &self.parent {
            if let Some(id) = p.get_packed(term, packed) {
                return Some(id);
            }
        }
        match packed {
            Some(key) => self.short.get(&key).copied(),
            None => self.long.get(term).copied(),
        }
    }

    pub fn intern(&mut self, term: &str) -> u32 {
        let packed = pack_short(term);
        if let Some(id) = self.get_packed(term, packed) {
            return id;
        }
        let id = self.next;
        self.next += 1;
        match packed {
            Some(key) => self.short.insert(key, id),
            None => self.long.insert(term.into(), id),
        };
        id
    }

    /// Adds every term of `other` (a parentless vocabulary) and returns, for each of
    /// `other`'s ids, the id the term has here.
    pub fn absorb(&mut self, other: Vocab) -> Vec<u32> {
        let mut remap = vec![0u32; other.next as usize];
        for (key, local) in other.short {
            let id = match self.short.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.next;
                    self.next += 1;
                    self.short.insert(key, id);
                    id
                }
            };
            remap[local as usize] = id;
        }
        for (term, local) in other.long {
            remap[local as usize] = match self.long.get(&term) {
                Some(&id) => id,
                None => {
                    let id = self.next;
                    self.next += 1;
                    self.long.insert(term, id);
                    id
                }
            };
        }
        remap
    }

    /// Heap bytes of this vocabulary's own maps (hash tables' buckets and control bytes).
    pub fn heap_bytes(&self) -> usize {
        self.short.capacity() * 33 + self.long.capacity() * 25 + self.long.keys().map(|k| k.len()).sum::<usize>()
    }

    /// Number of term ids handed out (parent's included).
    pub fn len(&self) -> usize {
        self.next as usize
    }

    pub fn is_empty(&self) -> bool {
        self.next == 0
    }
}
