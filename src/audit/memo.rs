//! A small concurrent memo table (sharded `RwLock<HashMap>`), used to cache
//! directory listings, path lookups and parsed ELF files across the rayon
//! workers.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};
use std::sync::RwLock;

const SHARDS: usize = 32;

/// A fast non-cryptographic hasher (the multiply-rotate scheme of rustc's
/// FxHash). Keys are paths of the audited machine, not attacker-chosen
/// input to a long-running service, so hash flooding is not a concern.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

type Fx = BuildHasherDefault<FxHasher>;

pub struct Memo<K, V> {
    shards: Vec<RwLock<HashMap<K, V, Fx>>>,
    hasher: Fx,
}

impl<K: Eq + Hash, V: Clone> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            shards: (0..SHARDS)
                .map(|_| RwLock::new(HashMap::default()))
                .collect(),
            hasher: Fx::default(),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> &RwLock<HashMap<K, V, Fx>> {
        // The high bits are the best mixed ones.
        &self.shards[(self.hasher.hash_one(key) >> 59) as usize % SHARDS]
    }

    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let shard = self.shard(key).read().unwrap_or_else(|e| e.into_inner());
        shard.get(key).cloned()
    }

    pub fn insert(&self, key: K, value: V) -> V {
        let mut shard = self.shard(&key).write().unwrap_or_else(|e| e.into_inner());
        shard.entry(key).or_insert(value).clone()
    }

    /// Returns the cached value or computes it (outside the lock; two threads
    /// may compute the same value, the first one stored wins).
    pub fn get_or_insert_with<Q>(&self, key: &Q, make: impl FnOnce() -> V) -> V
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(v) = self.get(key) {
            return v;
        }
        let v = make();
        self.insert(key.to_owned(), v)
    }

    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.read().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_first_value() {
        let m: Memo<String, u32> = Memo::default();
        assert_eq!(m.get_or_insert_with("a", || 1), 1);
        assert_eq!(m.get_or_insert_with("a", || 2), 1);
        assert_eq!(m.insert("a".into(), 3), 1);
        assert_eq!(m.len(), 1);
        assert_eq!(m.get("b"), None);
    }
}
